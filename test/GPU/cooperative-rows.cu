// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=8}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=4,vec=1}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=32,vec=1}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=16}' %s
// cache and scale-grid: cooperative-rows-cache.test (the same kernels).

// Row kernels written one thread per row give the same outputs when groups
// of threads share each row: rows and columns that are not multiples of the
// lanes or of 4 (so most rows are unaligned for the vector path and the
// aligned ones have a tail), empty CSR rows, a sum that starts from a
// per-row bias, and an argmax over data with many ties (the first index
// must win). Float outputs that are sums come with an fp64 reference of the
// original's computation ("<name>.fp64").

#include "gpu_check.h"
#include <cmath>
#include <vector>

__global__ void softmax(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = in[r * cols];
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, in[r * cols + j]);
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j)
      sum += expf(in[r * cols + j] - m);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = expf(in[r * cols + j] - m) / sum;
  }
}

__global__ void layernorm(float *out, const float *in, const float *gamma,
                          const float *beta, int rows, int cols, float eps) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float mean = 0.0f;
  for (int j = 0; j < cols; ++j)
    mean += in[r * cols + j];
  mean /= cols;
  float var = 0.0f;
  for (int j = 0; j < cols; ++j) {
    float d = in[r * cols + j] - mean;
    var += d * d;
  }
  var /= cols;
  float inv = 1.0f / sqrtf(var + eps);
  for (int j = 0; j < cols; ++j)
    out[r * cols + j] = (in[r * cols + j] - mean) * inv * gamma[j] + beta[j];
}

__global__ void gemv_bias(float *y, const float *A, const float *x,
                          const float *bias, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    float sum = bias[i];
    for (int j = 0; j < cols; ++j)
      sum += A[i * cols + j] * x[j];
    y[i] = sum;
  }
}

__global__ void spmv_csr(float *y, const int *row_ptr, const int *col_idx,
                         const float *vals, const float *x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
      sum += vals[j] * x[col_idx[j]];
    y[row] = sum;
  }
}

