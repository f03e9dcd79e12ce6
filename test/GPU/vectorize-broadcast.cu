// REQUIRES: cuda-device
// RUN: %gpu_equiv --passes='vectorize{width=4}' %s
// RUN: %gpu_equiv --passes='vectorize{width=2}' %s
// RUN: %gpu_equiv --passes='vectorize{width=8}' %s
// RUN: %gpu_equiv --passes='restrict-const,vectorize{width=4}' --kernel=bias_plain %s
// Planted bug: the bias vector of the row instead of the column.
// RUN: %gpu_equiv --plant='[i % (cols / 4)]=>[i / (cols / 4) % (cols / 4)]' --passes='vectorize{width=4}' %s

// Broadcast operands: a per-column bias `bias[i % cols]` read as one vector
// per thread and a per-row scale `scale[i / cols]` read once for all lanes
// give the same outputs as one element per thread, for fp32 and fp16, when
// cols is a multiple of the width (the vector path), when it is not (1002:
// every thread takes the scalar path), when the bias is not aligned to the
// vector size, and when the last row is partial (the tail).

#include "gpu_check.h"
#include <vector>

__global__ void bias_f32(float *__restrict__ out, const float *__restrict__ in,
                         const float *__restrict__ bias, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + bias[i % cols];
}

__global__ void row_scale(float *out, const float *in,
                          const float *__restrict__ scale, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * scale[i / cols];
}

__global__ void bias_f16(__half *__restrict__ out,
                         const __half *__restrict__ in,
                         const __half *__restrict__ bias, int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __hadd(in[i], bias[i % cols]);
}

// No __restrict__: only after restrict-const.
__global__ void bias_plain(float *out, const float *in, const float *bias,
                           int cols, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] - bias[i % cols];
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int Rows = 777, MaxCols = 1002;
  const int Max = Rows * MaxCols;
  std::vector<float> In(Max), Bias(MaxCols + 1), Scale(Rows), Out(Max);
  std::vector<__half> HIn(Max), HBias(MaxCols), HOut(Max);
  gpu_check::fill_uniform(In.data(), Max, Seed, -4.0f, 4.0f);
  gpu_check::fill_uniform(Bias.data(), MaxCols + 1, Seed + 7, -1.0f, 1.0f);
  gpu_check::fill_uniform(Scale.data(), Rows, Seed + 11, 0.5f, 2.0f);
  gpu_check::fill_uniform(HIn.data(), Max, Seed + 13, -4.0f, 4.0f);
  gpu_check::fill_uniform(HBias.data(), MaxCols, Seed + 17, -1.0f, 1.0f);
  float *DIn, *DBias, *DScale, *DOut;
  __half *DHIn, *DHBias, *DHOut;
  GPU_CHECK(cudaMalloc(&DIn, Max * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DBias, (MaxCols + 1) * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DScale, Rows * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DOut, Max * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DHIn, Max * sizeof(__half)));
  GPU_CHECK(cudaMalloc(&DHBias, MaxCols * sizeof(__half)));
  GPU_CHECK(cudaMalloc(&DHOut, Max * sizeof(__half)));
  GPU_CHECK(cudaMemcpy(DIn, In.data(), Max * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DBias, Bias.data(), (MaxCols + 1) * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DScale, Scale.data(), Rows * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DHIn, HIn.data(), Max * sizeof(__half), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DHBias, HBias.data(), MaxCols * sizeof(__half), cudaMemcpyHostToDevice));

  // cols = 1000 (a multiple of 2, 4 and 8) with a partial last row, then
  // cols = 1002 (not a multiple of 4 or 8).
  const int ColsList[2] = {1000, 1002};
  for (int C = 0; C < 2; ++C) {
    const int cols = ColsList[C];
    const int n = Rows * cols - 5;
    char Name[64];

    GPU_CHECK(cudaMemset(DOut, 0, Max * sizeof(float)));
    bias_f32<<<(n + 255) / 256, 256>>>(DOut, DIn, DBias, cols, n);
    gpu_check::check_launch("bias_f32");
    GPU_CHECK(cudaMemcpy(Out.data(), DOut, Max * sizeof(float), cudaMemcpyDeviceToHost));
    std::snprintf(Name, sizeof Name, "bias_f32_%d", cols);
    gpu_check::dump(argc, argv, Name, Out.data(), Max);

    // The bias one element off the vector alignment: the scalar path.
    GPU_CHECK(cudaMemset(DOut, 0, Max * sizeof(float)));
    bias_f32<<<(n + 255) / 256, 256>>>(DOut, DIn, DBias + 1, cols, n);
    gpu_check::check_launch("bias_f32 unaligned");
    GPU_CHECK(cudaMemcpy(Out.data(), DOut, Max * sizeof(float), cudaMemcpyDeviceToHost));
    std::snprintf(Name, sizeof Name, "bias_f32_unaligned_%d", cols);
    gpu_check::dump(argc, argv, Name, Out.data(), Max);

    GPU_CHECK(cudaMemset(DOut, 0, Max * sizeof(float)));
    row_scale<<<(n + 255) / 256, 256>>>(DOut, DIn, DScale, cols, n);
    gpu_check::check_launch("row_scale");
    GPU_CHECK(cudaMemcpy(Out.data(), DOut, Max * sizeof(float), cudaMemcpyDeviceToHost));
    std::snprintf(Name, sizeof Name, "row_scale_%d", cols);
    gpu_check::dump(argc, argv, Name, Out.data(), Max);

    GPU_CHECK(cudaMemset(DHOut, 0, Max * sizeof(__half)));
    bias_f16<<<(n + 255) / 256, 256>>>(DHOut, DHIn, DHBias, cols, n);
    gpu_check::check_launch("bias_f16");
    GPU_CHECK(cudaMemcpy(HOut.data(), DHOut, Max * sizeof(__half), cudaMemcpyDeviceToHost));
    std::snprintf(Name, sizeof Name, "bias_f16_%d", cols);
    gpu_check::dump(argc, argv, Name, HOut.data(), Max);

    GPU_CHECK(cudaMemset(DOut, 0, Max * sizeof(float)));
    bias_plain<<<(n + 255) / 256, 256>>>(DOut, DIn, DBias, cols, n);
    gpu_check::check_launch("bias_plain");
    GPU_CHECK(cudaMemcpy(Out.data(), DOut, Max * sizeof(float), cudaMemcpyDeviceToHost));
    std::snprintf(Name, sizeof Name, "bias_plain_%d", cols);
    gpu_check::dump(argc, argv, Name, Out.data(), Max);
  }

  cudaFree(DIn);
  cudaFree(DBias);
  cudaFree(DScale);
  cudaFree(DOut);
  cudaFree(DHIn);
  cudaFree(DHBias);
  cudaFree(DHOut);
  return 0;
}
