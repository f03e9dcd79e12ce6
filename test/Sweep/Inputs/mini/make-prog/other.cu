#include "defs.h"
__global__ void other(float *x) { x[threadIdx.x] = SCALE; }
