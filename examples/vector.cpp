// AXPY over std::vector, by index and by range.
#include <cstddef>
#include <vector>

void axpy(double alpha, const std::vector<double> &x, std::vector<double> &y) {
  for (std::size_t i = 0; i < x.size(); ++i)
    y[i] += alpha * x[i];
}

void scale(std::vector<float> &v, float s) {
  for (float &e : v)
    e *= s;
}
