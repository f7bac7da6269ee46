/* A time loop around a 3D sweep of short rows: the interior of an n^3 grid
   (rows of n doubles, n - 2 of them used) copied every time step. */
void tsweep(long n, long t, double *restrict b, const double *restrict a) {
  for (long s = 0; s < t; ++s)
    for (long k = 1; k < n - 1; ++k)
      for (long j = 1; j < n - 1; ++j)
        for (long i = 1; i < n - 1; ++i)
          b[(k * n + j) * n + i] = a[(k * n + j) * n + i];
}
