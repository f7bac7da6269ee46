# Four float -> int and four int -> float (from memory) conversions a trip,
# independent (bench/incore/fp_convert.c): each takes half a cycle of FP2
# and of FP3 on the Zen 5 VM (timed 0.50-0.55 cy a conversion), so the trip
# is 8 x 0.5 = 4 cycles; LLVM 19's znver5 charges 4 x 2.5 + 4 x 1 = 14.
.intel_syntax noprefix
vcvttss2si eax, xmm9
vcvttss2si edx, xmm9
vcvttsd2si r8d, xmm8
vcvttss2si r9, xmm9
vcvtsi2ss xmm0, xmm9, dword ptr [rdi]
vcvtsi2ss xmm1, xmm9, dword ptr [rdi + 4]
vcvtsi2sd xmm2, xmm8, dword ptr [rdi + 8]
vcvtsi2ss xmm3, xmm9, dword ptr [rdi + 12]
