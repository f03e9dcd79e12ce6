//===- KernelModel.h - What cuda-opt knows about one kernel -----*- C++ -*-===//
//
// Part of cuda-opt. The kernel model used by --analyze, by transform
// legality checks, and as the policy's features.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_KERNELMODEL_H
#define CUDA_OPT_ANALYSIS_KERNELMODEL_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "llvm/Support/JSON.h"

namespace cuda_opt {

/// The full kernel model of \p K as JSON (the --analyze output).
llvm::json::Value analyzeKernelToJSON(clang::ASTContext &Ctx,
                                      const KernelInfo &K);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_KERNELMODEL_H
