// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=reassoc --passes='split-reduce{ways=16,block-x=32}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='split-reduce{ways=32,block-x=32}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='split-reduce{ways=8,block-x=64}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='split-reduce{ways=4,block-x=64}' %s
// Integer reductions are exact in any order: under strict only colcount is
// rewritten (the float kernels are refused), and it must match bit for bit.
// RUN: %gpu_equiv --fp-model=strict --passes='split-reduce{ways=16,block-x=64}' %s
// Planted bugs the comparison must catch: the combine drops the last
// chunk (gemv_t is the first kernel, so its 'part < rChunks' is the first);
// each chunk ends one iteration early; the argmax's later chunks win ties.
// RUN: %gpu_equiv --fp-model=reassoc --plant='part < rChunks=>part < rChunks - 1' --passes='split-reduce{ways=16,block-x=32}' %s
// RUN: %gpu_equiv --fp-model=reassoc --plant='rLo + rChunk < rEnd ? rLo + rChunk : rEnd=>rLo + rChunk - 1 < rEnd ? rLo + rChunk - 1 : rEnd' --passes='split-reduce{ways=16,block-x=32}' %s
// RUN: %gpu_equiv --fp-model=reassoc --plant='bParts[part][threadIdx.x] > b=>bParts[part][threadIdx.x] >= b' --passes='split-reduce{ways=8,block-x=32}' %s

// Column reductions written one thread per column give the same outputs
// when the thread rows of a block split each column's loop into chunks:
// rows that are not a multiple of the ways, columns that are not a multiple
// of block-x (so some threads of the last block are out of range and must
// still reach the barrier), columns whose loop is short (fewer iterations
// than ways) or empty (the result must be the initial value exactly), a
// sum that starts from a per-column bias, and an argmax over data with many
// ties (the first row must win). Float sums come with an fp64 reference of
// the original's computation ("<name>.fp64").

#include "gpu_check.h"
#include <cmath>
#include <vector>

__global__ void gemv_t(float *y, const float *A, const float *x, int rows,
                       int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r)
      sum += A[r * cols + c] * x[r];
    y[c] = sum;
  }
}

__global__ void colmax(float *out, const float *in, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols)
    return;
  float m = in[c];
  for (int r = 1; r < rows; ++r)
    m = fmaxf(m, in[r * cols + c]);
  out[c] = m;
}

__global__ void colargmax(int *idx, float *best, const float *in, int rows,
                          int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float b = -INFINITY;
    int k = -1;
    for (int r = 0; r < rows; ++r) {
      float v = in[r * cols + c];
      if (v > b) {
        b = v;
        k = r;
      }
    }
    idx[c] = k;
    best[c] = b;
  }
}

// A sum from a per-column bias over the rows from a per-column start (some
// columns have an empty or short loop).
__global__ void colsum(float *out, const float *in, const float *bias,
                       const int *start, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = bias[c];
    for (int r = start[c]; r < rows; ++r)
      s += in[r * cols + c];
    out[c] = s;
  }
}

