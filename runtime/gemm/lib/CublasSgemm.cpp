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
// LibraryAlgo = k >= 1 runs the same product through cublasLtMatmul with the
// k-th candidate of cuBLASLt's heuristic instead (issue 14): on the H200
// cublasSgemm is up to 8 % slower than the best heuristic candidate on the
// corpus's fp32 shapes, and which candidate wins depends on the shape
// (bench/explore/sgemm-lt-algos.cu, bench/JOURNAL.md), so the tuner times a
// few values of k and keeps the fastest. Everything stays fp32:
// CUBLAS_COMPUTE_32F with CUDA_R_32F scale and matrices (never TF32 or the
// FAST compute types). Per device there is one cuBLASLt handle and one
// 32 MiB workspace, made on first use; the heuristic's answer (with the
// matmul descriptor and the layouts) is kept per (device, shape, layout,
// leading dimensions, batch strides, operand alignment), so a call after the
// first pays only cublasLtMatmul. A call falls back to cublasSgemm when the
// heuristic offers fewer than k candidates, when the candidate rejects the
// problem, and while its stream is being captured into a graph (the shared
// workspace is ordered between streams with an event, which capture does
// not allow to mix with eager work).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace cudaopt::gemm {

namespace {

constexpr int MaxDevices = 64;
/// Workspace offered to cuBLASLt (what sgemm-lt-algos measured with).
constexpr size_t LtWorkspaceBytes = 32u << 20;
/// Heuristic candidates asked for: LibraryAlgo 1..MaxLtAlgos.
constexpr int MaxLtAlgos = 8;

/// What one device keeps, made on first use and never freed (a handle costs
/// milliseconds to create). The mutex below covers all of it and the calls,
/// which share each handle's stream.
struct DeviceState {
  cublasHandle_t Blas = nullptr;
  cublasLtHandle_t Lt = nullptr;
  bool LtFailed = false; ///< cuBLASLt set-up failed once: cublasSgemm only.
  void *Workspace = nullptr;
  /// Recorded on LastStream after each cublasLtMatmul; a call on another
  /// stream waits for it before it reuses the workspace.
  cudaEvent_t WorkspaceDone = nullptr;
  cudaStream_t LastStream = nullptr;
  bool WorkspaceUsed = false;
};

std::mutex &stateLock() {
  static std::mutex Lock;
  return Lock;
}

DeviceState &stateFor(int Device) {
  static DeviceState States[MaxDevices];
  return States[Device];
}

/// The largest power of two (at most 256) dividing the address: what the
/// heuristic may assume about an operand (its default assumes 256).
uint32_t alignmentOf(const void *Ptr) {
  auto Address = reinterpret_cast<uintptr_t>(Ptr);
  uint32_t Align = 256;
  while (Align > 4 && Address % Align != 0)
    Align /= 2;
  return Align;
}

/// Everything the heuristic's answer and the descriptors depend on.
struct LtKey {
  int Device, M, N, K, Batch, LayoutB;
  long long Lda, Ldb, Ldc, StrideA, StrideB, StrideC;
  uint32_t AlignA, AlignB, AlignC;
  bool operator<(const LtKey &O) const {
    auto Tie = [](const LtKey &X) {
      return std::tie(X.Device, X.M, X.N, X.K, X.Batch, X.LayoutB, X.Lda, X.Ldb,
                      X.Ldc, X.StrideA, X.StrideB, X.StrideC, X.AlignA,
                      X.AlignB, X.AlignC);
    };
    return Tie(*this) < Tie(O);
  }
};

/// The descriptors of one problem and the heuristic's candidates, best
/// first. cuBLASLt's "A" is our B (B^T), its "B" our A (A^T), C and D our C.
struct LtPlan {
  cublasLtMatmulDesc_t Op = nullptr;
  cublasLtMatrixLayout_t LayoutOfB = nullptr, LayoutOfA = nullptr,
                         LayoutOfC = nullptr;
  std::vector<cublasLtMatmulAlgo_t> Algos;
};

/// The device's cuBLAS handle, made on first use. Caller holds the lock.
cublasHandle_t blasHandle(DeviceState &S) {
  if (!S.Blas && cublasCreate(&S.Blas) != CUBLAS_STATUS_SUCCESS)
    S.Blas = nullptr;
  return S.Blas;
}

/// The cuBLASLt handle, workspace and event, made on first use; false if
/// they cannot be (then never again). Caller holds the lock.
bool ltReady(DeviceState &S) {
  if (S.Lt)
    return true;
  if (S.LtFailed)
    return false;
  cublasLtHandle_t Lt = nullptr;
  void *Ws = nullptr;
  cudaEvent_t Done = nullptr;
  if (cublasLtCreate(&Lt) != CUBLAS_STATUS_SUCCESS ||
      cudaMalloc(&Ws, LtWorkspaceBytes) != cudaSuccess ||
      cudaEventCreateWithFlags(&Done, cudaEventDisableTiming) != cudaSuccess) {
    if (Lt)
      cublasLtDestroy(Lt);
    if (Ws)
      cudaFree(Ws);
    cudaGetLastError(); // Not this call's error: it falls back.
    S.LtFailed = true;
    return false;
  }
  S.Lt = Lt;
  S.Workspace = Ws;
  S.WorkspaceDone = Done;
  return true;
}

/// Creates the descriptors of \p Key's problem and asks the heuristic for
/// its candidates. A failure leaves Algos empty (the call falls back).
LtPlan makeLtPlan(cublasLtHandle_t Lt, const LtKey &Key) {
  LtPlan Plan;
  const int32_t OpB =
      Key.LayoutB == CUDAOPT_GEMM_B_ROW ? CUBLAS_OP_N : CUBLAS_OP_T;
  // B^T as cuBLAS sees it before the op: N x K (row layout) or K x N.
  const bool BRow = Key.LayoutB == CUDAOPT_GEMM_B_ROW;
  bool Ok =
      cublasLtMatmulDescCreate(&Plan.Op, CUBLAS_COMPUTE_32F, CUDA_R_32F) ==
          CUBLAS_STATUS_SUCCESS &&
      cublasLtMatmulDescSetAttribute(Plan.Op, CUBLASLT_MATMUL_DESC_TRANSA, &OpB,
                                     sizeof(OpB)) == CUBLAS_STATUS_SUCCESS &&
      cublasLtMatrixLayoutCreate(&Plan.LayoutOfB, CUDA_R_32F,
                                 BRow ? Key.N : Key.K, BRow ? Key.K : Key.N,
                                 Key.Ldb) == CUBLAS_STATUS_SUCCESS &&
      cublasLtMatrixLayoutCreate(&Plan.LayoutOfA, CUDA_R_32F, Key.K, Key.M,
                                 Key.Lda) == CUBLAS_STATUS_SUCCESS &&
      cublasLtMatrixLayoutCreate(&Plan.LayoutOfC, CUDA_R_32F, Key.N, Key.M,
                                 Key.Ldc) == CUBLAS_STATUS_SUCCESS;
  if (Ok && Key.Batch > 1) {
    const int32_t Count = Key.Batch;
    const std::pair<cublasLtMatrixLayout_t, int64_t> Strided[] = {
        {Plan.LayoutOfB, Key.StrideB},
        {Plan.LayoutOfA, Key.StrideA},
        {Plan.LayoutOfC, Key.StrideC}};
    for (const auto &[Layout, Stride] : Strided)
      Ok = Ok &&
           cublasLtMatrixLayoutSetAttribute(
               Layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &Count,
               sizeof(Count)) == CUBLAS_STATUS_SUCCESS &&
           cublasLtMatrixLayoutSetAttribute(
               Layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &Stride,
               sizeof(Stride)) == CUBLAS_STATUS_SUCCESS;
  }
  cublasLtMatmulPreference_t Pref = nullptr;
  const uint64_t WsBytes = LtWorkspaceBytes;
  Ok = Ok && cublasLtMatmulPreferenceCreate(&Pref) == CUBLAS_STATUS_SUCCESS;
  const std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> Aligns[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, Key.AlignB},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, Key.AlignA},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, Key.AlignC},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, Key.AlignC}};
  Ok = Ok && cublasLtMatmulPreferenceSetAttribute(
                 Pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &WsBytes,
                 sizeof(WsBytes)) == CUBLAS_STATUS_SUCCESS;
  for (const auto &[Attr, Bytes] : Aligns)
    Ok = Ok && cublasLtMatmulPreferenceSetAttribute(
                   Pref, Attr, &Bytes, sizeof(Bytes)) == CUBLAS_STATUS_SUCCESS;
  cublasLtMatmulHeuristicResult_t Results[MaxLtAlgos] = {};
  int Count = 0;
  if (Ok && cublasLtMatmulAlgoGetHeuristic(
                Lt, Plan.Op, Plan.LayoutOfB, Plan.LayoutOfA, Plan.LayoutOfC,
                Plan.LayoutOfC, Pref, MaxLtAlgos, Results,
                &Count) == CUBLAS_STATUS_SUCCESS)
    for (int I = 0; I < Count; ++I)
      if (Results[I].state == CUBLAS_STATUS_SUCCESS &&
          Results[I].workspaceSize <= LtWorkspaceBytes)
        Plan.Algos.push_back(Results[I].algo);
  if (Pref)
    cublasLtMatmulPreferenceDestroy(Pref);
  return Plan;
}

