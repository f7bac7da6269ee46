/* A loop calling a function of the same file twice an iteration, which the
 * compiler may not inline: its code (one FMA and the return) is what each
 * call runs. */
__attribute__((noinline)) float sq1(float x) { return x * x + 1.0f; }
void twice(float *restrict a, const float *restrict b, int n) {
  for (int i = 0; i < n; i++)
    a[i] = sq1(b[i]) + sq1(a[i]);
}
