/* Times BCSR SpMV for every block size r x c <= MAXR x MAXC of a Matrix
 * Market matrix on this host. The kernels are perfmodel's own (choose bcsr
 * --emit-kernels), compiled into this program, so the code timed is the
 * code modelled. Output: one line per block size,
 *   r c blocks fill seconds_per_spmv
 * the median of 7 samples, each sample long enough (>= 2 ms) to be timed.
 * Every SpMV runs on warm caches (the previous repetition), as choose
 * models it. Build: see run.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels_table.h" /* KERNELS[r-1][c-1], MAXR, MAXC (generated) */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int cmpi(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
}

typedef struct { long r, c; double v; } Entry;

static int cmpe(const void *a, const void *b) {
  const Entry *x = a, *y = b;
  if (x->r != y->r) return x->r < y->r ? -1 : 1;
  return x->c < y->c ? -1 : x->c > y->c;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MATRIX.mtx\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "r");
  if (!f) { perror(argv[1]); return 1; }
  char line[1024];
  if (!fgets(line, sizeof line, f)) return 1;
  int pattern = strstr(line, "pattern") != NULL, sym = strstr(line, "symmetric") != NULL;
  long rows, cols, n;
  do { if (!fgets(line, sizeof line, f)) return 1; } while (line[0] == '%');
  sscanf(line, "%ld %ld %ld", &rows, &cols, &n);
  Entry *e = malloc(sizeof(Entry) * n * (sym ? 2 : 1));
  long m = 0;
  srand(1);
  for (long k = 0; k < n; ++k) {
    long i, j; double v = 1.0;
    if (!fgets(line, sizeof line, f)) return 1;
    if (pattern) sscanf(line, "%ld %ld", &i, &j);
    else sscanf(line, "%ld %ld %lf", &i, &j, &v);
    v = 0.5 + rand() / (double)RAND_MAX; /* values do not change the time */
    e[m++] = (Entry){i - 1, j - 1, v};
    if (sym && i != j) e[m++] = (Entry){j - 1, i - 1, v};
  }
  fclose(f);
  qsort(e, m, sizeof(Entry), cmpe);
  double *x = malloc(sizeof(double) * (cols + 16)), *y = malloc(sizeof(double) * (rows + 16));
  for (long j = 0; j < cols + 16; ++j) x[j] = 1.0 / (j + 1);
  long *stamp = malloc(sizeof(long) * (cols + 1));
  for (int r = 1; r <= MAXR; ++r)
    for (int c = 1; c <= MAXC; ++c) {
      long nbr = (rows + r - 1) / r, nbc = (cols + c - 1) / c;
      int *bp = malloc(sizeof(int) * (nbr + 1));
      for (long j = 0; j < nbc; ++j) stamp[j] = -1;
      /* the block structure: distinct block columns of each block row, sorted */
      long nb = 0, at = 0;
      long *slot = malloc(sizeof(long) * nbc);
      int *bc = malloc(sizeof(int) * m);
      for (long bi = 0; bi < nbr; ++bi) {
        long start = nb, a0 = at;
        bp[bi] = (int)nb;
        while (at < m && e[at].r < (bi + 1) * r) ++at;
        for (long k = a0; k < at; ++k) {
          long j = e[k].c / c;
          if (stamp[j] != bi) { stamp[j] = bi; bc[nb++] = (int)j; }
        }
        qsort(bc + start, nb - start, sizeof(int), cmpi);
        bp[bi + 1] = (int)nb;
      }
      double *val = calloc((size_t)nb * r * c + 8, sizeof(double));
      /* values: each entry into its block (explicit zeros elsewhere) */
      at = 0;
      for (long bi = 0; bi < nbr; ++bi) {
        long a0 = at;
        while (at < m && e[at].r < (bi + 1) * r) ++at;
        for (long p = bp[bi]; p < bp[bi + 1]; ++p) slot[bc[p]] = p;
        for (long k = a0; k < at; ++k) {
          long p = slot[e[k].c / c];
          val[p * r * c + (e[k].c % c) * r + (e[k].r - bi * r)] = e[k].v; /* column-major */
        }
      }
      /* x is read up to nbc * c, y written up to nbr * r */
      double *xp = realloc(x, sizeof(double) * (nbc * c + 16));
      double *yp = realloc(y, sizeof(double) * (nbr * r + 16));
      x = xp; y = yp;
      for (long j = cols; j < nbc * c + 16; ++j) x[j] = 0;
      Kernel K = KERNELS[r - 1][c - 1];
      K((int)nbr, bp, bc, val, x, y); /* warm */
      long reps = 1;
      for (;;) {
        double t0 = now();
        for (long i = 0; i < reps; ++i) K((int)nbr, bp, bc, val, x, y);
        if (now() - t0 >= 2e-3) break;
        reps *= 2;
      }
      double s[7];
      for (int i = 0; i < 7; ++i) {
        double t0 = now();
        for (long q = 0; q < reps; ++q) K((int)nbr, bp, bc, val, x, y);
        s[i] = (now() - t0) / reps;
      }
      qsort(s, 7, sizeof(double), cmpd);
      printf("%d %d %ld %.4f %.6e\n", r, c, nb, (double)nb * r * c / m, s[3]);
      fflush(stdout);
      free(bp); free(bc); free(val); free(slot);
    }
  return 0;
}