/// The cached plan of \p Key, made on first need. Caller holds the lock.
const LtPlan &ltPlanFor(cublasLtHandle_t Lt, const LtKey &Key) {
  static std::map<LtKey, LtPlan> Plans;
  auto It = Plans.find(Key);
  if (It == Plans.end())
    It = Plans.emplace(Key, makeLtPlan(Lt, Key)).first;
  return It->second;
}

/// The key of \p P on \p Device.
LtKey keyOf(int Device, const cudaoptGemmProblem &P) {
  const bool Batched = P.Batch > 1;
  return LtKey{Device,
               P.M,
               P.N,
               P.K,
               Batched ? P.Batch : 1,
               P.LayoutB == CUDAOPT_GEMM_B_ROW ? CUDAOPT_GEMM_B_ROW
                                               : CUDAOPT_GEMM_B_COL,
               P.Lda,
               P.Ldb,
               P.Ldc,
               Batched ? P.StrideA : 0,
               Batched ? P.StrideB : 0,
               Batched ? P.StrideC : 0,
               alignmentOf(P.A),
               alignmentOf(P.B),
               alignmentOf(P.C)};
}

/// Runs \p P with the (LibraryAlgo)-th heuristic candidate. Returns
/// cudaErrorNotSupported, having enqueued nothing, when the caller should
/// run cublasSgemm instead. Caller holds the lock.
cudaError_t runLt(DeviceState &S, int Device, const cudaoptGemmProblem &P,
                  cudaStream_t Stream) {
  cudaStreamCaptureStatus Capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(Stream, &Capture) != cudaSuccess ||
      Capture != cudaStreamCaptureStatusNone || !ltReady(S))
    return cudaErrorNotSupported;
  const LtPlan &Plan = ltPlanFor(S.Lt, keyOf(Device, P));
  if (P.LibraryAlgo > static_cast<int>(Plan.Algos.size()))
    return cudaErrorNotSupported;
  // The workspace is the device's: a call on another stream than the last
  // one waits until that one is done with it.
  if (S.WorkspaceUsed && S.LastStream != Stream)
    if (cudaError_t E = cudaStreamWaitEvent(Stream, S.WorkspaceDone, 0);
        E != cudaSuccess)
      return E;
  const float Alpha = P.Alpha, Beta = P.Beta;
  cublasStatus_t St = cublasLtMatmul(
      S.Lt, Plan.Op, &Alpha, P.B, Plan.LayoutOfB, P.A, Plan.LayoutOfA, &Beta,
      P.C, Plan.LayoutOfC, P.C, Plan.LayoutOfC, &Plan.Algos[P.LibraryAlgo - 1],
      S.Workspace, LtWorkspaceBytes, Stream);
  // Rejected before anything ran: cublasSgemm takes over.
  if (St == CUBLAS_STATUS_NOT_SUPPORTED || St == CUBLAS_STATUS_INVALID_VALUE)
    return cudaErrorNotSupported;
  if (St != CUBLAS_STATUS_SUCCESS)
    return cudaErrorLaunchFailure;
  if (cudaError_t E = cudaEventRecord(S.WorkspaceDone, Stream);
      E != cudaSuccess)
    return E;
  S.LastStream = Stream;
  S.WorkspaceUsed = true;
  return cudaSuccess;
}

} // namespace

