// TSVC s341's pack: the elements above 0 moved to the front. j goes round
// a 1-cycle chain in the arm that stores; on data above 0 throughout (as
// TSVC's) that arm runs every iteration
// (InCore.AChainThroughAnArmCountsWhereTheDataTakesItEveryTime).
void pack(int n, float *a, const float *b) {
  int j = -1;
  for (int i = 0; i < n; i++)
    if (b[i] > 0.f) {
      j++;
      a[j] = b[i];
    }
}
