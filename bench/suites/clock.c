/* The clock this core runs at now, in GHz: a dependent add chain of 0.1 s
   or so (25 chains of 4e6 adds, their total). The suites' harness runs it
   before and after each timed process and predicts at the median of all:
   a VM's clock wanders by several % over seconds, and analyze's own 15 ms
   measurement sees one moment of it.
   Build: clang-19 -O2 clock.c */
#include "../incore/host_clock.h"
#include <stdio.h>

int main(void) {
  double Seconds = 0;
  for (int K = 0; K < 25; K++)
    Seconds += secondsPerCycle();
  printf("%.3f\n", 1e-9 / (Seconds / 25));
  return 0;
}
