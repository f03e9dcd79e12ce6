//===- Api.cpp - the public entry points of the GEMM runtime --------------===//

#include "Internal.h"
#include "Model.h"
#include "Sm90Params.h"
#include "Table.h"

#include <mutex>

using namespace cudaopt::gemm;

namespace {

bool planRunnable(const cudaoptGemmProblem &P, const cudaoptGemmPlan &Plan) {
  if (Plan.Kernel == -1)
    return true;
  const KernelInfo *K = kernelInfo(Plan.Kernel);
  if (!K || !sm90Supports(P))
    return false;
  const bool Cluster = Plan.ClusterM > 1 || Plan.ClusterN > 1;
  const bool SplitCluster = Plan.SplitCluster && Plan.Splits > 1;
  // The swapped narrow tiles: no multicast pair (it would share the small
  // operand), no ping-pong kernel.
  if (K->swapsOperands() && (Cluster || Plan.PingPong))
    return false;
  if (Plan.PingPong) // its own kernel: whole tiles, no other option
    return !mmaSyncRows(Plan.Kernel) &&
           pingPongAllowed(K->BM, K->BN, K->Consumers) && Plan.Splits <= 1 &&
           !Plan.DualAcc && !Cluster && !SplitCluster;
  if (mmaSyncRows(Plan.Kernel)) // any shape; M is tiled over the grid
    return !Plan.DualAcc && !Cluster && !SplitCluster;
  if (Plan.DualAcc && !dualAccAllowed(K->BM, K->BN, K->Consumers))
    return false;
  if (Cluster)
    return Plan.Splits <= 1 && !SplitCluster && Plan.ClusterM <= 2 &&
           Plan.ClusterN <= 2 && (Plan.ClusterM <= 1 || Plan.ClusterN <= 1);
  if (SplitCluster)
    return Plan.Splits <= 8;
  return Plan.Splits <= 1 || splitKAllowed(K->BM, K->BN);
}

/// The library's own split-K workspace, grown on demand and kept zeroed.
cudaError_t internalWorkspace(size_t Bytes, void **Ptr) {
  static std::mutex Lock;
  static void *Buffer = nullptr;
  static size_t Size = 0;
  std::lock_guard<std::mutex> Guard(Lock);
  if (Size < Bytes) {
    if (Buffer)
      cudaFree(Buffer);
    Buffer = nullptr;
    Size = 0;
    cudaError_t Err = cudaMalloc(&Buffer, Bytes);
    if (Err != cudaSuccess)
      return Err;
    Err = cudaMemset(Buffer, 0, Bytes);
    if (Err != cudaSuccess)
      return Err;
    Size = Bytes;
  }
  *Ptr = Buffer;
  return cudaSuccess;
}

/// Runs each problem of a batch on its own (the tensor-core kernels take
/// one problem per launch); Run is called with Batch == 1 problems.
template <typename RunOne>
cudaError_t eachOfBatch(const cudaoptGemmProblem &P, RunOne Run) {
  const size_t Elem = P.Type == CUDAOPT_GEMM_F32 ? 4 : 2;
  for (int B = 0; B < P.Batch; ++B) {
    cudaoptGemmProblem Q = P;
    Q.Batch = 1;
    Q.A = static_cast<const char *>(P.A) + B * P.StrideA * Elem;
    Q.B = static_cast<const char *>(P.B) + B * P.StrideB * Elem;
    Q.C = static_cast<char *>(P.C) + B * P.StrideC * Elem;
    if (cudaError_t E = Run(Q); E != cudaSuccess)
      return E;
  }
  return cudaSuccess;
}

/// Whether P is a batch that eachOfBatch must split (the fp32 kernel runs
/// a batch in one launch).
bool splitBatch(const cudaoptGemmProblem &P) {
  return P.Batch > 1 && P.Type != CUDAOPT_GEMM_F32;
}

} // namespace

