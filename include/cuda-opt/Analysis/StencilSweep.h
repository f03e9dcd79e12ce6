//===- StencilSweep.h - Prove a 2-D kernel is one stencil sweep -*- C++ -*-===//
//
// Part of cuda-opt. temporal-block advances several sweeps of a stencil per
// launch through a shared-memory tile. It needs the kernel to be one sweep
// of a 2-D stencil over a row-major grid whose row pitch is the x bound:
//
//   int x = blockIdx.x * blockDim.x + threadIdx.x;
//   int y = blockIdx.y * blockDim.y + threadIdx.y;
//   if (x < nx && y < ny) {
//     int i = y * nx + x;
//     if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
//       next[i] = cur[i];
//     else
//       next[i] = 0.5f * cur[i] + 0.125f * (cur[i - 1] + cur[i + 1] + ...);
//   }
//
// This matcher proves, or says why not:
//  * every access to the input grid `cur` is a read at a constant offset
//    (dx, dy) from the thread's own cell, `cur[(y + dy) * nx + x + dx]`;
//  * the output grid `next` is only written, at the own cell, exactly once
//    on every path through the per-element work (so a sweep defines every
//    cell of the grid), and never read;
//  * each read stays inside the grid: the conditions that guard it imply
//    x + dx and y + dy lie in [0, nx) and [0, ny) (so the linear index and
//    the 2-D offset name the same cell, and a tile needs no cells outside
//    the grid);
//  * the work does not look at which thread runs it, has no loops that
//    write the output, no returns, and other pointers are only read.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_STENCILSWEEP_H
#define CUDA_OPT_ANALYSIS_STENCILSWEEP_H

#include "cuda-opt/Analysis/ThreadMapping.h"
#include "clang/AST/Expr.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace cuda_opt {

/// One read of the input grid: `In[index]` at offset (DX, DY).
struct StencilRead {
  const clang::ArraySubscriptExpr *E = nullptr;
  int64_t DX = 0, DY = 0;
};

struct StencilSweep {
  /// The 2-D mapping: x, y, their bounds, the guard and the work.
  ThreadMapping M;
  /// The grid read (`cur`) and the grid written (`next`).
  const clang::ParmVarDecl *In = nullptr, *Out = nullptr;
  /// The row pitch: the parameter that bounds x (`nx`).
  const clang::ParmVarDecl *Pitch = nullptr;
  std::vector<StencilRead> Reads;
  /// The left-hand sides `Out[index]` of the writes (one per path).
  std::vector<const clang::ArraySubscriptExpr *> Writes;
  /// The largest |dx| or |dy| of a read.
  int64_t Radius = 0;
  /// The grid's element type, without qualifiers.
  clang::QualType Element;
  /// What was proven, for notes.
  std::string Summary;
};

/// Prove that \p K is one sweep of a 2-D stencil, or say why not. Launches
/// are not looked at.
llvm::Expected<StencilSweep> matchStencilSweep(clang::ASTContext &Ctx,
                                               const KernelInfo &K);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_STENCILSWEEP_H
