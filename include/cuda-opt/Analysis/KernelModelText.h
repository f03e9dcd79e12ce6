//===- KernelModelText.h - Human-readable kernel model ----------*- C++ -*-===//
//
// Part of cuda-opt. `cuda-opt --analyze` without --json: a short summary of
// the kernel model rendered from its JSON form.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_KERNELMODELTEXT_H
#define CUDA_OPT_ANALYSIS_KERNELMODELTEXT_H

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace cuda_opt {

void printKernelModelText(const llvm::json::Object &Model,
                          llvm::raw_ostream &OS);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_KERNELMODELTEXT_H
