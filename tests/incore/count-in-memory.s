# An integer counter kept in memory: InCore.AValueThroughMemoryComesBackAtTheForwardingLatency.
movq 8(%rsp), %rax
addq $1, %rax
movq %rax, 8(%rsp)
