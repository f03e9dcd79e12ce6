// map_reduce_sumsq.cu - sum of squares of 64M floats, written as a map kernel
// and a reduction kernel launched back to back through a temporary: square
// writes sq = x * x, reduce_sum sums sq with a shared-memory tree per block
// of 256 threads and one atomicAdd of the block's partial into the result.
// sq is cudaMalloc'ed for the pair and freed after it (dead afterwards). The
// map-into-reduction fusion case of issue 14: the pair moves 768 MB (x, sq,
// sq) where the fused floor is 256 MB (x read once; a 4-byte result).
#define CORPUS_NAME "map_reduce_sumsq"
#define CORPUS_SEED 0xa831c66du
#include "corpus_common.h"

__global__ void square(float *sq, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    sq[i] = x[i] * x[i];
}

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
  const int n = 1 << 26;
  std::vector<float> hx(n);
  double ref = 0;
  for (int i = 0; i < n; ++i) {
    hx[i] = frand(-1.0f, 1.0f);
    ref += (double)hx[i] * hx[i];
  }
  float *x, *sq, *result;
  CK(cudaMalloc(&x, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&result, sizeof(float)));
  CK(cudaMemcpy(x, hx.data(), (size_t)n * sizeof(float),
                cudaMemcpyHostToDevice));
  CK(cudaMalloc(&sq, (size_t)n * sizeof(float)));
  CK(cudaMemset(result, 0, sizeof(float)));
  square<<<(n + 255) / 256, 256>>>(sq, x, n);
  CK(cudaGetLastError());
  reduce_sum<<<(n + 255) / 256, 256>>>(result, sq, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaFree(sq));
  float got = 0;
  CK(cudaMemcpy(&got, result, sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaFree(x));
  CK(cudaFree(result));
  // One float accumulator takes 256K atomic adds in an undefined order; every
  // term is positive, so the sum is its own magnitude: 1e-4 relative.
  if (!(std::fabs(got - ref) <= 1e-4 * ref)) {
    std::printf("map_reduce_sumsq: FAILED (got %.9g, expected %.9g)\n", got,
                ref);
    return 1;
  }
  std::printf("map_reduce_sumsq: ok\n");
  return 0;
}
