//===- StmtPatterns.h - AST helpers of the host-code matchers -*- C++ -*-===//
//
// Part of cuda-opt. The few helpers the matchers of host code and whole
// routines (HostRegions, ScanRoutine, BitonicSort) share: a variable named
// through casts, a statement's statements, a plain assignment, a callee's
// name, a statement's first line for messages. Private to lib/Analysis.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_LIB_ANALYSIS_STMTPATTERNS_H
#define CUDA_OPT_LIB_ANALYSIS_STMTPATTERNS_H

#include "cuda-opt/Analysis/KernelFinder.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

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
