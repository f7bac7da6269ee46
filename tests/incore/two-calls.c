// Two calls of a function with a 4-iteration loop in a loop's body: clang
// inlines both and unrolls their loops fully into the loop over nl, so one
// machine loop runs both source loops (InCore.LoopsMergedIntoOneMachineLoopShareItsTrip).
float a[64];
float test(const float *A) {
  float s = 0;
  for (int i = 0; i < 4; i++)
    s += A[i];
  return s;
}
void sink(float);
void twice(int n) {
  for (int nl = 0; nl < n; nl++)
    sink(test(a) + test(&a[4]));
}
