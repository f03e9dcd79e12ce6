//===- ProductAccumulation.h - `acc += x * y` in a kernel body --*- C++ -*-===//
//
// Part of cuda-opt. The pieces the library-routing matchers (GEMM,
// convolution) share: the product accumulations of a body, the load a factor
// reads, writes to a variable, early exits and global thread indices.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_PRODUCTACCUMULATION_H
#define CUDA_OPT_ANALYSIS_PRODUCTACCUMULATION_H

#include "cuda-opt/Analysis/AccessAnalysis.h"
#include "cuda-opt/Analysis/IndexExpr.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <optional>
#include <vector>

namespace cuda_opt {

/// `acc += x * y` (or `acc = fma(x, y, acc)`) with acc a local variable.
struct ProductAccumulation {
  const clang::Stmt *S = nullptr;
  const clang::VarDecl *Acc = nullptr;
  const clang::Expr *X = nullptr, *Y = nullptr;
};

/// Every product accumulation in \p Body.
std::vector<ProductAccumulation>
findProductAccumulations(clang::ASTContext &Ctx, const clang::Stmt *Body);

/// The variable \p E names (through parentheses and implicit casts).
const clang::VarDecl *refVar(const clang::Expr *E);

/// Assignments, increments and address-taking of \p V in \p Body.
unsigned countWrites(const clang::Stmt *Body, const clang::VarDecl *V);

/// Returns, breaks, continues and gotos in \p Body.
unsigned countEarlyExits(const clang::Stmt *Body);

/// The load a factor of a product reads, looking through the conversions
/// of a 16-bit value to float (`__half2float(A[i])`, `float(A[i])`, the
/// copy of a __half argument).
const clang::Expr *loadOfFactor(const clang::Expr *E);

/// The read among \p Accesses that the factor \p Factor loads (through
/// loadOfFactor), or null.
const MemoryAccess *loadAccessOfFactor(llvm::ArrayRef<MemoryAccess> Accesses,
                                       const clang::Expr *Factor);

/// `blockIdx.d * blockDim.d + threadIdx.d` for the d it holds for.
std::optional<unsigned> globalIndexDim(const IndexExpr &E,
                                       const SymbolTable &Syms);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_PRODUCTACCUMULATION_H
