//===- GemmKernelMatch.h - Prove a kernel is a row-major GEMM ---*- C++ -*-===//
//
// Part of cuda-opt. gemm-specialize replaces the launch of a GEMM kernel with
// a cudaoptGemm call. That is only sound when the kernel computes exactly
// C = alpha * A * B for row-major 16-bit A, B, C with an fp32 accumulator,
// which this matcher proves from the kernel model's index polynomials, or
// explains why it cannot.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_GEMMKERNELMATCH_H
#define CUDA_OPT_ANALYSIS_GEMMKERNELMATCH_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/GemmProblem.h"
#include "llvm/Support/Error.h"
#include <optional>

namespace cuda_opt {

/// What the kernel computes, as indices of its parameters.
struct GemmKernelMatch {
  unsigned A = 0, B = 0, C = 0;
  unsigned M = 0, N = 0, K = 0;
  /// A scalar parameter the result is multiplied by before the store.
  std::optional<unsigned> Alpha;
  /// B read as B[col * K + k] (stored N x K) instead of B[k * N + col].
  bool BColumnMajor = false;
  bool BF16 = false;
  bool F32 = false; ///< fp32 A, B, C (the CUDA-core kernel)
  /// The launch dimension (0 = x, 1 = y, 2 = z) that indexes rows and
  /// columns of C.
  unsigned RowDim = 1, ColDim = 0;
  /// Batched (`b = blockIdx.d`, guard `b < batch`, packed strides): the
  /// batch-count parameter and d.
  std::optional<unsigned> Batch;
  unsigned BatchDim = 2;
};

/// Prove that \p K is a plain row-major GEMM, or say why not.
llvm::Expected<GemmKernelMatch> matchGemmKernel(clang::ASTContext &Ctx,
                                                const KernelInfo &K);

/// The cudaoptGemm problem one launch of a matched kernel computes, or why
/// the launch cannot be replaced (arguments with side effects, a grid that
/// does not cover the output).
llvm::Expected<GemmProblem> problemAtLaunch(clang::ASTContext &Ctx,
                                            const KernelInfo &K,
                                            const GemmKernelMatch &Match,
                                            const LaunchSite &L);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_GEMMKERNELMATCH_H
