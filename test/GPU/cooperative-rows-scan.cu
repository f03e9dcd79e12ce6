// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=32}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=8,scale-grid=1}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=4,vec=1}' %s
// RUN: %gpu_equiv --fp-model=reassoc --plant='sum += cudaOptRowLast(sumPrefix, rowMask, 32);=>sum += sumPrefix;' --passes='cooperative-rows{lanes=32}' %s

// Row prefix sums spread over a row's lanes give the original's results:
// rows whose length is not a multiple of the lanes (a partial last step),
// an integer scan (exact, compared bit for bit) that starts from a per-row
// offset and whose total is stored after the loop, and a float scan compared
// with an fp64 reference. The plant carries each lane's own prefix instead
// of the step's total, so every lane but the last drifts.

#include "gpu_check.h"
#include <vector>

__global__ void rowCumsum(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j) {
      sum += in[r * cols + j];
      out[r * cols + j] = sum;
    }
  }
}

__global__ void offsets(int *pos, int *total, const int *counts,
                        const int *base, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  int s = base[r];
  for (int j = 1; j < cols + 1; ++j) {
    s = s + counts[r * cols + j - 1];
    pos[r * (cols + 1) + j] = s;
  }
  total[r] = s;
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int rows = 3001, cols = 517;
  const size_t n = (size_t)rows * cols;
  std::vector<float> In(n);
  std::vector<int> Counts(n), Base(rows);
  gpu_check::fill_uniform(In.data(), n, Seed, -1.0f, 1.0f);
  gpu_check::fill_uniform(Counts.data(), n, Seed + 1, 0, 9);
  gpu_check::fill_uniform(Base.data(), rows, Seed + 2, -1000, 1000);
  float *DIn, *DOut;
  int *DCounts, *DBase, *DPos, *DTotal;
  GPU_CHECK(cudaMalloc(&DIn, n * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DOut, n * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DCounts, n * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DBase, rows * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DPos, (size_t)rows * (cols + 1) * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DTotal, rows * sizeof(int)));
  GPU_CHECK(cudaMemcpy(DIn, In.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DCounts, Counts.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DBase, Base.data(), rows * sizeof(int), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemset(DPos, 0, (size_t)rows * (cols + 1) * sizeof(int)));
  rowCumsum<<<(rows + 255) / 256, 256>>>(DOut, DIn, rows, cols);
  gpu_check::check_launch("rowCumsum");
  offsets<<<(rows + 127) / 128, 128>>>(DPos, DTotal, DCounts, DBase, rows, cols);
  gpu_check::check_launch("offsets");
  std::vector<float> Out(n);
  std::vector<int> Pos((size_t)rows * (cols + 1)), Total(rows);
  GPU_CHECK(cudaMemcpy(Out.data(), DOut, n * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Pos.data(), DPos, Pos.size() * sizeof(int), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Total.data(), DTotal, rows * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<double> Ref(n);
  for (int r = 0; r < rows; ++r) {
    double s = 0.0;
    for (int j = 0; j < cols; ++j)
      Ref[(size_t)r * cols + j] = s += In[(size_t)r * cols + j];
  }
  gpu_check::dump(argc, argv, "cumsum", Out.data(), n);
  gpu_check::dump(argc, argv, "cumsum.fp64", Ref.data(), n);
  gpu_check::dump(argc, argv, "pos", Pos.data(), Pos.size());
  gpu_check::dump(argc, argv, "total", Total.data(), rows);
  cudaFree(DIn);
  cudaFree(DOut);
  cudaFree(DCounts);
  cudaFree(DBase);
  cudaFree(DPos);
  cudaFree(DTotal);
  return 0;
}
