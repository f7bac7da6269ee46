/* A random gather: validate times it with the index data the simulator
   replays (--index idx=uniform:0:n:n). */
void gather(long n, double *restrict y, const double *restrict x, const int *restrict idx) {
  for (long i = 0; i < n; ++i)
    y[i] = x[idx[i]];
}
