/* TSVC's s172: a step known only at run time. clang-19 versions the loop;
 * its zmm copy for a unit step advances the addresses by a register, not
 * by an immediate. */
float a[32000], b[32000];
void s172(int n3) {
  for (int i = 0; i < 32000; i += n3)
    a[i] += b[i];
}
