//===- GuardShape.h - The shape of a kernel's range guard -------*- C++ -*-===//
//
// Part of cuda-opt. Private to lib/Analysis: the two small facts about a
// guard `if (i < n && ...) { ... }` or `if (i >= n || ...) return;` that the
// thread mappings (ThreadMapping.cpp, RowMapping.cpp) both need.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_LIB_ANALYSIS_GUARDSHAPE_H
#define CUDA_OPT_LIB_ANALYSIS_GUARDSHAPE_H

#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/SmallVector.h"

namespace cuda_opt {

/// Split `a && b` (or `a || b`, per \p Op) into its leaves, in evaluation
/// order.
void flattenLogical(const clang::Expr *E, clang::BinaryOperatorKind Op,
                    llvm::SmallVectorImpl<const clang::Expr *> &Out);

/// `return;`, alone or as the only statement of a block.
bool isBareReturn(const clang::Stmt *S);

/// The work the guard \p If covers, into \p Work: with an early return,
/// the statements \p After it (null statements skipped); else the guard's
/// then-branch. \returns the first statement after a guard that is not an
/// early return (it would run once per thread, outside the guard), or null.
const clang::Stmt *
collectGuardedWork(const clang::IfStmt *If, bool EarlyReturn,
                   llvm::ArrayRef<clang::Stmt *> After,
                   llvm::SmallVectorImpl<const clang::Stmt *> &Work);

/// The first statement of \p Work written in a macro expansion, or null.
const clang::Stmt *firstMacroStatement(llvm::ArrayRef<const clang::Stmt *> Work);

} // namespace cuda_opt

#endif // CUDA_OPT_LIB_ANALYSIS_GUARDSHAPE_H
