/* TSVC's s132: one row of a file-scope array written from another, again
 * each time around a loop that calls out (so nothing is hoisted). In the
 * object file every RIP-relative address still has its relocation pending
 * (displacement 0), so the places say nothing of overlap. */
float aa[256][256], b[256], c[256];
void dummy(float *);
void s132(int n) {
  int j = 0, k = 1;
  for (int nl = 0; nl < n; nl++) {
    for (int i = 1; i < 256; i++)
      aa[j][i] = aa[k][i - 1] + b[i] * c[1];
    dummy(&aa[0][0]);
  }
}
