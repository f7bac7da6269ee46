#!/usr/bin/env python3
"""Writes a C file of about LINES lines made of varied loop kernels.

Used by run.sh to compare `perfmodel analyze` with `clang-19 -fsyntax-only`
on the same translation unit."""
import sys

TEMPLATES = [
    """void triad_{n}(long n, double *restrict a, const double *restrict b,
              const double *restrict c, double s) {{
  for (long i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i];
}}
""",
    """double dot_{n}(int n, const double *x, const double *y) {{
  double s = 0.0;
  for (int i = 0; i < n; ++i)
    s += x[i] * y[i];
  return s;
}}
""",
    """void jacobi_{n}(int n, int m, double (*restrict out)[m],
               const double (*restrict in)[m]) {{
  for (int j = 1; j < n - 1; ++j)
    for (int i = 1; i < m - 1; ++i)
      out[j][i] = 0.25 * (in[j][i - 1] + in[j][i + 1] + in[j - 1][i] +
                          in[j + 1][i]);
}}
""",
    """void matmul_{n}(int n, const double *A, const double *B, double *C) {{
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {{
      const double a = A[i * n + k];
      for (int j = 0; j < n; ++j)
        C[i * n + j] += a * B[k * n + j];
    }}
}}
""",
    """void spmv_{n}(int rows, const int *rowptr, const int *col,
             const double *val, const double *x, double *y) {{
  for (int i = 0; i < rows; ++i) {{
    double t = 0.0;
    for (int j = rowptr[i]; j < rowptr[i + 1]; ++j)
      t += val[j] * x[col[j]];
    y[i] = t;
  }}
}}
""",
    """void norm_{n}(int n, float *v) {{
  for (int i = 0; i < n; ++i)
    v[i] = sqrtf(v[i] * v[i] + 1.0f) / (1.0f + v[i]);
}}
""",
]


def main():
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    out = ["#include <math.h>", "#include <stddef.h>", "#include <stdlib.h>", ""]
    n = 0
    while len("\n".join(out).splitlines()) < lines:
        out.append(TEMPLATES[n % len(TEMPLATES)].format(n=n))
        n += 1
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
