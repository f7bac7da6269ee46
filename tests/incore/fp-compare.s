# 8 scalar multiplies and 4 flag-setting compares (the NaN checks of std::complex
# products): InCore.AScalarCompareRunsOnTheAddPipes.
vmulsd %xmm8, %xmm9, %xmm0
vmulsd %xmm8, %xmm9, %xmm1
vmulsd %xmm8, %xmm9, %xmm2
vmulsd %xmm8, %xmm9, %xmm3
vmulsd %xmm8, %xmm9, %xmm4
vmulsd %xmm8, %xmm9, %xmm5
vmulsd %xmm8, %xmm9, %xmm6
vmulsd %xmm8, %xmm9, %xmm7
vucomisd %xmm10, %xmm10
vucomisd %xmm11, %xmm11
vucomisd %xmm8, %xmm8
vucomisd %xmm9, %xmm9
