//===- SourceEdits.h - Text edits shared by the thread-mapping passes -*- C++ -*-===//
//
// Part of cuda-opt. The edits block-size, grid-stride, coarsen and vectorize
// make on top of the thread mapping lib/Analysis/ThreadMapping.h recognises:
// a launch's grid, fresh names, the per-element work's text with edits.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TRANSFORMS_UTILS_SOURCEEDITS_H
#define CUDA_OPT_TRANSFORMS_UTILS_SOURCEEDITS_H

#include "cuda-opt/Analysis/ThreadMapping.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace cuda_opt {

/// Replace the x extent `g` of the grid of \p L with \p Wrap(g): the grid
/// expression itself when it is an integer, the first argument of a
/// `dim3(...)` written in the launch, or `dim3(Wrap(v.x), v.y, v.z)` for a
/// dim3 variable.
llvm::Error rewriteGridX(clang::ASTContext &Ctx, const LaunchSite &L,
                         llvm::function_ref<std::string(llvm::StringRef)> Wrap,
                         clang::tooling::Replacements &Out);

/// The same along y (for 2-D grids): the second argument of a `dim3(...)`
/// written in the launch, or `dim3(v.x, Wrap(v.y), v.z)` for a dim3
/// variable; an integer grid has no y extent to rewrite.
llvm::Error rewriteGridY(const clang::ASTContext &Ctx, const LaunchSite &L,
                         llvm::function_ref<std::string(llvm::StringRef)> Wrap,
                         clang::tooling::Replacements &Out);

/// \p S in parentheses unless it is a name or a number (text of launch
/// arguments spliced into a larger expression).
std::string parenthesizedUnlessName(llvm::StringRef S);

/// Whether \p E is a constant +0 (0, 0.0f; not -0.0): the start of a sum a
/// library computes from zero.
bool isPositiveZeroConstant(const clang::ASTContext &Ctx, const clang::Expr *E);

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

/// \p T printed for a declaration the rewrite adds: without qualifiers
/// and without `struct`/`class`.
std::string typeText(const clang::ASTContext &Ctx, clang::QualType T);

/// The first lines of a block-wide helper's body (block-reduce, block-scan):
/// the thread's Lane and Warp, the block's Warps, and the Width and shuffle
/// Mask of the lanes of this warp that exist (the last warp may be partial).
std::string warpLanesText();

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

/// \p Text (source copied from a file, its first line starting mid-line)
/// as a block indented by \p Pad: the first line without its leading
/// whitespace, the later lines without the whitespace they all share, blank
/// lines dropped; each line ends with a newline.
std::string indentBlock(llvm::StringRef Text, llvm::StringRef Pad);

/// Edits that turn every `return;` in \p Stmts into `continue;` so the
/// statements can sit in a loop. Fails when a return sits inside a nested
/// loop, where continue would mean something else.
llvm::Error
returnsToContinue(const clang::ASTContext &Ctx,
                  llvm::ArrayRef<const clang::Stmt *> Stmts,
                  std::vector<std::pair<clang::SourceRange, std::string>> &Out);

/// returnsToContinue over the guard and the work of a one-element-per-thread
/// kernel (\p M), which a rewrite moves into a loop.
llvm::Error
guardReturnsToContinue(const clang::ASTContext &Ctx, const ThreadMapping &M,
                       std::vector<std::pair<clang::SourceRange, std::string>> &Out);

} // namespace cuda_opt

#endif // CUDA_OPT_TRANSFORMS_UTILS_SOURCEEDITS_H
