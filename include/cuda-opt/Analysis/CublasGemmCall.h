//===- CublasGemmCall.h - cuBLAS GEMM calls in host code --------*- C++ -*-===//
//
// Part of cuda-opt. Finds the cublasGemmEx, cublasHgemm, cublasSgemm and
// cublasLtMatmul calls of a file and maps each to the row-major
// cudaoptGemmProblem it computes, or says why it cannot.
//
// cuBLAS is column-major. A call computing C' = op(X) * op(Y) with C' of
// m x n (leading dimension ldc) writes, read row-major, the n x m matrix
// C = op(Y)^T * op(X)^T. So cuBLAS's second operand Y is our A (row-major
// only when transb is N) and its first operand X is our B: transa N means
// B(k, n) = X[k * lda + n] (CUDAOPT_GEMM_B_ROW), transa T means
// B(k, n) = X[n * lda + k] (CUDAOPT_GEMM_B_COL); M = n, N = m, K = k.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_CUBLASGEMMCALL_H
#define CUDA_OPT_ANALYSIS_CUBLASGEMMCALL_H

#include "cuda-opt/Analysis/GemmProblem.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace cuda_opt {

enum class CublasGemmKind { GemmEx, Hgemm, Sgemm, LtMatmul };

struct CublasGemmCall {
  const clang::CallExpr *Call = nullptr;
  /// The function the call is written in.
  const clang::FunctionDecl *Caller = nullptr;
  CublasGemmKind Kind = CublasGemmKind::GemmEx;
  /// "cublasGemmEx", "cublasSgemm", ... (without the _v2 suffix).
  std::string Name;
  /// "file.cu:12:3".
  std::string Location;
};

/// The GEMM calls written in the main file, in source order.
std::vector<CublasGemmCall> findCublasGemmCalls(clang::ASTContext &Ctx);

/// How to run a recognised call with cudaoptGemm.
struct CublasGemmMapping {
  GemmProblem Problem;
  /// The cuBLAS handle (its stream is the one to run on), for the classic
  /// API; empty for cublasLtMatmul.
  std::string Handle;
  /// The explicit stream of cublasLtMatmul.
  std::string Stream;
  /// A, B and C are fp32 (cublasSgemm): they go through fp16 copies.
  bool Float32 = false;
};

struct CublasMapOptions {
  /// allow-fp16-compute=1: cublasHgemm and CUBLAS_COMPUTE_16F (whose fp16
  /// accumulation becomes fp32) and cublasSgemm (whose fp32 operands and
  /// result are rounded to fp16) may be replaced.
  bool AllowFp16Compute = false;
};

/// The cudaoptGemm problem \p C computes, or why it cannot be replaced.
llvm::Expected<CublasGemmMapping> mapCublasGemm(clang::ASTContext &Ctx,
                                                const CublasGemmCall &C,
                                                const CublasMapOptions &Opts);

/// The variable \p E names (`x` or `&x`), or null.
const clang::VarDecl *namedVar(const clang::Expr *E);

/// The integer value of a constant argument (an enumerator, a literal, a
/// const local initialised with one).
std::optional<int64_t> constantArg(clang::ASTContext &Ctx,
                                   const clang::Expr *E);

/// The value of a scalar passed by address (`&one`), when it is a local
/// initialised with a constant and never assigned again.
std::optional<double> constantScalarArg(clang::ASTContext &Ctx,
                                        const clang::Expr *E);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_CUBLASGEMMCALL_H
