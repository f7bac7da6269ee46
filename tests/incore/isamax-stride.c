/* TSVC's s318: the index of the largest |a[k]|, k stepping by a run-time
 * inc. clang-19 -march=znver3 unrolls the branching body 8 times and steps
 * the counter twice a pass (add eax, 7 ... inc eax). */
#include <math.h>
float a[32000];
int isamax(int inc) {
  int k = 0, index = 0;
  float max = fabsf(a[0]);
  k += inc;
  for (int i = 1; i < 32000; i++) {
    if (fabsf(a[k]) <= max)
      goto next;
    index = i;
    max = fabsf(a[k]);
  next:
    k += inc;
  }
  return index + (int)max;
}
