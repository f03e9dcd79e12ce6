// dot.cu - dot product of two 256M-float vectors: per-thread products, a
// shared-memory tree per block, one atomicAdd per block.
#define CORPUS_NAME "dot"
#define CORPUS_SEED 0x3c6ef372u
#include "corpus_common.h"

__global__ void dot(float *result, const float *a, const float *b, int n) {
  __shared__ float cache[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cache[tid] = i < n ? a[i] * b[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      cache[tid] += cache[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(result, cache[0]);
}

int main() {
  const int n = 1 << 28;
  std::vector<float> ha(n), hb(n);
  double ref = 0, mag = 0;
  for (int i = 0; i < n; ++i) {
    ha[i] = frand(-0.5f, 1.5f);
    hb[i] = frand(-0.25f, 1.0f);
    double p = (double)ha[i] * hb[i];
    ref += p;
    mag += std::fabs(p);
  }
  float *a, *b, *result;
  CK(cudaMalloc(&a, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&b, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&result, sizeof(float)));
  CK(cudaMemcpy(a, ha.data(), (size_t)n * sizeof(float),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b, hb.data(), (size_t)n * sizeof(float),
                cudaMemcpyHostToDevice));
  CK(cudaMemset(result, 0, sizeof(float)));
  dot<<<(n + 255) / 256, 256>>>(result, a, b, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  float got = 0;
  CK(cudaMemcpy(&got, result, sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(result));
  if (!(std::fabs(got - ref) <= 1e-4 * mag)) {
    std::printf("dot: FAILED (got %.9g, expected %.9g)\n", got, ref);
    return 1;
  }
  std::printf("dot: ok\n");
  return 0;
}
