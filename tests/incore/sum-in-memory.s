# A sum kept in memory (what benchmark::DoNotOptimize(q += z[k] * x[k]) compiles
# to): InCore.AValueThroughMemoryComesBackAtTheForwardingLatency.
vaddsd 8(%rsp), %xmm1, %xmm0
vmovsd %xmm0, 8(%rsp)
