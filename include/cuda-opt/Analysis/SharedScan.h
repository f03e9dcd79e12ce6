//===- SharedScan.h - Block-wide prefix sums in shared memory ---*- C++ -*-===//
//
// Part of cuda-opt. Recognises the textbook (Hillis-Steele) inclusive prefix
// sum of a 1-D block over a shared array, at the top level of a kernel:
//
//   for (int d = 1; d < blockDim.x; d *= 2) {
//     T v = 0;                        // or: T v = tid >= d ? a[tid - d] : 0;
//     if (tid >= d)
//       v = a[tid - d];
//     __syncthreads();
//     a[tid] += v;                    // or: a[tid] = a[tid] + v;
//     __syncthreads();
//   }
//
// with `tid` threadIdx.x (or a local initialised with it and never written)
// and `a` a __shared__ array of an arithmetic type. After the loop,
// a[t] = a[0] + ... + a[t] for every t < blockDim.x, in the order of the
// tree (exact for integers; a reassociated sum for floats).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_SHAREDSCAN_H
#define CUDA_OPT_ANALYSIS_SHAREDSCAN_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "clang/AST/Stmt.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace cuda_opt {

struct SharedScan {
  const clang::ForStmt *Loop = nullptr;
  /// The shared array and its element type.
  const clang::VarDecl *Array = nullptr;
  clang::QualType Element;
  /// The thread index as written (`threadIdx.x` or the local's name).
  std::string Tid;
};

/// Whether \p E is the additive identity as a constant (0, 0.0f, T(0)): the
/// value a scan pads with.
bool isAdditiveIdentity(const clang::ASTContext &Ctx, const clang::Expr *E);

/// Every such loop of \p K, or why there is none. A loop that looks like a
/// scan but fails a condition is reported in the error when no loop matches.
llvm::Expected<std::vector<SharedScan>>
analyzeSharedScans(clang::ASTContext &Ctx, const KernelInfo &K);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_SHAREDSCAN_H
