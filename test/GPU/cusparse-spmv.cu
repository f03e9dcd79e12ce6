// REQUIRES: cuda-device
// RUN: %gpu_equiv --cusparse --fp-model=reassoc --passes=cusparse-spmv --kernel=spmv_f32 %s
// RUN: %gpu_equiv --cusparse --fp-model=reassoc --passes='cusparse-spmv{alg=2}' --kernel=spmv_f32 %s
// Doubles have no fp64 reference rule: rows of up to 30 products of +-1..2
// summed in another order differ by ~1e-14 absolute, which 1e-12 relative
// does not cover near zero; 1e-10 (floor 1e-13 of the largest |y|) does and
// still sees any wrong term.
// RUN: %gpu_equiv --cusparse --fp-model=reassoc --rtol=1e-10 --passes=cusparse-spmv --kernel=spmv_f64 %s
// Planted bugs: one row short, the values and x swapped, beta 1 (y added
// to instead of written).
// RUN: %gpu_equiv --cusparse --fp-model=reassoc --kernel=spmv_f32 --plant='static_cast<long long>(rows)=>static_cast<long long>(rows - 1)' --passes=cusparse-spmv %s
// RUN: %gpu_equiv --cusparse --fp-model=reassoc --rtol=1e-10 --kernel=spmv_f64 --plant='DCol, DVal, DX=>DCol, DX, DVal' --passes=cusparse-spmv %s
// RUN: %gpu_equiv --cusparse --fp-model=reassoc --kernel=spmv_f32 --plant='const Value One = 1, Zero = 0;=>const Value One = 1, Zero = 1;' --passes=cusparse-spmv %s

// cusparse-spmv: cuSPARSE's SpMV computes each kernel's y = A x within the
// reassoc rule against an fp64 host reference: empty rows, one row, long
// rows, 8-24 entries per row as in the corpus, x inside a larger
// allocation (the column bound comes from the allocation), 64-bit indices
// with doubles; a launch on a submatrix whose row offsets start past 0
// falls back to the kernel (cuSPARSE's offsets start at 0). The kernels
// declare their pointers __restrict__ (device() hides the allocations).

#include "gpu_check.h"
#include <string>
#include <vector>

__global__ void spmv_f32(float *__restrict__ y, const int *__restrict__ row_ptr,
                         const int *__restrict__ col_idx,
                         const float *__restrict__ vals,
                         const float *__restrict__ x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
      sum += vals[j] * x[col_idx[j]];
    y[row] = sum;
  }
}

__global__ void spmv_f64(double *__restrict__ out,
                         const long long *__restrict__ ptr,
                         const long long *__restrict__ cols,
                         const double *__restrict__ a,
                         const double *__restrict__ v, long long n) {
  long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (r < n) {
    double acc = 0.0;
    for (long long j = ptr[r]; j < ptr[r + 1]; ++j)
      acc += a[j] * v[cols[j]];
    out[r] = acc;
  }
}

template <typename T> static T *device(const std::vector<T> &H) {
  T *D;
  cudaMalloc(&D, H.size() * sizeof(T));
  cudaMemcpy(D, H.data(), H.size() * sizeof(T), cudaMemcpyHostToDevice);
  return D;
}

