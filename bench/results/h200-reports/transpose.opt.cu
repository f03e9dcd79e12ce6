// transpose.cu - naive out-of-place transpose of a 16384 x 16384 float
// matrix: reads are coalesced, writes are strided.
#define CORPUS_NAME "transpose"
#define CORPUS_SEED 0x9b05688cu
#include "corpus_common.h"

// in is h rows of w; out is w rows of h.
__global__ void transpose(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

int main() {
  const int w = 16384, h = 12288;
  const size_t total = (size_t)w * h;
  std::vector<float> hin(total), hout(total);
  fill_uniform(hin, -100.0f, 100.0f);
  float *in, *out;
  CK(cudaMalloc(&in, total * sizeof(float)));
  CK(cudaMalloc(&out, total * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  transpose<<<grid, block>>>(out, in, w, h);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, total * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      bad += hout[(size_t)x * h + y] != hin[(size_t)y * w + x];
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad) {
    std::printf("transpose: FAILED (%lld of %zu outputs wrong)\n", bad, total);
    return 1;
  }
  std::printf("transpose: ok\n");
  return 0;
}
