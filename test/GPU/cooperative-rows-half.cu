// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=8}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=32,cache=32,scale-grid=1}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=16,cache=16}' %s
// vec=1: 8 columns per 16-byte vector (rows of 1400 bytes: every other row
// aligned, the others take the scalar loop).
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=32,vec=1,scale-grid=1}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=8,vec=1,cache=32}' %s
// vec=1 with cache: rows of 700 columns are not a whole number of 8-column
// vectors, so the cached form is not taken (cooperative-rows-cache-vec.cu
// tests it).
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=32,vec=1,cache=32,scale-grid=1}' %s
// Planted bug: the cached sum of exponentials without the row's last column.
// The cached rows are held as floats and the exponentials replace them.
// RUN: %gpu_equiv --fp-model=reassoc --plant='sum += (inRow[slot] = expf(inRow[slot] - m));=>inRow[slot] = expf(inRow[slot] - m); sum += j + 1 < cols ? inRow[slot] : 0.0f;' --passes='cooperative-rows{lanes=32,cache=32}' %s

// Row kernels over __half and __nv_bfloat16 written one thread per row
// (CUDA's conversion intrinsics, float accumulators) give the same outputs
// when groups of threads share each row, cached in registers (rows of 700
// columns fit 32 x 32 registers, not 16 x 16) or not. The 16-bit outputs
// are compared as floats against fp64 references of the original.

#include "gpu_check.h"
#include <cuda_bf16.h>
#include <cmath>
#include <vector>

__global__ void softmax_fp16(__half *out, const __half *in, int rows,
                             int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = __half2float(in[r * cols]);
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, __half2float(in[r * cols + j]));
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j)
      sum += expf(__half2float(in[r * cols + j]) - m);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = __float2half(expf(__half2float(in[r * cols + j]) - m) / sum);
  }
}

__global__ void rmsnorm_bf16(__nv_bfloat16 *out, const __nv_bfloat16 *in,
                             const __nv_bfloat16 *weight, int rows, int cols,
                             float eps) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float ss = 0.0f;
    for (int j = 0; j < cols; ++j) {
      float v = __bfloat162float(in[r * cols + j]);
      ss += v * v;
    }
    float inv = rsqrtf(ss / cols + eps);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = __float2bfloat16(__bfloat162float(in[r * cols + j]) *
                                           inv * __bfloat162float(weight[j]));
  }
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int rows = 999, cols = 700;
  const size_t total = (size_t)rows * cols;
  std::vector<float> InF(total), WF(cols);
  gpu_check::fill_uniform(InF.data(), total, Seed, -4.0f, 4.0f);
  gpu_check::fill_uniform(WF.data(), cols, Seed + 1, 0.5f, 1.5f);
  std::vector<__half> InH(total);
  std::vector<__nv_bfloat16> InB(total), WB(cols);
  for (size_t K = 0; K < total; ++K) {
    InH[K] = __float2half(InF[K]);
    InB[K] = __float2bfloat16(InF[K]);
  }
  for (int J = 0; J < cols; ++J)
    WB[J] = __float2bfloat16(WF[J]);

  __half *DInH, *DOutH;
  __nv_bfloat16 *DInB, *DOutB, *DW;
  GPU_CHECK(cudaMalloc(&DInH, total * sizeof(__half)));
  GPU_CHECK(cudaMalloc(&DOutH, total * sizeof(__half)));
  GPU_CHECK(cudaMalloc(&DInB, total * sizeof(__nv_bfloat16)));
  GPU_CHECK(cudaMalloc(&DOutB, total * sizeof(__nv_bfloat16)));
  GPU_CHECK(cudaMalloc(&DW, cols * sizeof(__nv_bfloat16)));
  GPU_CHECK(cudaMemcpy(DInH, InH.data(), total * sizeof(__half), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DInB, InB.data(), total * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DW, WB.data(), cols * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));

  softmax_fp16<<<(rows + 255) / 256, 256>>>(DOutH, DInH, rows, cols);
  gpu_check::check_launch("softmax_fp16");
  rmsnorm_bf16<<<(rows + 127) / 128, 128>>>(DOutB, DInB, DW, rows, cols, 1e-6f);
  gpu_check::check_launch("rmsnorm_bf16");

  std::vector<__half> OutH(total);
  std::vector<__nv_bfloat16> OutB(total);
  GPU_CHECK(cudaMemcpy(OutH.data(), DOutH, total * sizeof(__half), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(OutB.data(), DOutB, total * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  std::vector<float> Soft(total), Norm(total);
  for (size_t K = 0; K < total; ++K) {
    Soft[K] = __half2float(OutH[K]);
    Norm[K] = __bfloat162float(OutB[K]);
  }

  // fp64 references of the original computations on the 16-bit inputs.
  std::vector<double> RSoft(total), RNorm(total);
  for (int R = 0; R < rows; ++R) {
    double M = __half2float(InH[(size_t)R * cols]), Sum = 0, SS = 0;
    for (int J = 1; J < cols; ++J)
      M = std::fmax(M, (double)__half2float(InH[(size_t)R * cols + J]));
    for (int J = 0; J < cols; ++J)
      Sum += std::exp(__half2float(InH[(size_t)R * cols + J]) - M);
    for (int J = 0; J < cols; ++J)
      RSoft[(size_t)R * cols + J] =
          std::exp(__half2float(InH[(size_t)R * cols + J]) - M) / Sum;
    for (int J = 0; J < cols; ++J) {
      double V = __bfloat162float(InB[(size_t)R * cols + J]);
      SS += V * V;
    }
    double Inv = 1.0 / std::sqrt(SS / cols + 1e-6);
    for (int J = 0; J < cols; ++J)
      RNorm[(size_t)R * cols + J] = __bfloat162float(InB[(size_t)R * cols + J]) *
                                    Inv * __bfloat162float(WB[J]);
  }
  gpu_check::dump(argc, argv, "softmax", Soft.data(), total);
  gpu_check::dump(argc, argv, "softmax.fp64", RSoft.data(), total);
  gpu_check::dump(argc, argv, "rmsnorm", Norm.data(), total);
  gpu_check::dump(argc, argv, "rmsnorm.fp64", RNorm.data(), total);
  return 0;
}
