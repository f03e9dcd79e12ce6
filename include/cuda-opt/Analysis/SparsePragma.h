//===- SparsePragma.h - cuda_opt sparse(W) pragmas --------------*- C++ -*-===//
//
// Part of cuda-opt. The user marks a GEMM whose A operand is a sparse weight
// with a pragma on the line(s) just before the statement:
//
//   #pragma cuda_opt sparse(W)                   // encode W at load time
//   #pragma cuda_opt sparse(W, file="w.tls")     // or read it encoded
//
// Clang ignores unknown pragmas, so the markers are read from the text.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_SPARSEPRAGMA_H
#define CUDA_OPT_ANALYSIS_SPARSEPRAGMA_H

#include "clang/AST/ASTContext.h"
#include <string>
#include <vector>

namespace cuda_opt {

struct SparseMark {
  /// 1-based line of the pragma in the main file.
  unsigned Line = 0;
  /// The weight variable named by the pragma.
  std::string Var;
  /// The .tls file to read instead of encoding; empty to encode.
  std::string File;
  /// Why the pragma could not be read (then Var and File are empty).
  std::string Error;
};

/// Every `#pragma cuda_opt sparse(...)` of the main file, in order.
std::vector<SparseMark> findSparseMarks(const clang::ASTContext &Ctx);

/// The mark directly above the statement that starts on \p StmtLine (only
/// blank lines, comments and other pragmas in between), or null.
const SparseMark *markAbove(const clang::ASTContext &Ctx,
                            const std::vector<SparseMark> &Marks,
                            unsigned StmtLine);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_SPARSEPRAGMA_H
