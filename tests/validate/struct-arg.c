/* validate must refuse, not guess: the kernel takes a struct. */
struct grid {
  int n;
  double *v;
};

void clear(struct grid g) {
  for (int i = 0; i < g.n; ++i)
    g.v[i] = 0.0;
}
