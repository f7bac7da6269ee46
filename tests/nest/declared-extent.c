/* A gather through an index array nobody gave (no --index): what it touches
 * of b is unknown, but no more than b's declared 32000 floats. */
float a[32000], b[32000];
int ip[32000];
void gather(void) {
  for (int i = 0; i < 32000; i++)
    a[i] = b[ip[i]];
}
