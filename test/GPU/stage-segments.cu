// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=strict --passes='stage-segments{items=4}' %s
// RUN: %gpu_equiv --fp-model=strict --passes='stage-segments{items=8,stream=0}' %s
// RUN: %gpu_equiv --fp-model=strict --passes='stage-segments{items=1}' %s
// Planted bugs: each row's slice of a chunk without its last element, and
// the fallback for a decreasing row pointer without its last term.
// RUN: %gpu_equiv --fp-model=strict --plant='j < min(segHi, chunkEnd); ++j)=>j < min(segHi, chunkEnd) - 1; ++j)' --passes='stage-segments{items=4}' %s
// RUN: %gpu_equiv --fp-model=strict --plant='for (int j = segLo; j < segHi; ++j)=>for (int j = segLo; j < segHi - 1; ++j)' --passes='stage-segments{items=4}' %s

// stage-segments keeps each row's sum bitwise (--fp-model=strict): a CSR
// matrix-vector product over rows of 0 to 60 non-zeros (empty rows, rows
// longer than a chunk, 3001 rows: the last block partly idle), and the same
// kernel over a row pointer that decreases in a few places (the blocks
// holding them take the original loop; rows with a decreasing range add
// nothing, as in the original).

#include "gpu_check.h"
#include <vector>

__global__ void spmv(float *y, const int *row_ptr, const int *col_idx,
                     const float *vals, const float *x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
      sum += vals[j] * x[col_idx[j]];
    y[row] = sum;
  }
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int rows = 3001, cols = 5000;
  std::vector<int> Ptr(rows + 1, 0);
  unsigned S = Seed * 2654435761u + 1;
  auto Next = [&] {
    S ^= S << 13;
    S ^= S >> 17;
    S ^= S << 5;
    return S;
  };
  for (int R = 0; R < rows; ++R)
    Ptr[R + 1] = Ptr[R] + (R % 97 == 5 ? 600 + Next() % 700 : Next() % 61);
  const int nnz = Ptr[rows];
  std::vector<int> Col(nnz);
  std::vector<float> Val(nnz), X(cols);
  for (int K = 0; K < nnz; ++K)
    Col[K] = Next() % cols;
  gpu_check::fill_uniform(Val.data(), nnz, Seed + 1, -1.0f, 1.0f);
  gpu_check::fill_uniform(X.data(), cols, Seed + 2, -2.0f, 2.0f);
  // A row pointer that decreases at a few rows (still inside [0, nnz]).
  std::vector<int> Bad = Ptr;
  for (int R = 700; R < rows; R += 811)
    Bad[R] = Ptr[R] + 40 <= nnz ? Ptr[R] + 40 : nnz;

  int *DPtr, *DBad, *DCol;
  float *DVal, *DX, *DY, *DY2;
  GPU_CHECK(cudaMalloc(&DPtr, (rows + 1) * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DBad, (rows + 1) * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DCol, nnz * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DVal, nnz * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DX, cols * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DY, rows * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DY2, rows * sizeof(float)));
  GPU_CHECK(cudaMemcpy(DPtr, Ptr.data(), (rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DBad, Bad.data(), (rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DCol, Col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DVal, Val.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(DX, X.data(), cols * sizeof(float), cudaMemcpyHostToDevice));

  spmv<<<(rows + 255) / 256, 256>>>(DY, DPtr, DCol, DVal, DX, rows);
  gpu_check::check_launch("spmv");
  spmv<<<(rows + 127) / 128, 128>>>(DY2, DBad, DCol, DVal, DX, rows);
  gpu_check::check_launch("spmv (decreasing row pointer)");

  std::vector<float> Y(rows), Y2(rows);
  GPU_CHECK(cudaMemcpy(Y.data(), DY, rows * sizeof(float), cudaMemcpyDeviceToHost));
  GPU_CHECK(cudaMemcpy(Y2.data(), DY2, rows * sizeof(float), cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, "y", Y.data(), rows);
  gpu_check::dump(argc, argv, "y_decreasing", Y2.data(), rows);
  return 0;
}
