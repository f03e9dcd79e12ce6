// segment_max.cu - the maximum of each of 4M segments of ints (CSR offsets,
// 0 to 60 elements each, ~126M in all; empty segments get INT_MIN), one
// thread per segment.
#define CORPUS_NAME "segment_max"
#define CORPUS_SEED 0x59f111f1u
#include "corpus_common.h"

__global__ void segment_max(int *out, const int *offsets, const int *in,
                            int segments) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < segments) {
    int m = -2147483647 - 1;
    for (int j = offsets[s]; j < offsets[s + 1]; ++j)
      m = max(m, in[j]);
    out[s] = m;
  }
}

int main() {
  const int segments = 1 << 22;
  std::vector<int> hoff(segments + 1);
  hoff[0] = 0;
  for (int s = 0; s < segments; ++s)
    hoff[s + 1] = hoff[s] + (int)(urand() % 61);
  const int total = hoff[segments];
  std::vector<int> hin(total), hout(segments);
  for (int j = 0; j < total; ++j)
    hin[j] = (int)(urand() >> 1) - (1 << 30);
  int *off, *in, *out;
  CK(cudaMalloc(&off, (segments + 1) * sizeof(int)));
  CK(cudaMalloc(&in, (size_t)total * sizeof(int)));
  CK(cudaMalloc(&out, segments * sizeof(int)));
  CK(cudaMemcpy(off, hoff.data(), (segments + 1) * sizeof(int),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(in, hin.data(), (size_t)total * sizeof(int),
                cudaMemcpyHostToDevice));
  segment_max<<<(segments + 255) / 256, 256>>>(out, off, in, segments);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, segments * sizeof(int),
                cudaMemcpyDeviceToHost));
  CK(cudaFree(off));
  CK(cudaFree(in));
  CK(cudaFree(out));
  int bad = 0;
  for (int s = 0; s < segments; ++s) {
    int m = -2147483647 - 1;
    for (int j = hoff[s]; j < hoff[s + 1]; ++j)
      m = hin[j] > m ? hin[j] : m;
    bad += hout[s] != m;
  }
  if (bad) {
    std::printf("segment_max: FAILED (%d of %d segments wrong)\n", bad,
                segments);
    return 1;
  }
  std::printf("segment_max: ok\n");
  return 0;
}
