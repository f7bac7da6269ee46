/* Loops perfmodel cannot model, each with its reason, beside ones it can (one exits early). */
#include <stdio.h>

int find(const int *a, int n, int key) {
  int i = 0;
  while (i < n && a[i] != key) /* data-dependent exit */
    ++i;
  return i;
}

void log_values(const double *a, int n) {
  for (int i = 0; i < n; ++i)
    printf("%f\n", a[i]); /* call with unknown side effects */
}

int first_negative(const double *a, int n) {
  for (int i = 0; i < n; ++i)
    if (a[i] < 0)
      goto found;
  return -1;
found:
  return 0;
}

void scale(double *a, int n, double s) {
  for (int i = 0; i < n; ++i)
    a[i] *= s;
}
