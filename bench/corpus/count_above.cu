// count_above.cu - how many of 128M floats exceed a threshold, every thread
// whose element does adding 1 to one int with atomicAdd.
#define CORPUS_NAME "count_above"
#define CORPUS_SEED 0x9bdc06a7u
#include "corpus_common.h"

__global__ void count_above(int *count, const float *in, float threshold,
                            int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > threshold)
    atomicAdd(count, 1);
}

int main() {
  const int n = 1 << 27;
  const float threshold = 0.75f;
  std::vector<float> hin(n);
  fill_uniform(hin, -1.0f, 1.0f);
  int ref = 0;
  for (int i = 0; i < n; ++i)
    ref += hin[i] > threshold;
  float *in;
  int *count;
  CK(cudaMalloc(&in, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&count, sizeof(int)));
  CK(cudaMemcpy(in, hin.data(), (size_t)n * sizeof(float),
                cudaMemcpyHostToDevice));
  CK(cudaMemset(count, 0, sizeof(int)));
  count_above<<<(n + 255) / 256, 256>>>(count, in, threshold, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int got = 0;
  CK(cudaMemcpy(&got, count, sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaFree(in));
  CK(cudaFree(count));
  if (got != ref) {
    std::printf("count_above: FAILED (got %d, expected %d)\n", got, ref);
    return 1;
  }
  std::printf("count_above: ok\n");
  return 0;
}