extern "C" {

size_t cudaoptGemmWorkspaceBytes(const cudaoptGemmProblem *P,
                                 const cudaoptGemmPlan *Plan) {
  if (!kernelInfo(Plan->Kernel) || Plan->Splits <= 1 || Plan->SplitCluster)
    return 0;
  return splitWorkspaceBytes(P->M, P->N, Plan->Splits);
}

cudaError_t cudaoptGemmRun(const cudaoptGemmProblem *P,
                           const cudaoptGemmPlan *Plan, void *Workspace,
                           size_t WorkspaceBytes, cudaStream_t Stream) {
  if (!P || !Plan || !planRunnable(*P, *Plan))
    return cudaErrorInvalidValue;
  if (splitBatch(*P))
    return eachOfBatch(*P, [&](const cudaoptGemmProblem &Q) {
      return cudaoptGemmRun(&Q, Plan, Workspace, WorkspaceBytes, Stream);
    });
  if (Plan->Kernel == -1)
    return launchFallback(*P, Stream);
  return kernelInfo(Plan->Kernel)
      ->Launch(*P, *Plan, Workspace, WorkspaceBytes, Stream);
}

int cudaoptGemmPlanValid(const cudaoptGemmProblem *P,
                         const cudaoptGemmPlan *Plan) {
  return P && Plan && planRunnable(*P, *Plan);
}

int cudaoptGemmSelect(const cudaoptGemmProblem *P, cudaoptGemmPlan *Plan) {
  if (!sm90Supports(*P)) {
    *Plan = cudaoptGemmPlan{-1, 1, 0, 1};
    return 0;
  }
  // A table row from an older build may name a plan this build cannot run.
  const cudaoptGemmPlan *Tuned = lookupTuned(*P);
  if (Tuned && planRunnable(*P, *Tuned)) {
    *Plan = *Tuned;
    return 1;
  }
  int Sms = 132;
  multiProcessorCount(&Sms);
  if (rankPlans(*P, Sms, Plan, 1) == 0)
    *Plan = cudaoptGemmPlan{-1, 1, 0, 1};
  return 0;
}

int cudaoptGemmCandidates(const cudaoptGemmProblem *P, cudaoptGemmPlan *Plans,
                          int MaxPlans) {
  if (!sm90Supports(*P) || MaxPlans < 1)
    return 0;
  int Sms = 132;
  multiProcessorCount(&Sms);
  return rankPlans(*P, Sms, Plans, MaxPlans);
}

cudaError_t cudaoptGemm(const cudaoptGemmProblem *P, void *Workspace,
                        size_t WorkspaceBytes, cudaStream_t Stream) {
  if (!P)
    return cudaErrorInvalidValue;
  if (splitBatch(*P))
    return eachOfBatch(*P, [&](const cudaoptGemmProblem &Q) {
      return cudaoptGemm(&Q, Workspace, WorkspaceBytes, Stream);
    });
  cudaoptGemmPlan Plan;
  cudaoptGemmSelect(P, &Plan);
  size_t Need = cudaoptGemmWorkspaceBytes(P, &Plan);
  if (Need > 0 && (!Workspace || WorkspaceBytes < Need)) {
    if (Workspace || internalWorkspace(Need, &Workspace) != cudaSuccess) {
      Plan.Splits = 1; // a caller's buffer is too small: run without splits
      Workspace = nullptr;
    }
    WorkspaceBytes = Need;
  }
  return cudaoptGemmRun(P, &Plan, Workspace, WorkspaceBytes, Stream);
}

int cudaoptGemmNumKernels(void) { return numKernels(); }

const char *cudaoptGemmKernelName(int Kernel) {
  if (Kernel == -1)
    return "fallback";
  const KernelInfo *K = kernelInfo(Kernel);
  return K ? K->Name : nullptr;
}

int cudaoptGemmMaxActiveClusters(int Kernel, int ClusterSize) {
  const KernelInfo *K = kernelInfo(Kernel);
  return K && K->MaxActiveClusters ? K->MaxActiveClusters(ClusterSize) : 0;
}

const char *cudaoptGemmTableVersion(void) { return tableVersion(); }

} // extern "C"
