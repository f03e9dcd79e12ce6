//===- StmtPatterns.h - AST helpers of the host-code matchers -*- C++ -*-===//
//
// Part of cuda-opt. The few helpers the matchers of host code and whole
// routines (HostRegions, ScanRoutine, BitonicSort) share: a variable named
// through casts, a statement's statements, a plain assignment, a callee's
// name, the calls in a statement and which of them are error checks,
// whether a statement names a variable, a statement's first line for
// messages. Private to lib/Analysis.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_LIB_ANALYSIS_STMTPATTERNS_H
#define CUDA_OPT_LIB_ANALYSIS_STMTPATTERNS_H

#include "cuda-opt/Analysis/KernelFinder.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringSet.h"

#include <string>
#include <vector>

namespace cuda_opt {
namespace stmt {

/// The variable \p E names, through parentheses and casts (`(void *)p`;
/// `(void **)&p` names none).
inline const clang::VarDecl *varOf(const clang::Expr *E) {
  E = E ? E->IgnoreParenCasts() : nullptr;
  const auto *D = llvm::dyn_cast_or_null<clang::DeclRefExpr>(E);
  return D ? llvm::dyn_cast<clang::VarDecl>(D->getDecl()) : nullptr;
}

/// The statements of \p S: its body when it is a block, else itself.
inline std::vector<const clang::Stmt *> statementsOf(const clang::Stmt *S) {
  if (const auto *CS = llvm::dyn_cast_or_null<clang::CompoundStmt>(S))
    return std::vector<const clang::Stmt *>(CS->body_begin(), CS->body_end());
  if (S)
    return {S};
  return {};
}

/// \p S as `a = b`, or null.
inline const clang::BinaryOperator *assignment(const clang::Stmt *S) {
  const auto *BO = llvm::dyn_cast_or_null<clang::BinaryOperator>(S);
  return BO && BO->getOpcode() == clang::BO_Assign ? BO : nullptr;
}

/// The name of the function \p CE calls directly, or "".
inline llvm::StringRef calleeName(const clang::CallExpr *CE) {
  const clang::FunctionDecl *FD = CE->getDirectCallee();
  return FD && FD->getDeclName().isIdentifier() ? FD->getName() : "";
}

/// The calls in \p S (kernel launches included), outermost first.
inline std::vector<const clang::CallExpr *> callsIn(const clang::Stmt *S) {
  std::vector<const clang::CallExpr *> Out;
  if (!S)
    return Out;
  if (const auto *CE = llvm::dyn_cast<clang::CallExpr>(S))
    Out.push_back(CE);
  for (const clang::Stmt *C : S->children()) {
    std::vector<const clang::CallExpr *> Sub = callsIn(C);
    Out.insert(Out.end(), Sub.begin(), Sub.end());
  }
  return Out;
}

/// Calls that neither touch device buffers nor have effects a rewrite of
/// the code around them must keep in place: error checks and the error
/// path's output.
inline bool isCheckCall(llvm::StringRef N) {
  static const llvm::StringSet<> Names = {
      "cudaGetLastError", "cudaPeekAtLastError", "cudaDeviceSynchronize",
      "cudaGetErrorString", "cudaGetErrorName", "printf", "fprintf",
      "fputs", "puts", "exit", "abort", "_exit"};
  return Names.contains(N);
}

/// Whether \p S names \p V anywhere.
inline bool mentions(const clang::Stmt *S, const clang::VarDecl *V) {
  if (!S)
    return false;
  if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(S))
    if (D->getDecl() == V)
      return true;
  for (const clang::Stmt *C : S->children())
    if (mentions(C, V))
      return true;
  return false;
}

/// The first line of \p S's text, cut to 60 characters, for messages.
inline std::string shortText(const clang::ASTContext &Ctx,
                             const clang::Stmt *S) {
  std::string T = sourceText(Ctx, S->getSourceRange());
  T = T.substr(0, T.find('\n'));
  return T.size() > 60 ? T.substr(0, 57) + "..." : T;
}

} // namespace stmt
} // namespace cuda_opt

#endif // CUDA_OPT_LIB_ANALYSIS_STMTPATTERNS_H