// A CSR matrix of Rows rows: row r has Min + (hash % Span) entries (0 for
// every seventh row when Empty), columns in [0, Cols).
template <typename I>
static void csr(int Rows, int Cols, int Min, int Span, bool Empty,
                unsigned Seed, std::vector<I> &Ptr, std::vector<I> &Col) {
  Ptr.assign(Rows + 1, 0);
  uint32_t S = Seed * 2654435761u + 1;
  for (int r = 0; r < Rows; ++r) {
    int Len = Min + (int)(gpu_check::next(S) % Span);
    if (Empty && r % 7 == 3)
      Len = 0;
    Ptr[r + 1] = Ptr[r] + Len;
  }
  Col.resize(Ptr[Rows]);
  for (auto &C : Col)
    C = (I)(gpu_check::next(S) % Cols);
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  // (rows, columns, min entries, span, empty rows, x's offset in its
  // allocation, row offset of the submatrix launched)
  struct Case { int Rows, Cols, Min, Span; bool Empty; int XOff, Off; };
  const Case Cases[] = {{1, 5, 3, 1, false, 0, 0},
                        {1000, 1000, 0, 40, true, 0, 0},
                        {100000, 100000, 8, 17, false, 37, 0},
                        {300, 50, 200, 300, false, 0, 0},
                        {5000, 5000, 1, 9, true, 0, 100}};
  int N = 0;
  for (const Case &C : Cases) {
    std::vector<int> Ptr, Col;
    csr(C.Rows + C.Off, C.Cols, C.Min, C.Span, C.Empty, Seed + N, Ptr, Col);
    std::vector<float> Val(Col.size()), X(C.Cols + C.XOff + 11);
    std::vector<float> Y(C.Rows, 12345.0f);
    gpu_check::fill_uniform(Val.data(), Val.size(), Seed + 3 * N + 1, -1.0f, 1.0f);
    gpu_check::fill_uniform(X.data(), X.size(), Seed + 5 * N + 2, -2.0f, 2.0f);
    int *DPtr = device(Ptr), *DCol = device(Col);
    float *DVal = device(Val), *DXAll = device(X), *DY = device(Y);
    const float *DX = DXAll + C.XOff;
    int Off = C.Off, rows = C.Rows;
    spmv_f32<<<(rows + 255) / 256, 256>>>(DY, DPtr + Off, DCol, DVal, DX, rows);
    gpu_check::check_launch("spmv_f32");
    cudaMemcpy(Y.data(), DY, Y.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::vector<double> Ref(C.Rows, 0.0);
    for (int r = 0; r < C.Rows; ++r)
      for (int j = Ptr[r + Off]; j < Ptr[r + Off + 1]; ++j)
        Ref[r] += (double)Val[j] * X[C.XOff + Col[j]];
    std::string Name = "f32_" + std::to_string(N++);
    gpu_check::dump(argc, argv, Name.c_str(), Y.data(), Y.size());
    gpu_check::dump(argc, argv, (Name + ".fp64").c_str(), Ref.data(), Ref.size());
    cudaFree(DPtr);
    cudaFree(DCol);
    cudaFree(DVal);
    cudaFree(DXAll);
    cudaFree(DY);
  }
  // Doubles with 64-bit indices, launched on a stream.
  cudaStream_t St;
  cudaStreamCreate(&St);
  for (int Rows : {777, 20000}) {
    std::vector<long long> Ptr, Col;
    csr(Rows, Rows, 0, 30, true, Seed + N, Ptr, Col);
    std::vector<double> Val(Col.size()), X(Rows), Y(Rows, 12345.0);
    gpu_check::fill_uniform(Val.data(), Val.size(), Seed + 7 * N, -1.0, 1.0);
    gpu_check::fill_uniform(X.data(), X.size(), Seed + 11 * N, -2.0, 2.0);
    long long *DPtr = device(Ptr), *DCol = device(Col);
    double *DVal = device(Val), *DX = device(X), *DY = device(Y);
    long long n = Rows;
    spmv_f64<<<(n + 127) / 128, 128, 0, St>>>(DY, DPtr, DCol, DVal, DX, n);
    cudaStreamSynchronize(St);
    gpu_check::check_launch("spmv_f64");
    cudaMemcpy(Y.data(), DY, Y.size() * sizeof(double), cudaMemcpyDeviceToHost);
    std::string Name = "f64_" + std::to_string(N++);
    gpu_check::dump(argc, argv, Name.c_str(), Y.data(), Y.size());
    cudaFree(DPtr);
    cudaFree(DCol);
    cudaFree(DVal);
    cudaFree(DX);
    cudaFree(DY);
  }
  return 0;
}
