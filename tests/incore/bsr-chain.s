# A leading-zero count through bsr (a block of BHive's Skylake set, measured
# at 4.99 cy per iteration): bsr keeps its destination when the source is
# zero, so it waits for the last write of rax, which the xor and sub make.
.intel_syntax noprefix
.text
loop:
  bsr rax, r11
  xor eax, 63
  sub eax, ecx
  dec r8
  jne loop
