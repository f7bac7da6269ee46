# Four independent 32-bit divides a trip (bench/incore/int_divide.c): 6
# cycles of the divider each on the Zen 5 VM (timed 5.8-6.0; LLVM 19's
# znver5: 13).
.intel_syntax noprefix
mov eax, 200
cdq
idiv r9d
mov eax, 201
cdq
idiv r9d
mov eax, 202
cdq
idiv r9d
mov eax, 203
cdq
idiv r9d
