#include <omp.h>
#include "defs.h"
#ifndef RELEASE_BUILD
#error "the Makefile's default branch sets RELEASE_BUILD"
#endif
#include "kern.cu"

int main() {
  float *d;
  cudaMalloc(&d, NELEM * sizeof(float));
  kern<<<1, NELEM>>>(d);
  return omp_get_max_threads() > 0 ? 0 : 1;
}
