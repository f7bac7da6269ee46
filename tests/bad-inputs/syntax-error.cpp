template <typename T> struct V { T *p; };
void f(V<double> &v, int n) {
  for (int i = 0; i < n; ++i)
    v.p[i] = v.q[i];
}
