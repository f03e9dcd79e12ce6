//===- Baselines.cpp - cuBLAS and cuBLASLt calls for row-major C = A * B --===//
//
// cuBLAS is column-major: row-major C (M x N) is column-major C^T (N x M) =
// B^T * A^T. B stored N x K (B_COL) is column-major K x N, so op = T; B
// stored K x N (B_ROW) is column-major N x K = B^T, so op = N. A stored
// M x K row-major is column-major K x M = A^T, op = N.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

namespace bench {
namespace {

cudaDataType dataType(const cudaoptGemmProblem &P) {
  return P.Type == CUDAOPT_GEMM_BF16 ? CUDA_R_16BF : CUDA_R_16F;
}

cublasOperation_t opB(const cudaoptGemmProblem &P) {
  return P.LayoutB == CUDAOPT_GEMM_B_COL ? CUBLAS_OP_T : CUBLAS_OP_N;
}

} // namespace

Baselines::Baselines(cudaStream_t S) : LtWorkspaceBytes(32u << 20) {
  if (cublasCreate(&Handle) != CUBLAS_STATUS_SUCCESS ||
      cublasLtCreate(&LtHandle) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cannot create cuBLAS handles\n");
    std::exit(2);
  }
  cublasSetStream(Handle, S);
  BENCH_CHECK(cudaMalloc(&LtWorkspace, LtWorkspaceBytes));
}

Baselines::~Baselines() {
  ltRelease();
  cudaFree(LtWorkspace);
  cublasLtDestroy(LtHandle);
  cublasDestroy(Handle);
}

bool Baselines::gemmEx(const cudaoptGemmProblem &P, cudaStream_t S) {
  cublasSetStream(Handle, S);
  return cublasGemmEx(Handle, opB(P), CUBLAS_OP_N, P.N, P.M, P.K, &P.Alpha, P.B,
                      dataType(P), P.Ldb, P.A, dataType(P), P.Lda, &P.Beta, P.C,
                      dataType(P), P.Ldc, CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS;
}

bool Baselines::gemmEx16(const cudaoptGemmProblem &P, cudaStream_t S) {
  cublasSetStream(Handle, S);
  __half Alpha = __float2half(P.Alpha), Beta = __float2half(P.Beta);
  return cublasGemmEx(Handle, opB(P), CUBLAS_OP_N, P.N, P.M, P.K, &Alpha, P.B,
                      CUDA_R_16F, P.Ldb, P.A, CUDA_R_16F, P.Lda, &Beta, P.C,
                      CUDA_R_16F, P.Ldc, CUBLAS_COMPUTE_16F,
                      CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS;
}

void Baselines::ltRelease() {
  if (Desc)
    cublasLtMatmulDescDestroy(Desc);
  if (LA)
    cublasLtMatrixLayoutDestroy(LA);
  if (LB)
    cublasLtMatrixLayoutDestroy(LB);
  if (LC)
    cublasLtMatrixLayoutDestroy(LC);
  Desc = nullptr;
  LA = LB = LC = nullptr;
  Algos.clear();
}

int Baselines::ltPrepare(const cudaoptGemmProblem &P, int Max) {
  ltRelease();
  cudaDataType T = dataType(P);
  cublasOperation_t TransA = opB(P), TransB = CUBLAS_OP_N;
  cublasLtMatmulDescCreate(&Desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatmulDescSetAttribute(Desc, CUBLASLT_MATMUL_DESC_TRANSA, &TransA,
                                 sizeof(TransA));
  cublasLtMatmulDescSetAttribute(Desc, CUBLASLT_MATMUL_DESC_TRANSB, &TransB,
                                 sizeof(TransB));
  // Lt's A is our B, Lt's B is our A (see the file comment).
  if (TransA == CUBLAS_OP_T)
    cublasLtMatrixLayoutCreate(&LA, T, P.K, P.N, P.Ldb);
  else
    cublasLtMatrixLayoutCreate(&LA, T, P.N, P.K, P.Ldb);
  cublasLtMatrixLayoutCreate(&LB, T, P.K, P.M, P.Lda);
  cublasLtMatrixLayoutCreate(&LC, T, P.N, P.M, P.Ldc);
  cublasLtMatmulPreference_t Pref;
  cublasLtMatmulPreferenceCreate(&Pref);
  cublasLtMatmulPreferenceSetAttribute(
      Pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &LtWorkspaceBytes,
      sizeof(LtWorkspaceBytes));
  std::vector<cublasLtMatmulHeuristicResult_t> Res(Max);
  int Found = 0;
  cublasLtMatmulAlgoGetHeuristic(LtHandle, Desc, LA, LB, LC, LC, Pref, Max,
                                 Res.data(), &Found);
  cublasLtMatmulPreferenceDestroy(Pref);
  for (int I = 0; I < Found; ++I)
    if (Res[I].state == CUBLAS_STATUS_SUCCESS)
      Algos.push_back(Res[I].algo);
  return ltCount();
}

bool Baselines::lt(const cudaoptGemmProblem &P, int Algo, cudaStream_t S) {
  if (Algo < 0 || Algo >= ltCount())
    return false;
  return cublasLtMatmul(LtHandle, Desc, &P.Alpha, P.B, LA, P.A, LB, &P.Beta,
                        P.C, LC, P.C, LC, &Algos[Algo], LtWorkspace,
                        LtWorkspaceBytes, S) == CUBLAS_STATUS_SUCCESS;
}

} // namespace bench
