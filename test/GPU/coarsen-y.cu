// REQUIRES: cuda-device
// RUN: %gpu_equiv --passes='coarsen{factor=4,axis=y}' %s
// RUN: %gpu_equiv --passes='coarsen{factor=2,axis=y}' %s
// RUN: %gpu_equiv --passes='restrict-const,coarsen{factor=16,axis=y}' %s
// Planted bug: the guard-free loop computes rows y0, y0, y0+1, y0+1 instead
// of four consecutive rows.
// RUN: %gpu_equiv --plant='y0 + c;=>y0 + c / 2;' --passes='coarsen{factor=4,axis=y}' %s

// Row-coarsened kernels compute the same outputs for heights that are not a
// multiple of block.y * factor (so some threads take the guarded loop): a
// 5-point stencil, pooling over planes in blockIdx.z, and an in-place update
// with an early-return guard and a return in the work.

#include "gpu_check.h"
#include <vector>

__global__ void stencil5(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
      out[i] = in[i];
    else
      out[i] = 0.5f * in[i] +
               0.125f * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
  }
}

__global__ void maxpool(float *out, const float *in, int planes, int h, int w,
                        int oh, int ow) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int p = blockIdx.z;
  if (ox < ow && oy < oh && p < planes) {
    float m = -1e30f;
    for (int ky = 0; ky < 3; ++ky)
      for (int kx = 0; kx < 3; ++kx) {
        int iy = 2 * oy - 1 + ky, ix = 2 * ox - 1 + kx;
        if (iy >= 0 && iy < h && ix >= 0 && ix < w)
          m = fmaxf(m, in[(p * h + iy) * w + ix]);
      }
    out[(p * oh + oy) * ow + ox] = m;
  }
}

__global__ void scaleRows(int *a, int cols, unsigned rows) {
  unsigned row = threadIdx.y + blockDim.y * blockIdx.y;
  int col = threadIdx.x + blockIdx.x * blockDim.x;
  if (col >= cols || row >= rows)
    return;
  int at = row * cols + col;
  if (a[at] < 0)
    return;
  a[at] = a[at] * (int)(row % 7 + 1) % 1000;
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int w = 517, h = 389;
  const int planes = 3, oh = (h - 1) / 2 + 1, ow = (w - 1) / 2 + 1;
  std::vector<float> In((size_t)planes * w * h), Out(w * h),
      Pool((size_t)planes * oh * ow);
  std::vector<int> A(w * h);
  gpu_check::fill_uniform(In.data(), In.size(), Seed, -2.0f, 2.0f);
  gpu_check::fill_uniform(A.data(), A.size(), Seed + 1, -500, 500);
  float *DIn, *DOut, *DPool;
  int *DA;
  GPU_CHECK(cudaMalloc(&DIn, In.size() * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DOut, Out.size() * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DPool, Pool.size() * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DA, A.size() * sizeof(int)));
  GPU_CHECK(cudaMemcpy(DIn, In.data(), In.size() * sizeof(float),
                       cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemset(DOut, 0, Out.size() * sizeof(float)));
  GPU_CHECK(cudaMemset(DPool, 0, Pool.size() * sizeof(float)));
  GPU_CHECK(cudaMemcpy(DA, A.data(), A.size() * sizeof(int),
                       cudaMemcpyHostToDevice));

  dim3 block(32, 8);
  dim3 grid((w + 31) / 32, (h + 7) / 8);
  stencil5<<<grid, block>>>(DOut, DIn, w, h);
  gpu_check::check_launch("stencil5");
  dim3 poolGrid((ow + 15) / 16, (oh + 15) / 16, planes);
  maxpool<<<poolGrid, dim3(16, 16)>>>(DPool, DIn, planes, h, w, oh, ow);
  gpu_check::check_launch("maxpool");
  const unsigned rows = h - 5;
  scaleRows<<<dim3((w + 63) / 64, (rows + 3) / 4), dim3(64, 4)>>>(DA, w, rows);
  gpu_check::check_launch("scaleRows");

  GPU_CHECK(cudaMemcpy(Out.data(), DOut, Out.size() * sizeof(float),
                       cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Pool.data(), DPool, Pool.size() * sizeof(float),
                       cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(A.data(), DA, A.size() * sizeof(int),
                       cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, "out", Out.data(), Out.size());
  gpu_check::dump(argc, argv, "pool", Pool.data(), Pool.size());
  gpu_check::dump(argc, argv, "a", A.data(), A.size());
  cudaFree(DIn);
  cudaFree(DOut);
  cudaFree(DPool);
  cudaFree(DA);
  return 0;
}
