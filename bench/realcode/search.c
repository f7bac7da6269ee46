/* An early exit (issue 45 #3): priced per iteration, assumed to run to its
 * bound. search_main.c times it with a threshold no element exceeds. */
int search(const float *a, int n, float t) {
  for (int i = 0; i < n; i++)
    if (a[i] > t)
      return i;
  return -1;
}
