/* TSVC's s124 shape: a packing index that steps in a branch (j++), which
 * no subscript analysis follows; a's declared extent bounds its reach. */
float a[32000], b[32000];
void pack(void) {
  int j = -1;
  for (int i = 0; i < 32000; i++)
    if (b[i] > 0) {
      j++;
      a[j] = b[i];
    }
}
