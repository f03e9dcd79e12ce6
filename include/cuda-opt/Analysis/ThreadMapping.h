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
#include "clang/Tooling/Core/Replacement.h"
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
  /// One entry for a 1-D kernel, two (x then y) for a 2-D one.
  llvm::SmallVector<MappedIndex, 2> Dims;
  const clang::IfStmt *Guard = nullptr;
  /// The guard is `if (i >= n) return;` and the per-element work follows it.
  bool EarlyReturn = false;
  /// The per-element work: the guard's then-branch, or the statements after
  /// an early-return guard.
  llvm::SmallVector<const clang::Stmt *, 4> Body;
  /// From the first index declaration to the end of the per-element work:
  /// the text that loop-forming transforms replace.
  clang::SourceRange Region;

  unsigned rank() const { return Dims.size(); }
  const MappedIndex &x() const { return Dims.front(); }
};

/// Recognise the shape in \p K, or say why it is not there.
llvm::Expected<ThreadMapping> analyzeThreadMapping(clang::ASTContext &Ctx,
                                                   const KernelInfo &K);

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

/// Check that every launch of \p K is outside macros, has a recoverable
/// ceil-div grid over the mapped dimensions, and that the grid covers the
/// bound the kernel is passed. Fails with the reason (also when the kernel
/// is not launched in this file).
llvm::Expected<llvm::SmallVector<LaunchShape, 4>>
analyzeLaunches(clang::ASTContext &Ctx, const KernelInfo &K,
                const ThreadMapping &M);

/// Replace the x extent `g` of the grid of \p L with \p Wrap(g): the grid
/// expression itself when it is an integer, the first argument of a
/// `dim3(...)` written in the launch, or `dim3(Wrap(v.x), v.y, v.z)` for a
/// dim3 variable.
llvm::Error rewriteGridX(clang::ASTContext &Ctx, const LaunchSite &L,
                         llvm::function_ref<std::string(llvm::StringRef)> Wrap,
                         clang::tooling::Replacements &Out);

/// `(G + F - 1) / F`, parenthesising \p G when needed.
std::string ceilDivText(llvm::StringRef G, int64_t F);

/// Text of \p E as written, wrapped in parentheses unless it is a name, a
/// literal, a call or already parenthesised.
std::string parenthesizedText(const clang::ASTContext &Ctx,
                              const clang::Expr *E);

/// A name that no declaration in \p Kernel uses and that the kernel does not
/// refer to: \p Base, else Base2, Base3, ...
std::string freshName(const clang::FunctionDecl *Kernel, llvm::StringRef Base,
                      llvm::ArrayRef<std::string> Taken = {});

/// The printed type of the index variable, without qualifiers (`int`,
/// `size_t`, ...).
std::string indexTypeText(const clang::ASTContext &Ctx,
                          const clang::VarDecl *V);

/// True when \p T is 64 bits or wider (the new index math must then start
/// in that type so it does not wrap at 32 bits).
bool isWideIndex(const clang::ASTContext &Ctx, const clang::VarDecl *V);

/// Source text of the file range of \p R with \p Edits applied (each a
/// token range inside \p R and its new text). Fails on edits in macros.
llvm::Expected<std::string>
textWithEdits(const clang::ASTContext &Ctx, clang::SourceRange R,
              llvm::ArrayRef<std::pair<clang::SourceRange, std::string>> Edits);

/// Edits that turn every `return;` in \p Stmts into `continue;` so the
/// statements can sit in a loop. Fails when a return sits inside a nested
/// loop, where continue would mean something else.
llvm::Error
returnsToContinue(const clang::ASTContext &Ctx,
                  llvm::ArrayRef<const clang::Stmt *> Stmts,
                  std::vector<std::pair<clang::SourceRange, std::string>> &Out);

/// The 1-D mapping of a kernel whose per-element work can be wrapped in a
/// loop (grid-stride, coarsen): recoverable launches, and no `return` where
/// `continue` would mean something else. \p Pass names the transform in the
/// refusal message.
llvm::Expected<ThreadMapping> analyzeLoopableMapping(clang::ASTContext &Ctx,
                                                     const KernelInfo &K,
                                                     llvm::StringRef Pass);

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
