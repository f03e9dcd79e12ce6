// reduce_max.cu - maximum of 512M floats: a shared-memory tree per block,
// then a compare-and-swap loop to fold the block's maximum into the result.
#include <cfloat>
#define CORPUS_NAME "reduce_max"
#define CORPUS_SEED 0xbb67ae85u
#include "corpus_common.h"

__device__ void atomic_max_float(float *addr, float v) {
  int *p = (int *)addr;
  int old = *p;
  while (__int_as_float(old) < v) {
    int assumed = old;
    old = atomicCAS(p, assumed, __float_as_int(v));
    if (old == assumed)
      break;
  }
}

__global__ void reduce_max(float *result, const float *in, int n) {
  __shared__ float smax[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  smax[tid] = i < n ? in[i] : -FLT_MAX;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      smax[tid] = fmaxf(smax[tid], smax[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    atomic_max_float(result, smax[0]);
}

int main() {
  const int n = 1 << 29;
  std::vector<float> hin(n);
  float ref = -FLT_MAX;
  for (int i = 0; i < n; ++i) {
    // Mostly negative, with a slow upward drift, so the maximum is unique
    // and sits far from the start.
    hin[i] = frand(-1000.0f, 10.0f) + 1e-6f * (i % 1000003);
    ref = std::fmax(ref, hin[i]);
  }
  float *in, *result;
  CK(cudaMalloc(&in, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&result, sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), (size_t)n * sizeof(float),
                cudaMemcpyHostToDevice));
  const float lowest = -FLT_MAX;
  CK(cudaMemcpy(result, &lowest, sizeof(float), cudaMemcpyHostToDevice));
  reduce_max<<<(n + 255) / 256, 256>>>(result, in, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  float got = 0;
  CK(cudaMemcpy(&got, result, sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaFree(in));
  CK(cudaFree(result));
  if (got != ref) {
    std::printf("reduce_max: FAILED (got %.9g, expected %.9g)\n", got, ref);
    return 1;
  }
  std::printf("reduce_max: ok\n");
  return 0;
}
