// box9_iter.cu - twenty sweeps of a 3 x 3 box filter on a 4096 x 4096 float
// grid: a counted host loop launches one sweep per iteration into the other
// of two ping-pong buffers and swaps them. Border cells are copied through
// unchanged; every interior cell becomes the mean of its 3 x 3 neighbourhood
// (diagonal neighbours included). The second iterated stencil of issue 14:
// twenty launches move 2.7 GB where the floor is 128 MB.
// The CPU check runs all twenty sweeps on the whole grid in double.
#define CORPUS_NAME "box9_iter"
#define CORPUS_SEED 0x5eed9b0fu
#include "corpus_common.h"
#include <utility>

__global__ void box9(float *dst, const float *src, int width, int height) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < width && row < height) {
    int c = row * width + col;
    if (col > 0 && row > 0 && col < width - 1 && row < height - 1) {
      float up = src[c - width - 1] + src[c - width] + src[c - width + 1];
      float mid = src[c - 1] + src[c] + src[c + 1];
      float down = src[c + width - 1] + src[c + width] + src[c + width + 1];
      dst[c] = (up + mid + down) * (1.0f / 9.0f);
    } else {
      dst[c] = src[c];
    }
  }
}

int main() {
  const int width = 4096, height = 4096, sweeps = 20;
  const size_t total = (size_t)width * height;
  std::vector<float> hin(total), hout(total);
  fill_uniform(hin, 0.0f, 1.0f);
  float *a, *b;
  CK(cudaMalloc(&a, total * sizeof(float)));
  CK(cudaMalloc(&b, total * sizeof(float)));
  CK(cudaMemcpy(a, hin.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(16, 16);
  dim3 grid((width + 15) / 16, (height + 15) / 16);
  for (int s = 0; s < sweeps; ++s) {
    box9<<<grid, block>>>(b, a, width, height);
    CK(cudaGetLastError());
    std::swap(a, b);
  }
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), a, total * sizeof(float), cudaMemcpyDeviceToHost));
  // Reference: the same sweeps in double.
  std::vector<double> p(hin.begin(), hin.end()), q(total);
  for (int s = 0; s < sweeps; ++s) {
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        size_t i = (size_t)y * width + x;
        if (x > 0 && y > 0 && x < width - 1 && y < height - 1) {
          double sum = 0;
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
              sum += p[i + (long)dy * width + dx];
          q[i] = sum / 9.0;
        } else {
          q[i] = p[i];
        }
      }
    std::swap(p, q);
  }
  // Means of values in [0, 1]: each sweep adds a few roundings of 1, so an
  // absolute bound of 2e-5 covers twenty sweeps.
  long long bad = 0;
  for (size_t i = 0; i < total; ++i)
    bad += !(std::fabs(hout[i] - p[i]) <= 2e-5);
  CK(cudaFree(a));
  CK(cudaFree(b));
  if (bad) {
    std::printf("box9_iter: FAILED (%lld of %zu outputs wrong)\n", bad, total);
    return 1;
  }
  std::printf("box9_iter: ok\n");
  return 0;
}
