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
#include <string>

namespace cuda_opt {

/// The path the parse arguments `-include` (no such file exists on disk:
/// each parse maps it to nvccCompatHeaderText()).
llvm::StringRef nvccCompatHeaderPath();

/// The header's text.
llvm::StringRef nvccCompatHeaderText();

/// \p Text with every kernel launch written with spaced chevrons
/// (`k << < grid, block >> > (args)`, which nvcc accepts and clang does not)
/// turned into `k<<<` ... `>>>` followed by the same whitespace, so every
/// offset, line and column after each chevron stays where it was. Only the
/// parses see this text; rewrites apply to the user's own, so untouched
/// launches keep their spelling. Returns \p Text unchanged when it has none.
std::string normalizeSpacedLaunches(llvm::StringRef Text);

} // namespace cuda_opt

#endif // CUDA_OPT_FRONTEND_NVCCCOMPAT_H
