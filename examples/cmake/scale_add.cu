#include "scale_add.h"

__global__ void scale_add_kernel(float *y, float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

void scale_add(float *y, const float *x, float a, int n) {
  scale_add_kernel<<<(n + 255) / 256, 256>>>(y, const_cast<float *>(x), a, n);
}
