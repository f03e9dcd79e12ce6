/*===- cudaopt/gemm.h - shape-specialised GEMM for Hopper ---------*- C -*-===//
//
// Public API of the cuda-opt GEMM runtime (issue 4). The gemm-specialize
// transform rewrites recognised GEMMs (kernels, cublasGemmEx, cublasLtMatmul)
// into calls of cudaoptGemm().
//
// Semantics (all matrices dense, C row-major):
//   C[M x N] = Alpha * A[M x K] * B[K x N] + Beta * C
//   A: row-major, element (m, k) at A[m * Lda + k]
//   B: CUDAOPT_GEMM_B_COL: element (k, n) at B[n * Ldb + k] ("TN", nn.Linear
//      weight layout); CUDAOPT_GEMM_B_ROW: element (k, n) at B[k * Ldb + n]
//   C: element (m, n) at C[m * Ldc + n]; not read when Beta == 0
// fp16 or bf16 in and out, fp32 accumulation (tensor cores); or fp32 in and
// out (CUDAOPT_GEMM_F32), computed exactly as a sequential fp32 FMA chain
// over k on the CUDA cores (lib/Sgemm.cu), or by cuBLAS SGEMM / a cuBLASLt
// fp32 algorithm (LibraryAlgo) when the problem allows Reassociate. Runs
// asynchronously on Stream.
//
//===----------------------------------------------------------------------===*/

#ifndef CUDAOPT_GEMM_H
#define CUDAOPT_GEMM_H

#include <cuda_runtime.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CUDAOPT_GEMM_F16 = 0,
  CUDAOPT_GEMM_BF16 = 1,
  CUDAOPT_GEMM_F32 = 2 /* fp32 FFMA, no tensor cores; plan is always -1 */
} cudaoptGemmType;

typedef enum {
  CUDAOPT_GEMM_B_COL = 0, /* B stored N x K, K contiguous */
  CUDAOPT_GEMM_B_ROW = 1  /* B stored K x N, N contiguous */
} cudaoptGemmBLayout;

typedef struct {
  int M, N, K;
  cudaoptGemmType Type;
  cudaoptGemmBLayout LayoutB;
  const void *A;
  long long Lda;
  const void *B;
  long long Ldb;
  void *C;
  long long Ldc;
  float Alpha, Beta;
  /* Batched problems: Batch of them (0 or 1: one), the b-th reading
   * A + b * StrideA and B + b * StrideB and writing C + b * StrideC
   * (elements). An initialiser that stops after Beta leaves these zero.
   * fp32 runs all of them in one launch; fp16/bf16 one launch each. */
  int Batch;
  long long StrideA, StrideB, StrideC;
  /* fp32 only: 0 keeps the exact sequential FMA chain over k (lib/Sgemm.cu,
   * bit for bit the naive kernel's result); 1 lets the sum over k run in
   * another order: cuBLAS SGEMM (fp32 FFMA, no TF32), faster, results differ
   * in the last bits (cuda-opt emits it only under --fp-model=reassoc, after
   * verifying it against the fp64 reference). Ignored for fp16/bf16. */
  int Reassociate;
  /* fp32 with Reassociate only: 0 runs cublasSgemm (or
   * cublasSgemmStridedBatched); k >= 1 runs the k-th candidate of cuBLASLt's
   * heuristic for the problem (CUBLAS_COMPUTE_32F: fp32 FFMA, never TF32),
   * falling back to cublasSgemm when the heuristic offers fewer than k or the
   * candidate cannot run. cuda-opt's tuner times each k and keeps the
   * fastest (gemm-specialize{f32-cublas=1,lt-algo=k}). An initialiser that
   * stops after Reassociate leaves it zero. Ignored otherwise. */
  int LibraryAlgo;
} cudaoptGemmProblem;

/* One point of the kernel family. Kernel indexes the compiled sm_90a
 * configurations (cudaoptGemmKernelName); -1 is the portable fallback.
 * Fields after Splits are zero in a plan written as {Kernel, Group,
 * RasterN, Splits}, which keeps such initialisers (older tables, emitted
 * code) meaning what they meant. */
