//===- IndexExprBuilder.h - Clang expressions to IndexExprs -----*- C++ -*-===//
//
// Part of cuda-opt. Translates the integer expressions of a kernel body into
// IndexExpr polynomials: builtins become symbols, local variables that are
// never written after their initialisation are replaced by their initialiser,
// loop variables by the closed form the loop analysis binds, and everything
// else by an opaque symbol that remembers what it depends on.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_INDEXEXPRBUILDER_H
#define CUDA_OPT_ANALYSIS_INDEXEXPRBUILDER_H

#include "cuda-opt/Analysis/IndexExpr.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace cuda_opt {

/// One place where a local variable or parameter is written.
struct VariableWrite {
  /// The assignment, increment or address-of expression.
  const clang::Expr *Site = nullptr;
  /// The value assigned or combined (`x = V`, `x += V`); null for ++/--
  /// and for an address taken.
  const clang::Expr *Value = nullptr;
  /// The operator: BO_Assign, BO_AddAssign, ..., or BO_Comma standing for
  /// ++/-- (Step = +1/-1) and address-taken (Step = 0).
  clang::BinaryOperatorKind Op = clang::BO_Assign;
  int Step = 0;
};

class IndexExprBuilder {
public:
  IndexExprBuilder(clang::ASTContext &Ctx, const clang::FunctionDecl *Kernel,
                   SymbolTable &Symbols);

  /// The polynomial form of an integer expression.
  IndexExpr build(const clang::Expr *E);
  /// What an arbitrary expression depends on (DependenceBits).
  unsigned dependence(const clang::Stmt *S);

  /// Use \p Form for every read of \p V (a loop variable's closed form).
  void bind(const clang::VarDecl *V, IndexExpr Form);

  /// Every write to \p V in the kernel body.
  llvm::ArrayRef<VariableWrite> writesOf(const clang::VarDecl *V) const;

  /// The value of a constant integer expression (literals, constexpr
  /// variables, macros, sizeof).
  std::optional<int64_t> evaluate(const clang::Expr *E) const;

  /// The source text of \p E (pretty-printed when it has no source text).
  std::string text(const clang::Expr *E) const;

  /// If \p E is threadIdx.x / blockDim.y / ..., its kind and dimension.
  static bool matchBuiltin(const clang::Expr *E, SymbolKind &Kind,
                           unsigned &Dim);

  /// \p E without parentheses, implicit casts and casts between integer
  /// types.
  static const clang::Expr *stripCasts(const clang::Expr *E);

  SymbolTable &symbols() { return Symbols; }
  clang::ASTContext &context() { return Ctx; }

private:
  IndexExpr buildVariable(const clang::VarDecl *V, const clang::Expr *Ref);
  /// The value a variable that is only reassigned in straight-line code at
  /// the top of the body has at \p Ref, or null when that does not apply.
  const clang::Expr *reachingValue(const clang::VarDecl *V,
                                   const clang::Expr *Ref) const;
  /// threadIdx/blockIdx polynomials for cooperative-groups rank queries
  /// (`block.thread_rank()`, `grid.thread_rank()`).
  std::optional<IndexExpr> buildGroupRank(const clang::CallExpr *CE);
  IndexExpr opaque(const clang::Expr *E);

  clang::ASTContext &Ctx;
  SymbolTable &Symbols;
  llvm::DenseMap<const clang::VarDecl *, std::vector<VariableWrite>> Writes;
  llvm::DenseMap<const clang::VarDecl *, IndexExpr> Bound;
  llvm::DenseMap<const clang::VarDecl *, IndexExpr> Memo;
  llvm::DenseMap<const clang::Expr *, IndexExpr> ValueMemo;
  llvm::DenseSet<const clang::Stmt *> TopLevel;
  llvm::DenseSet<const clang::VarDecl *> InProgress;
  llvm::DenseSet<const clang::Expr *> ValuesInProgress;
};

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_INDEXEXPRBUILDER_H