int cublasLtCandidateCount(const cudaoptGemmProblem &P) {
  int Device = 0;
  if (cudaGetDevice(&Device) != cudaSuccess || Device < 0 ||
      Device >= MaxDevices)
    return 0;
  std::lock_guard<std::mutex> Held(stateLock());
  DeviceState &State = stateFor(Device);
  if (!ltReady(State))
    return 0;
  return static_cast<int>(ltPlanFor(State.Lt, keyOf(Device, P)).Algos.size());
}

cudaError_t launchCublasSgemm(const cudaoptGemmProblem &P,
                              cudaStream_t Stream) {
  int Device = 0;
  if (cudaError_t E = cudaGetDevice(&Device); E != cudaSuccess)
    return E;
  if (Device < 0 || Device >= MaxDevices)
    return cudaErrorNotSupported;
  std::lock_guard<std::mutex> Held(stateLock());
  DeviceState &State = stateFor(Device);
  // LibraryAlgo beyond the candidates asked for: cublasSgemm, as when the
  // heuristic offers fewer.
  if (P.LibraryAlgo > 0 && P.LibraryAlgo <= MaxLtAlgos) {
    cudaError_t E = runLt(State, Device, P, Stream);
    if (E != cudaErrorNotSupported)
      return E;
  }
  cublasHandle_t H = blasHandle(State);
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
    S = cublasSgemmStridedBatched(H, OpB, CUBLAS_OP_N, P.N, P.M, P.K, &Alpha, B,
                                  P.Ldb, P.StrideB, A, P.Lda, P.StrideA, &Beta,
                                  C, P.Ldc, P.StrideC, P.Batch);
  else
    S = cublasSgemm(H, OpB, CUBLAS_OP_N, P.N, P.M, P.K, &Alpha, B, P.Ldb, A,
                    P.Lda, &Beta, C, P.Ldc);
  return S == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

} // namespace cudaopt::gemm
