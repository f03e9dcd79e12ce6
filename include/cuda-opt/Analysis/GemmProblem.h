//===- GemmProblem.h - A GEMM as cudaoptGemm operands -----------*- C++ -*-===//
//
// Part of cuda-opt. The operands of one recognised GEMM (a kernel launch or a
// cuBLAS call), already mapped to the row-major convention of
// cudaoptGemmProblem (runtime/gemm/include/cudaopt/gemm.h), as source text
// to paste into the rewritten host code.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_GEMMPROBLEM_H
#define CUDA_OPT_ANALYSIS_GEMMPROBLEM_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <string>

namespace cuda_opt {

/// Every field is a C++ expression; the element type and B layout are the
/// enumerator names of gemm.h.
struct GemmProblem {
  std::string M, N, K;
  std::string Type = "CUDAOPT_GEMM_F16"; ///< or CUDAOPT_GEMM_BF16, CUDAOPT_GEMM_F32
  std::string LayoutB;                   ///< CUDAOPT_GEMM_B_ROW or _B_COL
  std::string A, Lda, B, Ldb, C, Ldc;
  std::string Alpha = "1.0f", Beta = "0.0f";
  /// Batched problems: the count and the element strides ("" for one).
  std::string Batch, StrideA, StrideB, StrideC;
  /// fp32: let the library sum over k in its own order (cuBLAS SGEMM).
  bool Reassociate = false;
  /// With Reassociate: 0 runs cublasSgemm, k >= 1 the k-th cuBLASLt fp32
  /// heuristic candidate (cudaoptGemmProblem::LibraryAlgo).
  int LibraryAlgo = 0;
};

/// The source text of \p E as a value of type \p To (int for M, N, K, long
/// long for leading dimensions, float for alpha and beta): E itself when it
/// converts without narrowing (a braced initialiser rejects narrowing),
/// else `static_cast<To>(E)`.
std::string convertedText(clang::ASTContext &Ctx, const clang::Expr *E,
                          clang::QualType To);

/// The aggregate initialiser `{M, N, K, Type, LayoutB, A, Lda, ...}`.
std::string renderProblemInit(const GemmProblem &P);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_GEMMPROBLEM_H
