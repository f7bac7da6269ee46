# Floyd-Steinberg's row below (llvm-test-suite ImageProcessing, clang-19
# -O3 -march=znver4): an 8-byte load and store per element, the index
# stepped by lea into another register and moved back. Each load overlaps
# half of the last element's store: forwarding fails every iteration.
vmovq (%rdx,%rcx,4), %xmm5
vpaddd %xmm4, %xmm5, %xmm4
vpmaxsd %xmm1, %xmm4, %xmm4
vmovq %xmm4, (%rdx,%rcx,4)
leaq 1(%rcx), %r15
movq %r15, %rcx
