// REQUIRES: cuda-device
// RUN: %gpu_equiv --passes='unroll{factor=4}' %s
// RUN: %gpu_equiv --passes='unroll{factor=32,loop=0}' --kernel=matvec %s
// RUN: %gpu_equiv --passes='unroll{factor=2}' --kernel=window_sum %s

// unroll only adds a hint: every output must be the same as before, also
// when the trip count is not a multiple of the factor (n = 1000, cols = 37).

#include "gpu_check.h"

__global__ void matvec(const float *m, const float *v, float *out, int rows,
                       int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float acc = 0.0f;
  for (int col = 0; col < cols; ++col)
    acc += m[row * cols + col] * v[col];
  out[row] = acc;
}

// Counts down, steps by 3, and has an inner loop with a constant bound.
__global__ void window_sum(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float acc = 0.0f;
  for (int k = 6; k >= 0; k -= 3) {
    int j = i + k < n ? i + k : n - 1;
    for (int r = 0; r < 5; ++r)
      acc += in[j] * (r + 1);
  }
  out[i] = acc;
}

__global__ void histogram(const float *in, int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  for (unsigned b = 0; b != 8; b++)
    if (in[i] >= b * 0.125f && in[i] < (b + 1) * 0.125f)
      atomicAdd(&bins[b], 1);
}

int main(int argc, char **argv) {
  const unsigned Seed = gpu_check::seed(argc, argv);
  const int Rows = 1000, Cols = 37, N = 1000;
  float *hm = new float[Rows * Cols], *hv = new float[Cols];
  float *hin = new float[N], *hout = new float[Rows], *hwin = new float[N];
  int hbins[8];
  gpu_check::fill_uniform(hm, Rows * Cols, Seed, -1.0f, 1.0f);
  gpu_check::fill_uniform(hv, Cols, Seed + 1, -1.0f, 1.0f);
  gpu_check::fill_uniform(hin, N, Seed + 2, 0.0f, 1.0f);

  float *m, *v, *in, *out, *win;
  int *bins;
  GPU_CHECK(cudaMalloc(&m, Rows * Cols * sizeof(float)));
  GPU_CHECK(cudaMalloc(&v, Cols * sizeof(float)));
  GPU_CHECK(cudaMalloc(&in, N * sizeof(float)));
  GPU_CHECK(cudaMalloc(&out, Rows * sizeof(float)));
  GPU_CHECK(cudaMalloc(&win, N * sizeof(float)));
  GPU_CHECK(cudaMalloc(&bins, 8 * sizeof(int)));
  GPU_CHECK(cudaMemcpy(m, hm, Rows * Cols * sizeof(float),
                       cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(v, hv, Cols * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(in, hin, N * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemset(bins, 0, 8 * sizeof(int)));

  matvec<<<(Rows + 127) / 128, 128>>>(m, v, out, Rows, Cols);
  gpu_check::check_launch("matvec");
  window_sum<<<(N + 127) / 128, 128>>>(in, win, N);
  gpu_check::check_launch("window_sum");
  histogram<<<(N + 127) / 128, 128>>>(in, bins, N);
  gpu_check::check_launch("histogram");

  GPU_CHECK(cudaMemcpy(hout, out, Rows * sizeof(float),
                       cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(hwin, win, N * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(hbins, bins, 8 * sizeof(int), cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, "matvec", hout, Rows);
  gpu_check::dump(argc, argv, "window_sum", hwin, N);
  gpu_check::dump(argc, argv, "histogram", hbins, 8);
  return 0;
}
