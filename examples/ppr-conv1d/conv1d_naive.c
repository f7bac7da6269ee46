/* PPR paper (Xie, Tan, Sun), algorithm 1: naive 1D convolution in single
 * precision, kernel length 16, one output per outer iteration. The tap
 * loop is written out (clang unrolls the 16 taps of the paper's inner loop
 * into exactly this), so the loop over outputs is the innermost and the
 * store of out[i] is part of it. Compiled without vectorisation
 * (compile_commands.json). */
#define TAP(k) in[i + (k)] * kernel[15 - (k)]

void conv1d_naive(long length, const float *restrict in, const float *restrict kernel,
                  float *restrict out) {
  for (long i = 0; i < length - 16; ++i) {
    float tmp = 0;
    tmp += TAP(0); tmp += TAP(1); tmp += TAP(2); tmp += TAP(3);
    tmp += TAP(4); tmp += TAP(5); tmp += TAP(6); tmp += TAP(7);
    tmp += TAP(8); tmp += TAP(9); tmp += TAP(10); tmp += TAP(11);
    tmp += TAP(12); tmp += TAP(13); tmp += TAP(14); tmp += TAP(15);
    out[i] = tmp;
  }
}
