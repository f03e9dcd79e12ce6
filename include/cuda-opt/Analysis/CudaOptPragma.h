//===- CudaOptPragma.h - `#pragma cuda_opt ...` lines -----------*- C++ -*-===//
//
// Part of cuda-opt. Clang ignores unknown pragmas, so cuda-opt's markers
// (`#pragma cuda_opt sparse(W)`, `#pragma cuda_opt fp_model(strict)`) are
// read from the main file's text; a marker applies to the declaration or
// statement directly below it.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_CUDAOPTPRAGMA_H
#define CUDA_OPT_ANALYSIS_CUDAOPTPRAGMA_H

#include "cuda-opt/Support/FpModel.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

struct CudaOptPragma {
  unsigned Line = 0; ///< 1-based line in the main file.
  std::string Body;  ///< The text after `#pragma cuda_opt`, trimmed.
};

/// Every `#pragma cuda_opt ...` line of the main file, in order.
std::vector<CudaOptPragma> findCudaOptPragmas(const clang::ASTContext &Ctx);

/// The line of the pragma among \p PragmaLines directly above the
/// statement or declaration that starts on \p Line (only blank lines,
/// comments and other pragmas in between), or 0.
unsigned pragmaLineAbove(const clang::ASTContext &Ctx,
                         const std::vector<unsigned> &PragmaLines,
                         unsigned Line);

/// The fp-model a kernel pins itself to with `#pragma cuda_opt
/// fp_model(strict|reassoc|fast)` directly above its definition, or
/// std::nullopt. A malformed pin sets \p Error (and pins nothing).
std::optional<FpModel> kernelFpModelPin(const clang::ASTContext &Ctx,
                                        const clang::FunctionDecl *Kernel,
                                        std::string &Error);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_CUDAOPTPRAGMA_H
