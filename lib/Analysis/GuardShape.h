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

} // namespace cuda_opt

#endif // CUDA_OPT_LIB_ANALYSIS_GUARDSHAPE_H
