//===- CublasLtDescriptors.h - Constant cuBLASLt descriptors ----*- C++ -*-===//
//
// Part of cuda-opt. A cublasLtMatmul call is described by descriptors built
// with separate calls. These functions find how a descriptor variable was
// created and configured in the function that makes the matmul call, and
// accept it only when every setting is a compile-time constant (sizes and
// leading dimensions may be any expression).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_CUBLASLTDESCRIPTORS_H
#define CUDA_OPT_ANALYSIS_CUBLASLTDESCRIPTORS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "llvm/Support/Error.h"
#include <string>

namespace cuda_opt {

/// cublasLtMatmulDescCreate(&D, Compute, Scale) and its TRANSA/TRANSB.
struct LtMatmulDesc {
  int64_t Compute = 0, Scale = 0;
  int64_t TransA = 0, TransB = 0; ///< CUBLAS_OP_N unless set
};

/// cublasLtMatrixLayoutCreate(&L, Type, Rows, Cols, Ld), column-major.
struct LtMatrixLayout {
  int64_t Type = 0;
  std::string Rows, Cols, Ld;
};

/// The matmul descriptor \p Desc (an argument of the call) as set up in
/// \p Caller, or why it is not visible and constant there.
llvm::Expected<LtMatmulDesc> findLtMatmulDesc(clang::ASTContext &Ctx,
                                              const clang::FunctionDecl *Caller,
                                              const clang::Expr *Desc);

/// The matrix layout \p Layout as created in \p Caller.
llvm::Expected<LtMatrixLayout>
findLtMatrixLayout(clang::ASTContext &Ctx, const clang::FunctionDecl *Caller,
                   const clang::Expr *Layout);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_CUBLASLTDESCRIPTORS_H
