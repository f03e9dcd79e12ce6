//===- DamagedCode.h - Code clang rejected and nvcc compiles ----*- C++ -*-===//
//
// Part of cuda-opt. A parse may accept a clang error on code that nvcc 13
// compiles (Frontend/SourceParser.h, NvccAcceptedError): a function-scope
// __shared__ object with a non-empty default constructor, a host
// variable-length array with an initialiser. Clang leaves such a
// declaration invalid (its uses are dropped from the AST) or its
// initialiser an error node, so what the analyses see around it is not the
// program nvcc compiles. This is where the transforms learn to stay away.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_DAMAGEDCODE_H
#define CUDA_OPT_ANALYSIS_DAMAGEDCODE_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include <optional>
#include <string>

namespace cuda_opt {

/// Why no pass may rewrite kernel \p K: it, one of its template
/// instantiations or a function they call holds an invalid declaration or
/// an error node. Nothing when the parse accepted no clang error (the usual
/// case, decided without walking the AST).
std::optional<std::string> damagedKernelReason(clang::ASTContext &Ctx,
                                               const KernelInfo &K);

/// Why a pass may not rewrite \p K: damagedKernelReason(); else, for a pass
/// that reads or edits launch sites (not \p KernelLocal), damaged host code
/// (launches there may be missing from the AST); else, for a pass that
/// rewrites a host region (\p RewritesHostRegion: several kernels and
/// launches at once), damaged code anywhere in the file.
std::optional<std::string> damagedCodeRefusal(clang::ASTContext &Ctx,
                                              const KernelInfo &K,
                                              bool KernelLocal,
                                              bool RewritesHostRegion);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_DAMAGEDCODE_H
