//===- Version.h - The version of cuda-opt ----------------------*- C++ -*-===//
//
// Part of cuda-opt. What `cuda-opt --version` prints and the tuning database
// records with every measurement (a new version measures afresh).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SUPPORT_VERSION_H
#define CUDA_OPT_SUPPORT_VERSION_H

#include "llvm/ADT/StringRef.h"

namespace cuda_opt {

constexpr llvm::StringLiteral CudaOptVersion = "0.1";

} // namespace cuda_opt

#endif // CUDA_OPT_SUPPORT_VERSION_H
