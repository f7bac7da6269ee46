# TSVC s318's select as clang -O3 -march=znver5 makes it: max = |a[k]| > max ? |a[k]| : max
vucomiss %xmm1, %xmm0
setb %r8b
kmovd %r8d, %k1
vmovss %xmm1, %xmm0, %xmm0 {%k1}
