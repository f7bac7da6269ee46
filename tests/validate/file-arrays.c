// File-scope arrays a timing harness must fill before it times the loops
// (tests/unit/ValidateTest.cpp, Validate.FillsFileScopeArrays).
#define N 1000
float x[N], y[N];
double grid[N / 10][10];
int idx[N];
const double weights[4] = {1, 2, 3, 4};

void saxpy_g(float s) {
  for (int i = 0; i < N; i++)
    y[i] += s * x[i];
}

void gather_g(void) {
  for (int i = 0; i < N; i++)
    y[i] = x[idx[i]] * (float)weights[i % 4];
}

void rows_g(void) {
  for (int j = 0; j < N / 10; j++)
    for (int i = 0; i < 10; i++)
      grid[j][i] *= 0.5;
}
