#!/usr/bin/env python3
"""Writes the load-mix loops of bench/incore/load_mix.sh: independent loads
in L1 of zmm, ymm, scalar-FP (vmovsd) and integer registers, mixed, one loop
per case (assembly), and the C harness that times them. The integer loads
read another buffer at another page offset (2 KiB on): loads of two pages at
the same page offset meet in one L1 set and run slower (the last cases)."""
import sys

# name, zmm loads, zmm offset (8: every second 32-byte part crosses a line),
# ymm loads, vmovsd loads, integer loads
CASES = [
    ("int 12", 0, 0, 0, 0, 12), ("int 16", 0, 0, 0, 0, 16),
    ("vmovsd 16", 0, 0, 0, 16, 0), ("ymm 12", 0, 0, 12, 0, 0),
    ("zmm 12", 12, 0, 0, 0, 0), ("zmm 12 split", 12, 8, 0, 0, 0),
    ("ymm 2 + int 12", 0, 0, 2, 0, 12), ("ymm 4 + int 12", 0, 0, 4, 0, 12),
    ("ymm 6 + int 6", 0, 0, 6, 0, 6), ("ymm 12 + int 12", 0, 0, 12, 0, 12),
    ("vmovsd 12 + int 12", 0, 0, 0, 12, 12), ("ymm 12 + vmovsd 6", 0, 0, 12, 6, 0),
    ("zmm 2 + int 12", 2, 0, 0, 0, 12), ("zmm 6 + int 12", 6, 0, 0, 0, 12),
    ("zmm 12 + int 4", 12, 0, 0, 0, 4), ("zmm 12 + int 12", 12, 0, 0, 0, 12),
    ("zmm 12 + int 24", 12, 0, 0, 0, 24), ("zmm 12 split + int 12", 12, 8, 0, 0, 12),
    ("ymm 4 + int 12, same offsets", 0, 0, 4, 0, -12),
    ("int 8 + int 8, same offsets", 0, 0, 0, 0, -16),
]
# Without AVX-512 (--no-zmm: a Zen 3 or Haswell host) the zmm cases are left out.
if "--no-zmm" in sys.argv:
    CASES = [c for c in CASES if c[1] == 0]
    sys.argv.remove("--no-zmm")
GPR = ["rax", "r8", "r9", "r10", "r11"]


def body(nz, off, ny, nf, ni):
    # ni < 0: the integer loads at the vector buffer's page offsets (in the
    # last case half of them from the vector buffer itself)
    base = 2048 if ni >= 0 else 0
    same = ni < 0 and nz == ny == nf == 0
    ni = abs(ni)
    vec = [f"  vmovupd {z * 64 + off}(%rsi), %zmm{z % 8}" for z in range(nz)]
    vec += [f"  vmovupd {y * 32}(%rsi), %ymm{8 + y % 8}" for y in range(ny)]
    vec += [f"  vmovsd {f * 8}(%rsi), %xmm{f % 8}" for f in range(nf)]
    ints = [f"  mov {base + j * 8}(%{'rsi' if same and j % 2 else 'rdx'}), %{GPR[j % len(GPR)]}"
            for j in range(ni)]
    out, a, b = [], 0, 0
    while a < len(vec) or b < len(ints):  # the integer loads spread evenly
        if b < len(ints) and (a >= len(vec) or (b + 1) * len(vec) <= (a + 1) * len(ints)):
            out.append(ints[b]); b += 1
        else:
            out.append(vec[a]); a += 1
    return out


asm, c = [".text"], ["#include <stdio.h>", "#include <stdlib.h>", "#include <time.h>",
                     "static double now(void) { struct timespec t; "
                     "clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }"]
for k, (name, *shape) in enumerate(CASES):
    asm += [f".globl mix{k}", f"mix{k}:", "  mov %rdi, %rcx", "1:"] + body(*shape) + \
           ["  dec %rcx", "  jnz 1b", "  vzeroupper", "  ret"]
    c.append(f"void mix{k}(long, void *, void *);")
c.append("int main(int argc, char **argv) {\n  double ghz = atof(argv[1]);\n"
         "  char *a = aligned_alloc(4096, 8192), *b = aligned_alloc(4096, 4096);\n"
         "  long n = 20000000;")
for k, (name, *_) in enumerate(CASES):
    c.append(f"  {{ double best = 1e9; for (int r = 0; r < 9; r++) {{ double t0 = now(); "
             f"mix{k}(n, a, b); double t = now() - t0; if (t < best) best = t; }}\n"
             f"    printf(\"%-30s %6.2f cy per iteration\\n\", \"{name}\", best / n * 1e9 * ghz); }}")
c.append("}")
open(sys.argv[1] + "/mix.s", "w").write("\n".join(asm) + "\n")
open(sys.argv[1] + "/mix.c", "w").write("\n".join(c) + "\n")
