// spmv-cusparse-overhead.cu - where the time of cusparse-spmv's helper goes
// on the corpus's spmv_csr problem (8M x 8M, 8-24 non-zeros per row, a
// quarter of them anywhere, the rest within 2048 of the diagonal). Times,
// CUDA events around one call, a 512 MiB L2 flush before each, methods
// interleaved, median of 30 after 3 warm-up rounds:
//   kernel      the corpus's one-thread-per-row kernel
//   helper A    cudaoptCsrSpmv as cuda-opt emits it (lib/Transforms/Snippets/
//               CusparseSpmv.cuh): nnz read back + stream sync, descriptors,
//               buffer size, cudaMallocAsync, SpMV, frees - algorithm A
//   spmv A      cusparseSpMV alone, descriptors and buffer made once
//   prep A      the same after cusparseSpMV_preprocess
//   nosync A    the helper's work without the nnz read-back (nnz known)
// Prints the table and each method's max |y - kernel's y| / max |y|.
//   nvcc -O2 -std=c++17 -arch=sm_90 spmv-cusparse-overhead.cu -lcusparse
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "../../lib/Transforms/Snippets/CusparseSpmv.cuh"

#define CK(...)                                                                \
  do {                                                                         \
    auto e = (__VA_ARGS__);                                                           \
    if (e != 0) {                                                              \
      std::printf("%s:%d %s: %d\n", __FILE__, __LINE__, #__VA_ARGS__, (int)e);           \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

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

__device__ unsigned mix(unsigned X) {
  X ^= X >> 16;
  X *= 0x7feb352dU;
  X ^= X >> 15;
  X *= 0x846ca68bU;
  return X ^ (X >> 16);
}

__global__ void fillRows(const int *Ptr, int *Col, float *Val, int Rows,
                         int Cols) {
  int R = blockIdx.x * blockDim.x + threadIdx.x;
  if (R >= Rows)
    return;
  for (int J = Ptr[R]; J < Ptr[R + 1]; ++J) {
    unsigned U = mix(J * 2u + 1), V = mix(J * 2u + 2);
    int C = (U & 3) == 0 ? int(V % Cols) : R + int(V % 4097) - 2048;
    Col[J] = C < 0 ? C + Cols : C >= Cols ? C - Cols : C;
    Val[J] = (mix(J * 2u + 3) & 0xffff) / 32768.0f - 1.0f;
  }
}

__global__ void fillX(float *X, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    X[I] = (mix(I + 77u) & 0xffff) / 16384.0f - 2.0f;
}

int main() {
  const int Rows = 1 << 23, Cols = 1 << 23;
  std::vector<int> HPtr(Rows + 1);
  unsigned S = 12345;
  for (int R = 0; R < Rows; ++R) {
    S = S * 1664525u + 1013904223u;
    HPtr[R + 1] = HPtr[R] + 8 + int((S >> 8) % 17);
  }
  const int Nnz = HPtr[Rows];
  int *Ptr, *Col;
  float *Val, *X, *Y, *YRef;
  CK(cudaMalloc(&Ptr, (Rows + 1) * sizeof(int)));
  CK(cudaMalloc(&Col, size_t(Nnz) * sizeof(int)));
  CK(cudaMalloc(&Val, size_t(Nnz) * sizeof(float)));
  CK(cudaMalloc(&X, Cols * sizeof(float)));
  CK(cudaMalloc(&Y, Rows * sizeof(float)));
  CK(cudaMalloc(&YRef, Rows * sizeof(float)));
  CK(cudaMemcpy(Ptr, HPtr.data(), (Rows + 1) * sizeof(int),
                cudaMemcpyHostToDevice));
  fillRows<<<(Rows + 255) / 256, 256>>>(Ptr, Col, Val, Rows, Cols);
  fillX<<<(Cols + 255) / 256, 256>>>(X, Cols);
  CK(cudaDeviceSynchronize());
  const size_t FlushBytes = 512u << 20;
  void *Flush;
  CK(cudaMalloc(&Flush, FlushBytes));
  cudaStream_t St;
  CK(cudaStreamCreateWithFlags(&St, cudaStreamNonBlocking));
  spmv_csr<<<(Rows + 255) / 256, 256, 0, St>>>(YRef, Ptr, Col, Val, X, Rows);
  CK(cudaStreamSynchronize(St));

  cusparseHandle_t H;
  CK(cusparseCreate(&H));
  CK(cusparseSetStream(H, St));
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t VX, VY;
  CK(cusparseCreateCsr(&A, Rows, Cols, Nnz, Ptr, Col, Val, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                       CUDA_R_32F));
  CK(cusparseCreateDnVec(&VX, Cols, X, CUDA_R_32F));
  CK(cusparseCreateDnVec(&VY, Rows, Y, CUDA_R_32F));
  const float One = 1, Zero = 0;
  void *Buf[2] = {};
  cusparseSpMVAlg_t Algs[2] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};
  for (int I = 0; I < 2; ++I) {
    size_t Bytes = 0;
    CK(cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, A,
                               VX, &Zero, VY, CUDA_R_32F, Algs[I], &Bytes));
    CK(cudaMalloc(&Buf[I], std::max<size_t>(Bytes, 16)));
    std::printf("alg %d buffer %zu bytes\n", I + 1, Bytes);
  }
  // A second matrix descriptor for the preprocessed runs.
  cusparseSpMatDescr_t AP[2];
  void *BufP[2] = {};
  for (int I = 0; I < 2; ++I) {
    CK(cusparseCreateCsr(&AP[I], Rows, Cols, Nnz, Ptr, Col, Val,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    size_t Bytes = 0;
    CK(cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One,
                               AP[I], VX, &Zero, VY, CUDA_R_32F, Algs[I],
                               &Bytes));
    CK(cudaMalloc(&BufP[I], std::max<size_t>(Bytes, 16)));
    CK(cusparseSpMV_preprocess(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One,
                               AP[I], VX, &Zero, VY, CUDA_R_32F, Algs[I],
                               BufP[I]));
  }
  CK(cudaStreamSynchronize(St));

  struct Method {
    std::string Name;
    std::function<void()> Run;
    std::vector<float> T;
    double Err = -1;
  };
  std::vector<Method> Ms;
  Ms.push_back({"kernel", [&] {
                  spmv_csr<<<(Rows + 255) / 256, 256, 0, St>>>(Y, Ptr, Col,
                                                               Val, X, Rows);
                }});
  for (int I = 0; I < 2; ++I) {
    std::string Alg = std::to_string(I + 1);
    Ms.push_back({"helper " + Alg, [&, I] {
                    CK(cudaoptCsrSpmv<int, float>(St, Rows, Ptr, Col, Val, X,
                                                  Y, I + 1));
                  }});
    Ms.push_back({"spmv " + Alg, [&, I] {
                    CK(cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One,
                                    A, VX, &Zero, VY, CUDA_R_32F, Algs[I],
                                    Buf[I]));
                  }});
    Ms.push_back({"prep " + Alg, [&, I] {
                    CK(cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One,
                                    AP[I], VX, &Zero, VY, CUDA_R_32F, Algs[I],
                                    BufP[I]));
                  }});
    // The helper's per-call work less the nnz read-back and the sync.
    Ms.push_back({"nosync " + Alg, [&, I] {
                    cusparseSpMatDescr_t M;
                    cusparseDnVecDescr_t DX, DY;
                    CK(cusparseCreateCsr(&M, Rows, Cols, Nnz, Ptr, Col, Val,
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
                    CK(cusparseCreateDnVec(&DX, Cols, X, CUDA_R_32F));
                    CK(cusparseCreateDnVec(&DY, Rows, Y, CUDA_R_32F));
                    size_t Bytes = 0;
                    void *B = nullptr;
                    CK(cusparseSpMV_bufferSize(
                        H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, M, DX,
                        &Zero, DY, CUDA_R_32F, Algs[I], &Bytes));
                    if (Bytes)
                      CK(cudaMallocAsync(&B, Bytes, St));
                    CK(cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &One,
                                    M, DX, &Zero, DY, CUDA_R_32F, Algs[I], B));
                    if (B)
                      CK(cudaFreeAsync(B, St));
                    cusparseDestroyDnVec(DY);
                    cusparseDestroyDnVec(DX);
                    cusparseDestroySpMat(M);
                  }});
  }
  cudaEvent_t E0, E1;
  CK(cudaEventCreate(&E0));
  CK(cudaEventCreate(&E1));
  std::vector<float> HY(Rows), HRef(Rows);
  CK(cudaMemcpy(HRef.data(), YRef, Rows * sizeof(float),
                cudaMemcpyDeviceToHost));
  double MaxRef = 0;
  for (float V : HRef)
    MaxRef = std::max(MaxRef, (double)std::fabs(V));
  for (Method &M : Ms) {
    CK(cudaMemsetAsync(Y, 0xff, Rows * sizeof(float), St));
    M.Run();
    CK(cudaStreamSynchronize(St));
    CK(cudaMemcpy(HY.data(), Y, Rows * sizeof(float), cudaMemcpyDeviceToHost));
    double D = 0;
    for (int I = 0; I < Rows; ++I) {
      double X = std::fabs((double)HY[I] - HRef[I]);
      D = std::isnan(X) ? INFINITY : std::max(D, X);
    }
    M.Err = D / MaxRef;
  }
  for (int Round = 0; Round < 33; ++Round)
    for (Method &M : Ms) {
      CK(cudaMemsetAsync(Flush, Round & 0xff, FlushBytes, St));
      CK(cudaEventRecord(E0, St));
      M.Run();
      CK(cudaEventRecord(E1, St));
      CK(cudaEventSynchronize(E1));
      float Ms1;
      CK(cudaEventElapsedTime(&Ms1, E0, E1));
      if (Round >= 3)
        M.T.push_back(Ms1);
    }
  std::printf("rows %d nnz %d\n%-10s %10s %10s %10s %10s\n", Rows, Nnz,
              "method", "median ms", "p10", "p90", "max rel err");
  for (Method &M : Ms) {
    std::sort(M.T.begin(), M.T.end());
    size_t N = M.T.size();
    std::printf("%-10s %10.4f %10.4f %10.4f %10.1e\n", M.Name.c_str(),
                M.T[N / 2], M.T[N / 10], M.T[N * 9 / 10], M.Err);
  }
  return 0;
}
