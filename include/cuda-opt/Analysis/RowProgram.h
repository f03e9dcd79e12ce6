//===- RowProgram.h - Kernels that give each thread one row -----*- C++ -*-===//
//
// Part of cuda-opt. Recognises the "one thread per row" kernel shape
//
//   int r = blockIdx.x * blockDim.x + threadIdx.x;
//   if (r < rows) {                      // or: if (r >= rows) return;
//     float m = in[r * cols];            // per-row scalars
//     for (int j = 1; j < cols; ++j)     // a reduction loop
//       m = fmaxf(m, in[r * cols + j]);
//     for (int j = 0; j < cols; ++j)     // a map loop
//       out[r * cols + j] = in[r * cols + j] - m;
//     rowmax[r] = m;                     // a per-row store
//   }
//
// as a sequence of steps: straight-line statements, which compute values
// that are the same for the whole row, and counted loops over the row's
// columns whose bounds are the same for the whole row. A loop may carry
// scalars only as recurrences (Recurrence.h), and the memory it writes is
// indexed by its induction variable with a non-zero stride, so that its
// iterations are independent and may be spread over several threads. That
// is what cooperative-rows needs; anything else is refused with the reason.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_ROWPROGRAM_H
#define CUDA_OPT_ANALYSIS_ROWPROGRAM_H

#include "cuda-opt/Analysis/IndexExpr.h"
#include "cuda-opt/Analysis/Recurrence.h"
#include "cuda-opt/Analysis/ThreadMapping.h"
#include <optional>
#include <vector>

namespace cuda_opt {

/// A memory access `p[idx]` in a row loop: the pointer it goes through (a
/// parameter, or a local pointer set once from one) and its index relative
/// to that root as a polynomial over the loop's induction variable.
struct RowAccess {
  const clang::ArraySubscriptExpr *Expr = nullptr;
  /// The root pointer variable (a kernel parameter or a global).
  const clang::VarDecl *Root = nullptr;
  /// The index from the root, with the induction variable as symbol
  /// RowLoop::IndexSymbol.
  IndexExpr Index;
  /// The coefficient of the induction variable in Index (0 when Index does
  /// not depend on it affinely or depends on it otherwise as well).
  int64_t Stride = 0;
  /// Index minus Stride * j, when Stride is set: the part fixed for the row.
  std::optional<IndexExpr> Base;
  bool Read = false;
  bool Write = false;
  /// The write is a whole statement `p[idx] = e;` at the top of the loop
  /// body (the vector path can batch it).
  bool PlainStore = false;
};

/// A counted loop `for (T j = Init; j < Bound; ++j)` of the per-row work.
struct RowLoop {
  const clang::ForStmt *Loop = nullptr;
  const clang::VarDecl *Var = nullptr;
  const clang::Expr *Init = nullptr;
  const clang::Expr *Bound = nullptr;
  /// `j <= Bound`.
  bool Inclusive = false;
  /// Init's value when it is a constant.
  std::optional<int64_t> ConstStart;
  /// The body has a `continue` (at any depth).
  bool ContainsContinue = false;
  /// The scalars the loop carries.
  llvm::SmallVector<Recurrence, 2> Recurrences;
  /// Every `p[idx]` in the loop.
  std::vector<RowAccess> Accesses;
  /// The symbol standing for the induction variable in RowAccess::Index.
  unsigned IndexSymbol = 0;
  bool WritesMemory = false;
  bool ReadsMemory = false;
};

/// One top-level statement of the per-row work.
struct RowStep {
  enum StepKind {
    Scalar, ///< computes per-row values in locals (every thread of a row)
    Store,  ///< writes memory or has other effects (one thread per row)
    Loop,   ///< a RowLoop
  };
  StepKind Kind = Scalar;
  const clang::Stmt *S = nullptr;
  /// Kind == Loop: index into RowProgram::Loops.
  int LoopIndex = -1;
  bool ReadsMemory = false;
  bool WritesMemory = false;
  /// A straight-line step with a `return` (which ends the row).
  bool Returns = false;
};

struct RowProgram {
  /// The row index, its guard and the per-row work (ThreadMapping.h).
  ThreadMapping Mapping;
  std::vector<RowStep> Steps;
  std::vector<RowLoop> Loops;
  /// The symbols of the loops' index polynomials.
  SymbolTable Symbols;

  const clang::VarDecl *rowVar() const { return Mapping.x().Var; }
};

/// Recognise the row program of \p K, or say why it is not one.
llvm::Expected<RowProgram> analyzeRowProgram(clang::ASTContext &Ctx,
                                             const KernelInfo &K);

/// Why the memory behind the pointers \p A and \p B (kernel parameters or
/// global arrays) might overlap, or nothing when it provably does not
/// (`__restrict__` on both, or separate allocations at every launch).
std::optional<std::string> rowPointersMayOverlap(clang::ASTContext &Ctx,
                                                 const KernelInfo &K,
                                                 const clang::VarDecl *A,
                                                 const clang::VarDecl *B);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_ROWPROGRAM_H
