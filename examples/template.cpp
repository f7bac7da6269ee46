// A templated kernel, instantiated for float and double in this file.
#include <cstddef>

template <typename T>
void saxpy(std::size_t n, T a, const T *x, T *y) {
  for (std::size_t i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];
}

template <typename T>
T dot(std::size_t n, const T *x, const T *y) {
  T s = 0;
  for (std::size_t i = 0; i < n; ++i)
    s += x[i] * y[i];
  return s;
}

template <typename T> void never_used(T *p, int n) {
  for (int i = 0; i < n; ++i)
    p[i] = 0;
}

void run(std::size_t n, float *xf, float *yf, double *xd, double *yd) {
  saxpy<float>(n, 2.0f, xf, yf);
  saxpy<double>(n, 2.0, xd, yd);
  (void)dot(n, xd, yd);
}
