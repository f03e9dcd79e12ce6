//===- ThreadMapping.h - How a kernel maps threads to elements --*- C++ -*-===//
//
// Part of cuda-opt. Recognises the "one element per thread" kernel shape
//
//   int i = blockIdx.x * blockDim.x + threadIdx.x;
//   if (i < n) { body }          or     if (i >= n) return; body
//
// (and its 2-D form over .x and .y), and the matching launch shape
// `k<<<(n + 255) / 256, 256>>>(..., n)`, so that transforms which change how
// threads map to work (block-size, grid-stride, coarsen, vectorize) can check
// legality in one place and say why when the shape is not there.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_THREADMAPPING_H
#define CUDA_OPT_ANALYSIS_THREADMAPPING_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <optional>

namespace cuda_opt {

/// One dimension of the mapping: `T i = blockIdx.a * blockDim.a +
/// threadIdx.a;` guarded by `i < Bound` (or `i <= Bound`).
struct MappedIndex {
  const clang::VarDecl *Var = nullptr;
  const clang::DeclStmt *Decl = nullptr;
  /// The guard's bound: `n` in `i < n`.
  const clang::Expr *Bound = nullptr;
  /// The guard is `i <= Bound` rather than `i < Bound`.
  bool Inclusive = false;
  /// 0 for .x, 1 for .y.
  unsigned Axis = 0;
};

/// The recognised one-element-per-thread shape of a kernel.
struct ThreadMapping {
  /// One entry for a 1-D kernel, two (x then y) for a 2-D one, whichever
  /// of the two the kernel declares first.
  llvm::SmallVector<MappedIndex, 2> Dims;
  const clang::IfStmt *Guard = nullptr;
  /// The guard is `if (i >= n) return;` and the per-element work follows it.
  bool EarlyReturn = false;
  /// Conditions of a 1-D guard after its bound, `in[i] > t` in
  /// `if (i < n && in[i] > t)`: only with GuardConditions::Allow, for
  /// transforms that keep the guard's text as it is around the work
  /// (block-reduce, privatize-atomics), never as a loop condition.
  llvm::SmallVector<const clang::Expr *, 2> Conditions;
  /// The per-element work: the guard's then-branch, or the statements after
  /// an early-return guard.
  llvm::SmallVector<const clang::Stmt *, 4> Body;
  /// From the first index declaration to the end of the per-element work:
  /// the text that loop-forming transforms replace.
  clang::SourceRange Region;

  unsigned rank() const { return Dims.size(); }
  const MappedIndex &x() const { return Dims.front(); }
};

/// Whether a guard may test more than the bounds (ThreadMapping::Conditions).
enum class GuardConditions { Refuse, Allow };

/// Recognise the shape in \p K, or say why it is not there.
llvm::Expected<ThreadMapping>
analyzeThreadMapping(clang::ASTContext &Ctx, const KernelInfo &K,
                     GuardConditions Extra = GuardConditions::Refuse);

/// A launch whose grid is the usual ceil-div of a work size by the block
/// size, e.g. `<<<(n + 255) / 256, 256>>>` or
/// `<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>`.
struct LaunchShape {
  const LaunchSite *Site = nullptr;
  /// Per mapped dimension: the work size (`n`) and the block size expression
  /// as they were written (possibly inside a local variable's initialiser).
  llvm::SmallVector<const clang::Expr *, 2> Work;
  llvm::SmallVector<const clang::Expr *, 2> Block;
  /// Per mapped dimension, the block size when it is a compile-time constant.
  llvm::SmallVector<std::optional<int64_t>, 2> BlockValue;
};

/// What analyzeLaunches asks of the grid and block axes \p M does not map.
enum class UnmappedAxes {
  /// They must be 1 (the kernel maps exactly M's axes).
  MustBeOne,
  /// Anything: the caller rewrites only M's axes and keeps the others as
  /// they are (coarsen{axis=y} passes just the y index, whatever x and z do).
  Any
};

/// Check that every launch of \p K is outside macros, has a recoverable
/// ceil-div grid over the mapped dimensions, and that the grid covers the
/// bound the kernel is passed. Fails with the reason (also when the kernel
/// is not launched in this file).
llvm::Expected<llvm::SmallVector<LaunchShape, 4>>
analyzeLaunches(clang::ASTContext &Ctx, const KernelInfo &K,
                const ThreadMapping &M,
                UnmappedAxes Others = UnmappedAxes::MustBeOne);

/// The top-level `return;` statements of \p Stmts, which can become
/// `continue` when the statements sit in a loop. Fails when a return sits
/// inside a nested loop, where continue would mean something else, or
/// returns a value.
llvm::Expected<llvm::SmallVector<const clang::ReturnStmt *, 4>>
loopableReturns(const clang::ASTContext &Ctx,
                llvm::ArrayRef<const clang::Stmt *> Stmts);

/// A launch argument without the implicit nodes clang puts around it
/// (temporaries, cleanups, the implicit dim3(unsigned) conversion).
const clang::Expr *stripLaunchArgImplicit(const clang::Expr *E);

/// True when either end of \p R comes from a macro expansion.
bool inMacro(clang::SourceRange R);

/// The 1-D mapping of a kernel whose per-element work can be wrapped in a
/// loop (grid-stride, coarsen): recoverable launches, and no `return` where
/// `continue` would mean something else. \p Pass names the transform in the
/// refusal message.
llvm::Expected<ThreadMapping>
analyzeLoopableMapping(clang::ASTContext &Ctx, const KernelInfo &K,
                       llvm::StringRef Pass,
                       GuardConditions Extra = GuardConditions::Refuse);

/// The end of statement \p S including its trailing semicolon, which the
/// AST leaves out of expression statements.
clang::SourceLocation stmtEnd(const clang::ASTContext &Ctx,
                              const clang::Stmt *S);

/// The source range of the per-element work, semicolons included.
clang::SourceRange bodyRange(const clang::ASTContext &Ctx,
                             const ThreadMapping &M);

/// True when \p E (after parentheses and implicit casts) names \p V.
bool refersTo(const clang::Expr *E, const clang::VarDecl *V);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_THREADMAPPING_H
