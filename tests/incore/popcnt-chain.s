# A popcount feeding an add into its own destination: a chain only where
# popcnt has a false dependency on its destination (LLVM's false-deps-popcnt:
# Intel Sandy Bridge to Coffee Lake).
.intel_syntax noprefix
.text
loop:
  popcnt rbx, r12
  add rbx, 1
  dec r8
  jne loop
