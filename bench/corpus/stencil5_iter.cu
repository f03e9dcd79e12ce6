// stencil5_iter.cu - ten Jacobi sweeps of the 5-point stencil on an 8192 x
// 8192 float grid: a counted host loop launches one sweep per iteration into
// the other of two ping-pong buffers and swaps them. Each sweep copies the
// border cells through unchanged (the boundary stays fixed) and sets every
// interior cell to 0.5 * itself + 0.125 * its four neighbours. The
// time-loop blocking case of issue 14: the ten launches move 5.4 GB (each
// 256 MB grid read and written once per sweep) where the floor is 512 MB
// (the input grid read once, the final grid written once).
// The CPU check runs all ten sweeps on the whole grid in double (a few
// seconds).
#define CORPUS_NAME "stencil5_iter"
#define CORPUS_SEED 0xb00327c8u
#include "corpus_common.h"
#include <utility>

__global__ void jacobi(float *next, const float *cur, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) {
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
      next[i] = cur[i];
    else
      next[i] = 0.5f * cur[i] +
                0.125f * (cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx]);
  }
}

int main() {
  const int nx = 8192, ny = 8192;
  const size_t total = (size_t)nx * ny;
  std::vector<float> hin(total), hout(total);
  fill_uniform(hin, -1.0f, 1.0f);
  float *cur, *next;
  CK(cudaMalloc(&cur, total * sizeof(float)));
  CK(cudaMalloc(&next, total * sizeof(float)));
  CK(cudaMemcpy(cur, hin.data(), total * sizeof(float),
                cudaMemcpyHostToDevice));
  dim3 block(32, 8);
  dim3 grid((nx + 31) / 32, (ny + 7) / 8);
  for (int t = 0; t < 10; ++t) {
    jacobi<<<grid, block>>>(next, cur, nx, ny);
    CK(cudaGetLastError());
    std::swap(cur, next);
  }
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), cur, total * sizeof(float),
                cudaMemcpyDeviceToHost));
  // Reference: the same ten sweeps in double.
  std::vector<double> a(hin.begin(), hin.end()), b(total);
  for (int t = 0; t < 10; ++t) {
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        size_t i = (size_t)y * nx + x;
        if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
          b[i] = a[i];
        else
          b[i] = 0.5 * a[i] + 0.125 * (a[i - 1] + a[i + 1] + a[i - nx] +
                                       a[i + nx]);
      }
    std::swap(a, b);
  }
  // Every sweep is a convex combination of values in [-1, 1], so the fp32
  // result is within a few roundings of 1 per sweep of the exact one: an
  // absolute bound of 1e-5 covers ten sweeps (~2.4e-6 at worst).
  long long bad = 0;
  for (size_t i = 0; i < total; ++i)
    bad += !(std::fabs(hout[i] - a[i]) <= 1e-5);
  CK(cudaFree(cur));
  CK(cudaFree(next));
  if (bad) {
    std::printf("stencil5_iter: FAILED (%lld of %zu outputs wrong)\n", bad,
                total);
    return 1;
  }
  std::printf("stencil5_iter: ok\n");
  return 0;
}
