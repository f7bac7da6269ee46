# Three dependent adds and a subtract: inside the add group, 2 cycles each on
# the Zen 5 VM (bench/incore/fp_bypass.c: add->add and sub->add 2 + 2).
vaddsd %xmm1, %xmm0, %xmm0
vaddsd %xmm1, %xmm0, %xmm0
vsubsd %xmm1, %xmm0, %xmm0
vaddsd %xmm1, %xmm0, %xmm0
