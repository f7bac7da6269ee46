// The positions of the elements above a threshold: clang-19 -O3 keeps the
// if as a branch per element (the store and k++ only in the taken arm), on
// the data: random data mispredicts half of them, sorted data none.
long count(long n, const int *restrict a, int t, long *restrict idx) {
  long k = 0;
  for (long i = 0; i < n; i++)
    if (a[i] > t)
      idx[k++] = i;
  return k;
}