// Integer count and sum of the non-negative entries from a per-column start.
__global__ void colcount(int *count, int *total, const int *in,
                         const int *start, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    int n = 0;
    int s = 3;
    for (int r = start[c]; r < rows; ++r) {
      if (in[r * cols + c] < 0)
        continue;
      ++n;
      s += in[r * cols + c];
    }
    count[c] = n;
    total[c] = s;
  }
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int rows = 1003, cols = 777;
  const size_t total = (size_t)rows * cols;
  std::vector<float> In(total), Ties(total), X(rows), Bias(cols);
  std::vector<int> IntIn(total), Start(cols), Small(total);
  gpu_check::fill_uniform(In.data(), total, Seed, -4.0f, 4.0f);
  gpu_check::fill_uniform(X.data(), rows, Seed + 1, -1.0f, 1.0f);
  gpu_check::fill_uniform(Bias.data(), cols, Seed + 2, -1.0f, 1.0f);
  gpu_check::fill_uniform(IntIn.data(), total, Seed + 3, -50, 100);
  // Few distinct values: a column's maximum occurs many times.
  gpu_check::fill_uniform(Small.data(), total, Seed + 4, 0, 7);
  for (size_t K = 0; K < total; ++K)
    Ties[K] = (float)Small[K];
  // Most columns start at a random row; every fifth one near the end, so
  // its loop is shorter than the ways or empty (start >= rows).
  gpu_check::fill_uniform(Start.data(), cols, Seed + 5, 0, rows - 1);
  for (int C = 0; C < cols; C += 5)
    Start[C] = rows - 40 + Start[C] % 50;

  float *DIn, *DTies, *DX, *DBias, *DY, *DMax, *DBest, *DSum;
  int *DIntIn, *DStart, *DIdx, *DCount, *DTotal;
  GPU_CHECK(cudaMalloc(&DIn, total * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DTies, total * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DX, rows * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DBias, cols * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DY, cols * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DMax, cols * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DBest, cols * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DSum, cols * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DIntIn, total * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DStart, cols * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DIdx, cols * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DCount, cols * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DTotal, cols * sizeof(int)));
  GPU_CHECK(cudaMemcpy(DIn, In.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DTies, Ties.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DX, X.data(), rows * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DBias, Bias.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DIntIn, IntIn.data(), total * sizeof(int), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DStart, Start.data(), cols * sizeof(int), cudaMemcpyHostToDevice));

  gemv_t<<<(cols + 255) / 256, 256>>>(DY, DIn, DX, rows, cols);
  gpu_check::check_launch("gemv_t");
  colmax<<<(cols + 127) / 128, 128>>>(DMax, DIn, rows, cols);
  gpu_check::check_launch("colmax");
  colargmax<<<(cols + 63) / 64, 64>>>(DIdx, DBest, DTies, rows, cols);
  gpu_check::check_launch("colargmax");
  colsum<<<(cols + 255) / 256, 256>>>(DSum, DIn, DBias, DStart, rows, cols);
  gpu_check::check_launch("colsum");
  colcount<<<(cols + 127) / 128, 128>>>(DCount, DTotal, DIntIn, DStart, rows,
                                        cols);
  gpu_check::check_launch("colcount");

  std::vector<float> Y(cols), Max(cols), Best(cols), Sum(cols);
  std::vector<int> Idx(cols), Count(cols), Total(cols);
  GPU_CHECK(cudaMemcpy(Y.data(), DY, cols * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Max.data(), DMax, cols * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Best.data(), DBest, cols * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Sum.data(), DSum, cols * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Idx.data(), DIdx, cols * sizeof(int), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Count.data(), DCount, cols * sizeof(int), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Total.data(), DTotal, cols * sizeof(int), cudaMemcpyDeviceToHost));

  // fp64 references of the original sums.
  std::vector<double> RY(cols), RSum(cols);
  for (int C = 0; C < cols; ++C) {
    double G = 0, S = Bias[C];
    for (int R = 0; R < rows; ++R)
      G += (double)In[(size_t)R * cols + C] * X[R];
    for (int R = Start[C]; R < rows; ++R)
      S += In[(size_t)R * cols + C];
    RY[C] = G;
    RSum[C] = S;
  }

  gpu_check::dump(argc, argv, "gemv_t", Y.data(), cols);
  gpu_check::dump(argc, argv, "gemv_t.fp64", RY.data(), cols);
  gpu_check::dump(argc, argv, "colmax", Max.data(), cols);
  gpu_check::dump(argc, argv, "argmax", Idx.data(), cols);
  gpu_check::dump(argc, argv, "best", Best.data(), cols);
  gpu_check::dump(argc, argv, "colsum", Sum.data(), cols);
  gpu_check::dump(argc, argv, "colsum.fp64", RSum.data(), cols);
  gpu_check::dump(argc, argv, "count", Count.data(), cols);
  gpu_check::dump(argc, argv, "total", Total.data(), cols);
  return 0;
}
