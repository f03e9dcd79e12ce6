//===- RemovedCudaApis.h - Notes for APIs that CUDA 13 removed --*- C++ -*-===//
//
// Part of cuda-opt (private to lib/Frontend). Code written for older CUDA
// fails to parse against CUDA 13's headers where it uses an API CUDA 13
// removed; nvcc 13 rejects it too. The parse errors then get a note naming
// the replacement (docs/nvcc-compatibility.md).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_LIB_FRONTEND_REMOVEDCUDAAPIS_H
#define CUDA_OPT_LIB_FRONTEND_REMOVEDCUDAAPIS_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace cuda_opt {

/// A note for the error \p Message (clang's text, e.g. "use of undeclared
/// identifier 'cudaThreadSynchronize'") when it is about an API CUDA 13
/// removed, or nothing.
std::optional<std::string> removedCudaApiNote(llvm::StringRef Message);

} // namespace cuda_opt

#endif // CUDA_OPT_LIB_FRONTEND_REMOVEDCUDAAPIS_H
