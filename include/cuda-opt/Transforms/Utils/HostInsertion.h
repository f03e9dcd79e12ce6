//===- HostInsertion.h - Includes and helpers in a main file ----*- C++ -*-===//
//
// Part of cuda-opt. Transforms that call a runtime library from host code
// add `#include "lib.h"` and, sometimes, a small host helper to the file they
// rewrite. These helpers put such text once, after the file's last leading
// #include, and replace whole statements or calls.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TRANSFORMS_UTILS_HOSTINSERTION_H
#define CUDA_OPT_TRANSFORMS_UTILS_HOSTINSERTION_H

#include "clang/AST/ASTContext.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/Error.h"

#include <string>

namespace cuda_opt {

struct KernelInfo;
struct LaunchSite;

/// True when the main file has an `#include` line naming \p Header.
bool mainFileIncludes(const clang::ASTContext &Ctx, llvm::StringRef Header);

/// True when the translation unit declares a function named \p Name (a
/// helper emitted by an earlier step).
bool declaresFunction(clang::ASTContext &Ctx, llvm::StringRef Name);

/// \p Loc moved up over the `//` comment lines directly above it, so text
/// inserted there does not split a declaration from its comment.
clang::SourceLocation aboveLineComments(const clang::SourceManager &SM,
                                        clang::SourceLocation Loc);

/// Where text that must precede the declaration \p D goes (a helper a
/// rewrite adds): before D, its documentation comment and the `//` lines
/// directly above.
clang::SourceLocation insertionPointBefore(const clang::ASTContext &Ctx,
                                           const clang::Decl *D);

/// The offset in the main file just after its last `#include` line that
/// precedes the first declaration (0 when there is none).
unsigned headerInsertionOffset(const clang::ASTContext &Ctx);

/// Insert \p Text at headerInsertionOffset (once per rewrite: a second
/// insertion at the same offset would conflict).
/// The replacements for a plan's (range, new text) edits.
llvm::Expected<clang::tooling::Replacements> replacementsFor(
    const clang::SourceManager &SM,
    llvm::ArrayRef<std::pair<clang::CharSourceRange, std::string>> Edits);

llvm::Error insertAfterIncludes(const clang::ASTContext &Ctx,
                                clang::tooling::Replacements &R,
                                llvm::StringRef Text);

/// Text a library-call transform adds after the includes of the file it
/// rewrites, unless the file already has it: an `#include` (skipped when the
/// main file includes \p Name) or a host helper (skipped when the
/// translation unit declares a function \p Name).
struct HostAddition {
  enum KindT { Include, Function } Kind;
  std::string Name;
  std::string Text;
};

/// The replacements of a library-call transform (gemm-specialize,
/// sparse-weights): the plan's (range, new text) edits, and after the
/// includes, in order, the additions the file does not have yet.
llvm::Expected<clang::tooling::Replacements> libraryCallReplacements(
    clang::ASTContext &Ctx,
    llvm::ArrayRef<std::pair<clang::CharSourceRange, std::string>> Edits,
    llvm::ArrayRef<HostAddition> Additions);

/// Whether \p E can be evaluated twice: no effects, possible or certain,
/// beyond the construction of a dim3 (a launch's grid `n` is `dim3(n)`).
bool isRepeatableExpr(clang::ASTContext &Ctx, const clang::Expr *E);

/// Why launch \p L of kernel \p K cannot become `if (library call fails)
/// launch;`, or success: it is in host code, passes every argument, and
/// its arguments can be evaluated twice (in the call and in the fallback).
llvm::Error checkFallbackLaunch(clang::ASTContext &Ctx, const KernelInfo &K,
                                const LaunchSite &L);

/// The value of kernel parameter \p P in a library entry
/// `int entry(void **Args, void *Stream)` the measurement worker calls with
/// the captured launch's arguments: `*static_cast<T *>(Args[i])`.
std::string libraryEntryArgument(const clang::ASTContext &Ctx,
                                 const clang::ParmVarDecl *P);

/// The edit that puts \p Text (helper structs a rewrite adds, e.g. a
/// functor CUB calls) right after the body of kernel \p K, or an error when
/// the body ends inside a macro or a launch of \p K comes before that point
/// (\p What names the text in the message).
llvm::Expected<std::pair<clang::CharSourceRange, std::string>>
textAfterKernel(const clang::ASTContext &Ctx, const KernelInfo &K,
                llvm::StringRef Text, llvm::StringRef What);

/// The file range of \p E followed by its `;` when \p E is a whole
/// expression statement outside macros, else an error saying why.
llvm::Expected<clang::CharSourceRange>
statementRange(const clang::ASTContext &Ctx, const clang::Expr *E);

/// The file range of the call \p E (also when it is written as a macro
/// argument, e.g. CHECK(cublasGemmEx(...))), or an error.
llvm::Expected<clang::CharSourceRange> callRange(const clang::ASTContext &Ctx,
                                                 const clang::Expr *E);

/// The macro the host function \p F wraps its CUDA calls in
/// (`CK(cudaMalloc(...))`: "CK"), so that calls a rewrite adds are checked
/// like the surrounding code; empty when F calls the CUDA API bare.
std::string checkMacroOf(const clang::ASTContext &Ctx,
                         const clang::FunctionDecl *F);

/// \p Call wrapped in the check macro \p Macro (none when empty), as a
/// statement: `CK(call);`.
std::string checkedCall(llvm::StringRef Macro, llvm::StringRef Call);

/// CUB's two-phase device call, one statement a line at \p Indent: the
/// scratch size query (\p CallWith("nullptr")), `<Stem>_temp` from the
/// stream-ordered pool, the call (\p CallWith("<Stem>_temp")) and the free;
/// each CUDA call wrapped in \p Macro (checkedCall).
std::string
cubTempStorageCall(llvm::StringRef Indent, llvm::StringRef Macro,
                   llvm::StringRef Stem,
                   llvm::function_ref<std::string(llvm::StringRef)> CallWith);

} // namespace cuda_opt

#endif // CUDA_OPT_TRANSFORMS_UTILS_HOSTINSERTION_H
