// REQUIRES: cuda-device
// A transpose moves data only: --fp-model=strict compares every output bit for
// bit.
// RUN: %gpu_equiv --fp-model=strict --passes='tile-transpose' %s
// RUN: %gpu_equiv --fp-model=strict --passes='tile-transpose{tile=16,pad=0}' %s
// RUN: %gpu_equiv --fp-model=strict --passes='tile-transpose{tile=64,pad=1,rows=16}' %s
// RUN: %gpu_equiv --fp-model=strict --passes='tile-transpose{tile=32,pad=0,rows=32},launch-bounds' %s

// Staged transposes store exactly what the naive kernels store (bitwise,
// --rtol 0; ints and halves are compared exactly), for sizes that are not
// multiples of any tile (partial tiles on both edges), a size smaller than
// one tile, both directions (strided store / strided load), float, double,
// int and __half elements, and a conversion in the per-element work.

#include "gpu_check.h"
#include <cuda_fp16.h>
#include <vector>

// in is h rows of w; out is w rows of h.
__global__ void transposeF(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

__global__ void transposeD(double *out, const double *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

// Coalesced store, strided load; early-return guard, 64-bit indices.
__global__ void gatherI(int *out, const int *in, size_t rows, size_t cols) {
  size_t c = blockIdx.x * blockDim.x + threadIdx.x;
  size_t r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c >= cols || r >= rows)
    return;
  out[r * cols + c] = in[c * rows + r];
}

// float -> half with a scale; the rounding happens in the same expression.
__global__ void scaleToHalf(__half *out, const float *in, float s, int w,
                            int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float v = in[y * w + x] * s;
    out[x * h + y] = __float2half(v);
  }
}

__global__ void transposeH(__half *out, const __half *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

// Row and column declared y first.
__global__ void transposeRC(double *out, const double *in, int rows,
                            int cols) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows && col < cols)
    out[col * rows + row] = in[row * cols + col];
}

template <typename T> static T *toDevice(const std::vector<T> &H) {
  T *D;
  GPU_CHECK(cudaMalloc(&D, H.size() * sizeof(T)));
  GPU_CHECK(cudaMemcpy(D, H.data(), H.size() * sizeof(T),
                       cudaMemcpyHostToDevice));
  return D;
}

template <typename T>
static void dumpDevice(int argc, char **argv, const char *Name, const T *D,
                       size_t N) {
  std::vector<T> H(N);
  GPU_CHECK(cudaMemcpy(H.data(), D, N * sizeof(T), cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, Name, H.data(), N);
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int w = 1000, h = 777;      // no tile divides either
  const int sw = 5, sh = 3;         // smaller than every tile
  const size_t rows = 333, cols = 1030;
  const size_t N = (size_t)w * h;

  std::vector<float> F(N);
  std::vector<double> Dv(N);
  std::vector<int> I(rows * cols);
  std::vector<__half> Hv(N);
  gpu_check::fill_uniform(F.data(), N, Seed, -100.0f, 100.0f);
  gpu_check::fill_uniform(Dv.data(), N, Seed + 1, -1.0, 1.0);
  gpu_check::fill_uniform(I.data(), I.size(), Seed + 2, -1000000, 1000000);
  gpu_check::fill_uniform(Hv.data(), N, Seed + 3, -8.0f, 8.0f);
  float *dF = toDevice(F), *dFo = toDevice(F), *dFs = toDevice(F);
  double *dD = toDevice(Dv), *dDo = toDevice(Dv), *dDr = toDevice(Dv);
  int *dI = toDevice(I), *dIo = toDevice(I);
  __half *dH = toDevice(Hv), *dHo = toDevice(Hv), *dHs = toDevice(Hv);

  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  transposeF<<<grid, block>>>(dFo, dF, w, h);
  gpu_check::check_launch("transposeF");
  transposeF<<<dim3((sw + 7) / 8, (sh + 7) / 8), dim3(8, 8)>>>(dFs, dF, sw,
                                                                sh);
  gpu_check::check_launch("transposeF small");
  transposeD<<<dim3((w + 31) / 32, (h + 7) / 8), dim3(32, 8)>>>(dDo, dD, w,
                                                                h);
  gpu_check::check_launch("transposeD");
  transposeRC<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(dDr, dD,
                                                                     h, w);
  gpu_check::check_launch("transposeRC");
  gatherI<<<dim3((cols + 31) / 32, (rows + 31) / 32), dim3(32, 32)>>>(
      dIo, dI, rows, cols);
  gpu_check::check_launch("gatherI");
  scaleToHalf<<<grid, block>>>(dHs, dF, 0.03125f, w, h);
  gpu_check::check_launch("scaleToHalf");
  transposeH<<<grid, block>>>(dHo, dH, w, h);
  gpu_check::check_launch("transposeH");

  dumpDevice(argc, argv, "transposeF", dFo, N);
  dumpDevice(argc, argv, "transposeF.small", dFs, N);
  dumpDevice(argc, argv, "transposeD", dDo, N);
  dumpDevice(argc, argv, "transposeRC", dDr, N);
  dumpDevice(argc, argv, "gatherI", dIo, I.size());
  dumpDevice(argc, argv, "scaleToHalf", dHs, N);
  dumpDevice(argc, argv, "transposeH", dHo, N);
  for (void *P : {(void *)dF, (void *)dFo, (void *)dFs, (void *)dD,
                  (void *)dDo, (void *)dDr, (void *)dI, (void *)dIo, (void *)dH,
                  (void *)dHo, (void *)dHs})
    cudaFree(P);
  return 0;
}
