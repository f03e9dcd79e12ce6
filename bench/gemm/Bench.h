//===- Bench.h - shared pieces of the GEMM benchmark ------------*- C++ -*-===//
//
// The benchmark times cuda-opt's GEMM against cuBLAS (cublasGemmEx, default
// algorithm), cuBLASLt (heuristic top-1, 32 MB workspace) and cuBLASLt
// autotuned (best measured of its top heuristic candidates), in one process,
// interleaved, with the L2 flushed before every sample and inputs rotated
// within a sample. See docs/gemm.md.
//
//===----------------------------------------------------------------------===//

#ifndef CUDAOPT_BENCH_GEMM_BENCH_H
#define CUDAOPT_BENCH_GEMM_BENCH_H

#include "cudaopt/gemm.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define BENCH_CHECK(X)                                                         \
  do {                                                                         \
    cudaError_t Err_ = (X);                                                    \
    if (Err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #X,          \
                   cudaGetErrorString(Err_));                                  \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

namespace bench {

/// One input/output set: A, B and C of one problem, C with guard bands.
struct Operands {
  void *A, *B, *C;
};

/// Device buffers of one shape: Sets independent operand sets.
struct ShapeBuffers {
  int M, N, K;
  cudaoptGemmType Type;
  cudaoptGemmBLayout Layout;
  std::vector<Operands> Sets;
  size_t GuardBytes;
  cudaoptGemmProblem problem(int Set, float Alpha = 1.0f,
                             float Beta = 0.0f) const;
};

// Kernels (Kernels.cu).
void fillNormal(void *Ptr, size_t Count, bool Bf16, unsigned long long Seed,
                float Mean, float Scale, cudaStream_t S);
void fillUniform(void *Ptr, size_t Count, bool Bf16, unsigned long long Seed,
                 float Lo, float Hi, cudaStream_t S);
void fillUniformF32(float *Ptr, size_t Count, unsigned long long Seed,
                    float Lo, float Hi, cudaStream_t S);
/// Random 0 or 1 in every element.
void fillBinary(void *Ptr, size_t Count, bool Bf16, unsigned long long Seed,
                cudaStream_t S);
/// fp32-accumulated reference of the listed rows of C = A * B.
void referenceRows(const cudaoptGemmProblem &P, const int *Rows, int NumRows,
                   float *Out, cudaStream_t S);
/// Returns sum((C - Ref)^2), sum(Ref^2) over the listed rows; counts
/// non-finite values over the whole of C (poisoned with NaN before the run).
struct CompareResult {
  double ErrSq = 0, RefSq = 0;
  unsigned long long NonFinite = 0, GuardBad = 0;
  double relErr() const;
};
CompareResult compareRows(const cudaoptGemmProblem &P, const int *Rows,
                          int NumRows, const float *Ref, const void *Cold,
                          const void *GuardLo, const void *GuardHi,
                          size_t GuardBytes, cudaStream_t S);

// Timing (Timer.cpp).
using Enqueue = std::function<bool(cudaStream_t, int Set)>;

struct Stats {
  double Median = 0, P10 = 0, P90 = 0, Min = 0, Max = 0;
  int Samples = 0;
};

class Timer {
public:
  Timer(cudaStream_t S, size_t FlushBytes);
  ~Timer();
  /// Captures Calls back-to-back calls (call i on set i % Sets) into a graph.
  /// Returns false if any enqueue failed.
  bool build(const Enqueue &E, int Calls, int Sets, cudaGraphExec_t *Out);
  /// Times the graphs interleaved: per round, for each graph, flush L2 then
  /// time one replay. Returns per-graph stats of the time per call (ms).
  std::vector<Stats> run(const std::vector<cudaGraphExec_t> &Graphs, int Calls,
                         int Rounds);

private:
  cudaStream_t Stream;
  void *Flush;
  size_t FlushBytes;
};

Stats summarize(std::vector<double> V);

// cuBLAS / cuBLASLt (Baselines.cpp).
class Baselines {
public:
  explicit Baselines(cudaStream_t S);
  ~Baselines();
  /// cublasGemmEx, default algorithm, CUBLAS_COMPUTE_32F.
  bool gemmEx(const cudaoptGemmProblem &P, cudaStream_t S);
  /// cublasGemmEx with CUBLAS_COMPUTE_16F (fp16 accumulation): only used to
  /// show that the fp32-accumulation test catches fp16 accumulation.
  bool gemmEx16(const cudaoptGemmProblem &P, cudaStream_t S);
  /// Up to Max cuBLASLt heuristic algorithms for P's shape, best first.
  int ltPrepare(const cudaoptGemmProblem &P, int Max);
  bool lt(const cudaoptGemmProblem &P, int Algo, cudaStream_t S);
  int ltCount() const { return static_cast<int>(Algos.size()); }

private:
  cublasHandle_t Handle;
  cublasLtHandle_t LtHandle;
  void *LtWorkspace;
  size_t LtWorkspaceBytes;
  cublasLtMatmulDesc_t Desc = nullptr;
  cublasLtMatrixLayout_t LA = nullptr, LB = nullptr, LC = nullptr;
  std::vector<cublasLtMatmulAlgo_t> Algos;
  void ltRelease();
};

} // namespace bench

#endif // CUDAOPT_BENCH_GEMM_BENCH_H
