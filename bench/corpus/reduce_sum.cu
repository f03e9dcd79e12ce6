// reduce_sum.cu - sum of 512M floats: a shared-memory tree in each block of
// 256 threads, then one atomicAdd of the block's partial into the result.
#define CORPUS_NAME "reduce_sum"
#define CORPUS_SEED 0x6a09e667u
#include "corpus_common.h"

__global__ void reduce_sum(float *result, const float *in, int n) {
  __shared__ float sdata[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(result, sdata[0]);
}

int main() {
  const int n = 1 << 29;
  std::vector<float> hin(n);
  double ref = 0, mag = 0;
  for (int i = 0; i < n; ++i) {
    hin[i] = frand(-1.0f, 1.2f);
    ref += hin[i];
    mag += std::fabs(hin[i]);
  }
  float *in, *result;
  CK(cudaMalloc(&in, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&result, sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), (size_t)n * sizeof(float),
                cudaMemcpyHostToDevice));
  CK(cudaMemset(result, 0, sizeof(float)));
  reduce_sum<<<(n + 255) / 256, 256>>>(result, in, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  float got = 0;
  CK(cudaMemcpy(&got, result, sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaFree(in));
  CK(cudaFree(result));
  // One float accumulator takes ~2M atomic adds: the error bound scales with
  // the sum of magnitudes.
  if (!(std::fabs(got - ref) <= 1e-4 * mag)) {
    std::printf("reduce_sum: FAILED (got %.9g, expected %.9g)\n", got, ref);
    return 1;
  }
  std::printf("reduce_sum: ok\n");
  return 0;
}
