// vector_add.cu - c = a + b over 256M floats, one element per thread.
#define CORPUS_NAME "vector_add"
#define CORPUS_SEED 0xa54ff53au
#include "corpus_common.h"

__global__ void vector_add(float *c, const float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

int main() {
  const int n = 1 << 28;
  std::vector<float> ha(n), hb(n), hc(n);
  for (int i = 0; i < n; ++i) {
    ha[i] = frand(-4.0f, 4.0f);
    hb[i] = frand(-1.0f, 2.0f);
  }
  float *a, *b, *c;
  CK(cudaMalloc(&a, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&b, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&c, (size_t)n * sizeof(float)));
  CK(cudaMemcpy(a, ha.data(), (size_t)n * sizeof(float),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b, hb.data(), (size_t)n * sizeof(float),
                cudaMemcpyHostToDevice));
  vector_add<<<(n + 255) / 256, 256>>>(c, a, b, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hc.data(), c, (size_t)n * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int i = 0; i < n; ++i)
    bad += hc[i] != ha[i] + hb[i];
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(c));
  if (bad) {
    std::printf("vector_add: FAILED (%lld of %d outputs wrong)\n", bad, n);
    return 1;
  }
  std::printf("vector_add: ok\n");
  return 0;
}
