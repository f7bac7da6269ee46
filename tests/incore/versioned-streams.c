/* LCALS's MULADDSUB: five streams through pointers the compiler cannot tell
 * apart. clang-19 -march=znver3 versions the loop: a ymm copy (4 doubles a
 * trip) when a run-time check finds the arrays apart, else a scalar copy
 * unrolled as far (4 a trip) that loads in1[i] and in2[i] again for each
 * statement. */
struct Arrays {
  double *p[5];
};
void muladdsub(struct Arrays *d, long reps, long n) {
  double *out1 = d->p[0], *out2 = d->p[1], *out3 = d->p[2];
  const double *in1 = d->p[3], *in2 = d->p[4];
  for (long r = 0; r < reps; r++)
    for (long i = 0; i < n; i++) {
      out1[i] = in1[i] * in2[i];
      out2[i] = in1[i] + in2[i];
      out3[i] = in1[i] - in2[i];
    }
}
