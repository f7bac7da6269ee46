// C++ constructs that must never crash the front end; each loop is either
// modelled or reported with a reason (tests/cli/CliTest.cpp, FrontendTest.cpp).
#include <vector>
#include <complex>
#include <algorithm>
#include <cmath>
#define LOOP(i, n) for (int i = 0; i < (n); ++i)
struct Grid { double *data; int nx, ny; double &at(int i, int j) { return data[i * ny + j]; } };
struct S { double v[16]; float f; };
int rec(int n) { return n ? rec(n - 1) : 0; }
template <typename T, int K> struct Blk { T a[K]; void zero() { for (int i = 0; i < K; ++i) a[i] = T(); } };
void f1(Grid &g) { for (int i = 0; i < g.nx; ++i) for (int j = 0; j < g.ny; ++j) g.at(i, j) *= 2.0; }
void f2(std::vector<std::vector<double>> &m) { for (size_t i = 0; i < m.size(); ++i) for (size_t j = 0; j < m[i].size(); ++j) m[i][j] += 1.0; }
void f3(double *a, int n) { LOOP(i, n) a[i] = a[i] * a[i]; }
void f4(std::complex<double> *z, int n) { for (int i = 0; i < n; ++i) z[i] = z[i] * z[i]; }
void f5(double *p, double *end) { for (; p != end; ++p) *p = 0; }
void f6(int n, double a[n][n]) { for (int i = 0; i < n; ++i) a[i][i] = 1; }
void f7(S *s, int n) { for (int i = 0; i < n; ++i) for (int k = 0; k < 16; ++k) s[i].v[k] += s[i].f; }
void f8(double *a, int n) { auto l = [&](int m) { for (int i = 0; i < m; ++i) a[i] = i; }; l(n); }
void f9(double *a, int n) { for (int i = 0; i < n; ++i) { for (int j = 0; j < i; ++j) a[j] += a[i]; } }
void f10(double *a, int n) { int i = 0; do { a[i] = 0; } while (++i < n); }
void f11(double *a, long n) { for (long i = n; i > 0; i -= 3) a[i - 1] = std::max(a[i - 1], 0.0); }
void f12(double *a, int n) { for (int i = 0; i < n; ++i) a[i % 7] += a[i / 2] + a[i >> 1] + a[i << 2] + a[-i + n]; }
void f13(double *a, int n, int s) { for (int i = 0; i < n; i += s) a[i] = 0; }
void f14(double *a, int n) { for (int i = 0, j = 0; i < n; ++i, ++j) a[i] = j; }
void f15(double *a, unsigned n) { for (unsigned i = 0; i < n; i++) { if (a[i] > 0) continue; a[i] = -a[i]; } }
void f16(double *a, int n) { for (int i = 0; i < n; ++i) a[i] = rec(i); }
void f17(double **a, int n) { for (int i = 0; i < n; ++i) for (int j = 0; j < n; ++j) a[i][j] = a[j][i]; }
void f18(Blk<double, 8> &b) { b.zero(); }
void f19(double *a) { for (int i = 0; i < 1000000000; ++i) for (int j = 0; j < 1000000000; ++j) for (int k = 0; k < 1000000000; ++k) a[(long)i * j * k] = 0; }
void f20(double *a, int n) { for (int i = 0; i < n; ++i) { switch (i & 3) { case 0: a[i] = 1; break; default: a[i] = 2; } } }
void f21(int *a, int n) { for (int i = 0; i < n; ++i) a[a[a[i]]] = i; }
void f22(double *a, int n) { for (int i = 0; i < n; ++i) a[i] = std::sqrt(a[i]) + std::exp(a[i]) + std::pow(a[i], 2.0) + std::fma(a[i], 2.0, 1.0); }
void f23(double *a, int n) { for (int i = 0; i < n; ++i) { static int c; c++; a[i] = c; } }
void f24(double *a, int n) { for (int i = 0; i < n; ++i) { try { a[i] = 1; } catch (...) {} } }
void f25(std::vector<double> &v) { for (auto it = v.begin(); it != v.end(); ++it) *it = 0; }
void f26(double *a, int n) { for (int i = 0; i < n; ++i) a[i] = ((i * 2) + 1) * (3 - i); }
void f27(double (&a)[100]) { for (double &x : a) x += 1; }
void f28(char *s) { for (int i = 0; s[i]; ++i) s[i] ^= 1; }
