//===- ConvCudnnEntry.h - conv-cudnn's call, as a library entry -*- C++ -*-===//
//
// Part of cuda-opt. tune measures a conv-cudnn variant by calling
// cudaoptConv2dLaunch on the captured launch's buffers: the helper and an
// extern "C" entry that reads the kernel's arguments are built into a shared
// library the worker calls like a region (docs/worker-protocol.md); the
// library has one entry per algorithm, so every setting shares one build.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TRANSFORMS_CONVCUDNNENTRY_H
#define CUDA_OPT_TRANSFORMS_CONVCUDNNENTRY_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace cuda_opt {

/// Snippets/ConvCudnn.cuh: cudaoptConv2dProblem and cudaoptConv2dLaunch.
llvm::StringRef convCudnnHelperText();

/// The name of the entry that runs cuDNN algorithm \p Algo (-1: cuDNN's
/// heuristic choice) in the library of convCudnnEntryText.
std::string convCudnnEntryName(int64_t Algo);

/// A whole .cu file defining, for every algorithm conv-cudnn can name,
/// `extern "C" int convCudnnEntryName(algo)(void **args, void *stream)`
/// that runs one launch of kernel \p K (which must match ConvKernelMatch)
/// through cuDNN; args[i] points at the kernel's argument i. Fails with the
/// reason when \p K is no convolution, or when a launch of \p Grid x
/// \p Block with the scalar arguments \p Param does not reach every output
/// element.
llvm::Expected<std::string> convCudnnEntryText(
    clang::ASTContext &Ctx, const KernelInfo &K,
    const std::array<int64_t, 3> &Grid, const std::array<int64_t, 3> &Block,
    llvm::function_ref<std::optional<int64_t>(unsigned)> Param);

} // namespace cuda_opt

#endif // CUDA_OPT_TRANSFORMS_CONVCUDNNENTRY_H
