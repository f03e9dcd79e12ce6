// A library kernel file with no host code: NVRTC builds it.
#include <cuda_fp16.h>

__global__ void scale_half(__half *y, const __half *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = __float2half(a * __half2float(x[i]));
}