__global__ void argmax_count(int *idx, float *best, int *above,
                             const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float b = -INFINITY;
    int k = -1;
    int c = 0;
    for (int j = 0; j < cols; ++j) {
      float v = in[r * cols + j];
      if (v > b) {
        b = v;
        k = j;
      }
      if (v > 4.0f)
        c++;
    }
    idx[r] = k;
    best[r] = b;
    above[r] = c;
  }
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int rows = 1003, cols = 515;
  const size_t total = (size_t)rows * cols;
  std::vector<float> In(total), Ties(total), Gamma(cols), Beta(cols), X(cols),
      Bias(rows);
  gpu_check::fill_uniform(In.data(), total, Seed, -4.0f, 4.0f);
  gpu_check::fill_uniform(Gamma.data(), cols, Seed + 1, 0.5f, 1.5f);
  gpu_check::fill_uniform(Beta.data(), cols, Seed + 2, -0.5f, 0.5f);
  gpu_check::fill_uniform(X.data(), cols, Seed + 3, -1.0f, 1.0f);
  gpu_check::fill_uniform(Bias.data(), rows, Seed + 4, -1.0f, 1.0f);
  // Few distinct values: the maximum of a row occurs many times.
  std::vector<int> Small(total);
  gpu_check::fill_uniform(Small.data(), total, Seed + 5, 0, 7);
  for (size_t K = 0; K < total; ++K)
    Ties[K] = (float)Small[K];
  // CSR with 0 to 40 entries per row (some empty).
  std::vector<int> Len(rows), Ptr(rows + 1, 0);
  gpu_check::fill_uniform(Len.data(), rows, Seed + 6, -10, 40);
  for (int R = 0; R < rows; ++R)
    Ptr[R + 1] = Ptr[R] + (Len[R] < 0 ? 0 : Len[R]);
  const int nnz = Ptr[rows];
  std::vector<int> Col(nnz);
  std::vector<float> Val(nnz);
  gpu_check::fill_uniform(Col.data(), nnz, Seed + 7, 0, cols - 1);
  gpu_check::fill_uniform(Val.data(), nnz, Seed + 8, -1.0f, 1.0f);

  float *DIn, *DTies, *DGamma, *DBeta, *DX, *DBias, *DVal, *DSoft, *DNorm,
      *DY, *DSp, *DBest;
  int *DPtr, *DCol, *DIdx, *DAbove;
  GPU_CHECK(cudaMalloc(&DIn, total * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DTies, total * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DGamma, cols * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DBeta, cols * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DX, cols * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DBias, rows * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DVal, (nnz + 1) * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DSoft, total * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DNorm, total * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DY, rows * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DSp, rows * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DBest, rows * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DPtr, (rows + 1) * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DCol, (nnz + 1) * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DIdx, rows * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DAbove, rows * sizeof(int)));
  GPU_CHECK(cudaMemcpy(DIn, In.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DTies, Ties.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DGamma, Gamma.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DBeta, Beta.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DX, X.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DBias, Bias.data(), rows * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DVal, Val.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DPtr, Ptr.data(), (rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DCol, Col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));

  softmax<<<(rows + 127) / 128, 128>>>(DSoft, DIn, rows, cols);
  gpu_check::check_launch("softmax");
  layernorm<<<(rows + 255) / 256, 256>>>(DNorm, DIn, DGamma, DBeta, rows, cols,
                                         1e-5f);
  gpu_check::check_launch("layernorm");
  gemv_bias<<<(rows + 63) / 64, 64>>>(DY, DIn, DX, DBias, rows, cols);
  gpu_check::check_launch("gemv_bias");
  spmv_csr<<<(rows + 255) / 256, 256>>>(DSp, DPtr, DCol, DVal, DX, rows);
  gpu_check::check_launch("spmv_csr");
  argmax_count<<<(rows + 127) / 128, 128>>>(DIdx, DBest, DAbove, DTies, rows,
                                            cols);
  gpu_check::check_launch("argmax_count");

  std::vector<float> Soft(total), Norm(total), Y(rows), Sp(rows), Best(rows);
  std::vector<int> Idx(rows), Above(rows);
  GPU_CHECK(cudaMemcpy(Soft.data(), DSoft, total * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Norm.data(), DNorm, total * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Y.data(), DY, rows * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Sp.data(), DSp, rows * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Best.data(), DBest, rows * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Idx.data(), DIdx, rows * sizeof(int), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Above.data(), DAbove, rows * sizeof(int), cudaMemcpyDeviceToHost));

  // fp64 references of the original computations.
  std::vector<double> RSoft(total), RNorm(total), RY(rows), RSp(rows);
  for (int R = 0; R < rows; ++R) {
    const float *Row = &In[(size_t)R * cols];
    double M = Row[0], Sum = 0, Mean = 0, Var = 0;
    for (int J = 1; J < cols; ++J)
      M = std::fmax(M, (double)Row[J]);
    for (int J = 0; J < cols; ++J)
      Sum += std::exp(Row[J] - M);
    for (int J = 0; J < cols; ++J)
      RSoft[(size_t)R * cols + J] = std::exp(Row[J] - M) / Sum;
    for (int J = 0; J < cols; ++J)
      Mean += Row[J];
    Mean /= cols;
    for (int J = 0; J < cols; ++J)
      Var += (Row[J] - Mean) * (Row[J] - Mean);
    Var /= cols;
    double Inv = 1.0 / std::sqrt(Var + 1e-5);
    for (int J = 0; J < cols; ++J)
      RNorm[(size_t)R * cols + J] = (Row[J] - Mean) * Inv * Gamma[J] + Beta[J];
    double G = Bias[R];
    for (int J = 0; J < cols; ++J)
      G += (double)Row[J] * X[J];
    RY[R] = G;
    double S = 0;
    for (int J = Ptr[R]; J < Ptr[R + 1]; ++J)
      S += (double)Val[J] * X[Col[J]];
    RSp[R] = S;
  }

  gpu_check::dump(argc, argv, "softmax", Soft.data(), total);
  gpu_check::dump(argc, argv, "softmax.fp64", RSoft.data(), total);
  gpu_check::dump(argc, argv, "layernorm", Norm.data(), total);
  gpu_check::dump(argc, argv, "layernorm.fp64", RNorm.data(), total);
  gpu_check::dump(argc, argv, "gemv", Y.data(), rows);
  gpu_check::dump(argc, argv, "gemv.fp64", RY.data(), rows);
  gpu_check::dump(argc, argv, "spmv", Sp.data(), rows);
  gpu_check::dump(argc, argv, "spmv.fp64", RSp.data(), rows);
  gpu_check::dump(argc, argv, "argmax", Idx.data(), rows);
  gpu_check::dump(argc, argv, "best", Best.data(), rows);
  gpu_check::dump(argc, argv, "above", Above.data(), rows);
  return 0;
}
