#!/usr/bin/env python3
"""Writes the bench/choose matrices (Matrix Market, general, real) into DIR.
Reproducible: fixed seeds. Some have a natural block structure (several
unknowns per grid node, as in finite elements), some none.
  gen_matrices.py DIR [--scale l3|mem]
l3 (default): 4-25 MB matrices, in a Zen 4/5 CCD's 32 MiB L3 and in the
transition on VMs that keep only part of it. mem: the same kinds at about 8x
the nonzeros (70-160 MB, beyond any L3 here), as the PPR paper's matrices
are; there the random-column matrices keep 100,000 columns (x, 800 KB, in
the L2 as at l3) and grow in rows."""
import os, random, sys

out = sys.argv[1]
MEM = len(sys.argv) > 3 and sys.argv[2] == "--scale" and sys.argv[3] == "mem"
if len(sys.argv) > 2 and not (MEM or sys.argv[2:] == ["--scale", "l3"]):
    sys.exit("usage: gen_matrices.py DIR [--scale l3|mem]")
os.makedirs(out, exist_ok=True)

def S(small, big):
    return big if MEM else small

def write(name, rows, cols, entries):
    entries = sorted(set(entries))
    with open(os.path.join(out, name + ".mtx"), "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        f.write(f"{rows} {cols} {len(entries)}\n")
        f.write("".join(f"{i + 1} {j + 1} 1.0\n" for i, j in entries))

def grid2d(n, stencil, dof=1):
    """Nodes of an n x n grid, DOF unknowns each, coupled within STENCIL."""
    e = []
    for y in range(n):
        for x in range(n):
            p = y * n + x
            for dx, dy in stencil:
                if 0 <= x + dx < n and 0 <= y + dy < n:
                    q = (y + dy) * n + x + dx
                    for a in range(dof):
                        for b in range(dof):
                            e.append((p * dof + a, q * dof + b))
    return n * n * dof, e

def grid3d(n, stencil, dof=1):
    e = []
    for z in range(n):
        for y in range(n):
            for x in range(n):
                p = (z * n + y) * n + x
                for dx, dy, dz in stencil:
                    if 0 <= x + dx < n and 0 <= y + dy < n and 0 <= z + dz < n:
                        q = ((z + dz) * n + y + dy) * n + x + dx
                        for a in range(dof):
                            for b in range(dof):
                                e.append((p * dof + a, q * dof + b))
    return n ** 3 * dof, e

five = [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)]
nine = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
seven = [(0, 0, 0), (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
twentyseven = [(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)]

n, e = grid2d(S(400, 1130), five); write("laplace2d-5pt", n, n, e)
n, e = grid2d(S(300, 850), nine); write("laplace2d-9pt", n, n, e)
n, e = grid3d(S(50, 100), seven); write("laplace3d-7pt", n, n, e)
n, e = grid2d(S(200, 560), nine, 2); write("fem2d-2dof", n, n, e)
n, e = grid3d(S(18, 36), twentyseven, 3); write("fem3d-3dof", n, n, e)
n, e = grid2d(S(80, 225), five, 6); write("shell-6dof", n, n, e)

rnd = random.Random(42)
cols = 100000
rows = S(cols, 8 * cols)
e = [(i, rnd.randrange(cols)) for i in range(rows) for _ in range(10)]
write("random-10", rows, cols, e)

rnd = random.Random(7)  # graph-like: heavy-tailed degrees, columns skewed too
e = []
for i in range(rows):
    d = min(2000, int(2 / (1 - rnd.random()) ** 0.7))
    e += [(i, int(cols * rnd.random() ** 2)) for _ in range(d)]
write("powerlaw", rows, cols, e)

rows = S(100000, 800000)  # dense band of half-width 8 around the diagonal
e = [(i, j) for i in range(rows) for j in range(max(0, i - 8), min(rows, i + 9))]
write("band-17", rows, rows, e)

rnd = random.Random(3)  # 4 x 4 dense blocks at random block positions
nbc = 25000
nb = S(nbc, 8 * nbc)
e = []
for bi in range(nb):
    for bj in {bi % nbc} | {rnd.randrange(nbc) for _ in range(3)}:
        e += [(4 * bi + a, 4 * bj + b) for a in range(4) for b in range(4)]
write("blocks-4x4", 4 * nb, 4 * nbc, e)

rnd = random.Random(11)  # short and wide (an LP constraint matrix)
rows, cols = S(4000, 32000), 200000
e = [(i, rnd.randrange(cols)) for i in range(rows) for _ in range(250)]
write("wide-lp", rows, cols, e)