typedef struct {
  int Kernel;   /* configuration id, or -1 */
  int Group;    /* tiles per raster group (of clusters), >= 1 */
  int RasterN;  /* 0: raster groups run along M, 1: along N */
  int Splits;   /* K splits, >= 1; > 1 needs a workspace unless SplitCluster */
  int DualAcc;  /* 1: two accumulator sets, even/odd K blocks (tiles whose
                   per-consumer share is at most 64 x 128) */
  int ClusterM; /* 0/1, or 2: pairs of CTAs on adjacent M tiles, each loading
                   half of the shared B tile and multicasting it (Splits 1) */
  int ClusterN; /* 0/1, or 2: the same along N, sharing the A tile */
  int SplitCluster; /* 1: the Splits (2..8) K splits of a tile form one
                       thread-block cluster and add their partial tiles
                       through distributed shared memory; no workspace */
  int PingPong;     /* 1: ping-pong consumers (two-consumer configurations of
                       at least 128 x 128, Splits 1, no other option): each
                       consumer warpgroup owns a whole BM/2 x BN tile, and
                       one's epilogue runs under the other's main loop */
} cudaoptGemmPlan;

/* Picks a plan (tuned table entry if the shape is in it, else the cost
 * model's first choice) and runs it. Workspace may be NULL: then an
 * internal one is used (allocated on first need; not capture-safe the first
 * time). A caller's workspace (split-K tile counters, then an M x N fp32
 * accumulator; cudaoptGemmWorkspaceBytes says how much) must be zero before
 * its first use, e.g. cudaMemset after cudaMalloc; the kernels leave it
 * zero. Use one workspace per stream. */
cudaError_t cudaoptGemm(const cudaoptGemmProblem *P, void *Workspace,
                        size_t WorkspaceBytes, cudaStream_t Stream);

/* Runs a given plan; returns cudaErrorInvalidValue if the plan cannot run
 * this problem (alignment, workspace) instead of falling back silently. */
cudaError_t cudaoptGemmRun(const cudaoptGemmProblem *P,
                           const cudaoptGemmPlan *Plan, void *Workspace,
                           size_t WorkspaceBytes, cudaStream_t Stream);

/* 1 if Plan can run P on the current device (workspace aside). */
int cudaoptGemmPlanValid(const cudaoptGemmProblem *P,
                         const cudaoptGemmPlan *Plan);

/* The plan cudaoptGemm would use: 1 if it came from the tuned table. */
int cudaoptGemmSelect(const cudaoptGemmProblem *P, cudaoptGemmPlan *Plan);

/* Up to MaxPlans runnable plans ranked by the cost model, best first;
 * returns how many were written. The tuner measures a few of these. */
int cudaoptGemmCandidates(const cudaoptGemmProblem *P, cudaoptGemmPlan *Plans,
                          int MaxPlans);

/* Workspace bytes a plan needs (0 when Splits == 1 or SplitCluster): 64 KB
 * of counters and one M x N fp32 accumulator, whatever the split count. */
size_t cudaoptGemmWorkspaceBytes(const cudaoptGemmProblem *P,
                                 const cudaoptGemmPlan *Plan);

/* Number of compiled sm_90a configurations and a printable name for each
 * ("128x256x64_c2_s4"); NULL for an unknown id. */
int cudaoptGemmNumKernels(void);
const char *cudaoptGemmKernelName(int Kernel);

/* How many clusters of ClusterSize CTAs of compiled configuration Kernel
 * fit on the current device at once (what bounds cluster plans); 0 if
 * unknown or the kernel is never launched as clusters. */
int cudaoptGemmMaxActiveClusters(int Kernel, int ClusterSize);

/* Version of the tuned table compiled in. */
const char *cudaoptGemmTableVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* CUDAOPT_GEMM_H */
