//===- CublasSgemm.cpp - fp32 problems that may reassociate -> cuBLAS -----===//
//
// CUDAOPT_GEMM_F32 problems with Reassociate = 1 run cuBLAS SGEMM: fp32
// inputs, fp32 FFMA accumulation (the handle keeps CUBLAS_DEFAULT_MATH, so
// no TF32), in cuBLAS's own order over k. That order differs from the
// sequential FMA chain of lib/Sgemm.cu, so the result differs in the last
// bits; cuda-opt emits Reassociate only under --fp-model=reassoc, after the
// tuner verified the call against the fp64 reference of the original.
//
// cudaoptGemm's C is row-major; cuBLAS is column-major, so the call computes
// C^T = B^T * A^T: row-major A (M x K, Lda) is the column-major K x M matrix
// A^T, and B is B^T either as stored (row layout) or transposed (col layout).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cublas_v2.h>
#include <mutex>

namespace cudaopt::gemm {

namespace {

/// One handle per device, made on first use and kept (a handle costs
/// milliseconds to create). The mutex covers cublasSetStream and the call,
/// which share the handle's stream.
cublasHandle_t handleFor(int Device, std::unique_lock<std::mutex> &Held) {
  static std::mutex Lock;
  static cublasHandle_t Handles[64] = {};
  Held = std::unique_lock<std::mutex>(Lock);
  if (Device < 0 || Device >= 64)
    return nullptr;
  if (!Handles[Device] && cublasCreate(&Handles[Device]) != CUBLAS_STATUS_SUCCESS)
    Handles[Device] = nullptr;
  return Handles[Device];
}

} // namespace

cudaError_t launchCublasSgemm(const cudaoptGemmProblem &P,
                              cudaStream_t Stream) {
  int Device = 0;
  if (cudaError_t E = cudaGetDevice(&Device); E != cudaSuccess)
    return E;
  std::unique_lock<std::mutex> Held;
  cublasHandle_t H = handleFor(Device, Held);
  if (!H || cublasSetStream(H, Stream) != CUBLAS_STATUS_SUCCESS)
    return cudaErrorNotSupported;
  const cublasOperation_t OpB =
      P.LayoutB == CUDAOPT_GEMM_B_ROW ? CUBLAS_OP_N : CUBLAS_OP_T;
  const float Alpha = P.Alpha, Beta = P.Beta;
  const auto *A = static_cast<const float *>(P.A);
  const auto *B = static_cast<const float *>(P.B);
  auto *C = static_cast<float *>(P.C);
  cublasStatus_t S;
  if (P.Batch > 1)
    S = cublasSgemmStridedBatched(H, OpB, CUBLAS_OP_N, P.N, P.M, P.K, &Alpha,
                                  B, P.Ldb, P.StrideB, A, P.Lda, P.StrideA,
                                  &Beta, C, P.Ldc, P.StrideC, P.Batch);
  else
    S = cublasSgemm(H, OpB, CUBLAS_OP_N, P.N, P.M, P.K, &Alpha, B, P.Ldb, A,
                    P.Lda, &Beta, C, P.Ldc);
  return S == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

} // namespace cudaopt::gemm
