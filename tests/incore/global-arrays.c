/* File-scope arrays: clang-19 -O3 -march=znver5 unrolls this loop into 20
 * zmm adds and 20 zmm stores a trip, the arrays addressed RIP-relative
 * through two base registers and one element counter in rax that advances
 * with `add rax, 320`, x86's accumulator form (no register operand). */
float a[32000], b[32000];
void add1(void) {
  for (int i = 0; i < 32000; i++)
    a[i] = b[i] + 1;
}
