//===- BlockReduction.h - Kernels that reduce into one target ---*- C++ -*-===//
//
// Part of cuda-opt. Recognises kernels whose whole effect is a reduction of
// per-element values e(i), i in [0, n), into one address that is the same
// for every thread of every block, in three shapes:
//
//   per-element atomic     int i = blockIdx.x * blockDim.x + threadIdx.x;
//                          if (i < n) atomicAdd(out, e(i));
//
//   shared-memory tree     sh[tid] = i < n ? e(i) : identity;
//                          __syncthreads();
//                          for (s = blockDim.x / 2; s > 0; s >>= 1) {
//                            if (tid < s) sh[tid] += sh[tid + s];
//                            __syncthreads();
//                          }
//                          if (tid == 0) atomicAdd(out, sh[0]);
//
//   grid-stride loop       for (i = blockIdx.x * blockDim.x + threadIdx.x;
//                               i < n; i += blockDim.x * gridDim.x)
//                            atomicAdd(out, e(i));
//
// (any combining atomic, or a __device__ compare-and-swap helper, see
// AtomicOps.h), with the facts block-reduce needs to fold them with warp
// shuffles: the combining operation and its identity, the element
// expression, the launches.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_BLOCKREDUCTION_H
#define CUDA_OPT_ANALYSIS_BLOCKREDUCTION_H

#include "cuda-opt/Analysis/AtomicOps.h"
#include "cuda-opt/Analysis/ThreadMapping.h"

namespace cuda_opt {

struct BlockReduction {
  enum class Shape { ElementAtomic, SharedTree, GridStride };
  Shape Form = Shape::ElementAtomic;
  /// The combining operation and the accumulator's type.
  CombineOp Op = CombineOp::Sum;
  clang::QualType Type;
  /// The update of the target: once per element (ElementAtomic,
  /// GridStride) or once per block with the tree's result (SharedTree).
  AtomicUpdate Update;
  /// The index and its guard. For ElementAtomic the full one-element-per-
  /// thread mapping; for SharedTree the index, its bound and the region from
  /// the fill to the end of the kernel; for GridStride the loop variable.
  ThreadMapping Mapping;
  /// The accumulator's starting value as source text: the tree's own fill
  /// value when it has one, else the identity of the operation.
  std::string Identity;

  // SharedTree only.
  /// e(i): what an in-range thread writes into the shared array.
  const clang::Expr *Element = nullptr;
  /// The statements the rewrite removes besides the region: the shared
  /// array's and the index's declarations.
  llvm::SmallVector<const clang::Stmt *, 4> Removed;

  // GridStride only.
  const clang::ForStmt *Loop = nullptr;

  /// Each launch's block size when the rewrite needs it (SharedTree: the
  /// tree is a block reduction only for a power-of-two block).
  llvm::SmallVector<LaunchShape, 4> Launches;
};

/// Recognise one of the shapes above in \p K, or say why it is not there.
llvm::Expected<BlockReduction> analyzeBlockReduction(clang::ASTContext &Ctx,
                                                     const KernelInfo &K);

/// Calls in \p S that have an effect other threads can see, apart from
/// \p Allowed: stores through pointers, atomics, and calls of functions that
/// are not side-effect free. The first one's description ("writes 'y[i]'
/// at f.cu:3:5"), or "" when there is none.
std::string findOtherEffect(clang::ASTContext &Ctx, const clang::Stmt *S,
                            llvm::ArrayRef<const clang::CallExpr *> Allowed);

/// True when \p E is `threadIdx.x`, `blockIdx.x * blockDim.x +
/// threadIdx.x` (either order) and friends.
bool isThreadIdxX(const clang::Expr *E);
bool isGlobalIndexX(const clang::Expr *E);
/// `blockDim.x * gridDim.x` in either order.
bool isGridStrideX(const clang::Expr *E);
/// True when \p E reads threadIdx, blockIdx, blockDim or gridDim.
bool readsBuiltinIndex(const clang::Stmt *S);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_BLOCKREDUCTION_H
