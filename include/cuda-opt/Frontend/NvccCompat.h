//===- NvccCompat.h - What nvcc accepts and clang's CUDA mode does not -*- C++ -*-===//
//
// Part of cuda-opt. nvcc makes CUDA's min/max overloads (crt/math_functions.hpp)
// callable from host code; clang's CUDA headers declare them for the device
// only, so host code that nvcc compiles, such as `max(x, 1.0f)` in main(),
// does not parse. Every parse force-includes a small virtual header that adds
// the host overloads nvcc has.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_FRONTEND_NVCCCOMPAT_H
#define CUDA_OPT_FRONTEND_NVCCCOMPAT_H

#include "llvm/ADT/StringRef.h"

namespace cuda_opt {

/// The path the parse arguments `-include` (no such file exists on disk:
/// each parse maps it to nvccCompatHeaderText()).
llvm::StringRef nvccCompatHeaderPath();

/// The header's text.
llvm::StringRef nvccCompatHeaderText();

} // namespace cuda_opt

#endif // CUDA_OPT_FRONTEND_NVCCCOMPAT_H
