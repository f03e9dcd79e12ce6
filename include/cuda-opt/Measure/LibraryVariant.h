//===- LibraryVariant.h - Measure a launch replaced by a library call -*- C++ -*-===//
//
// Part of cuda-opt. gemm-specialize replaces a GEMM kernel's launch with a
// call of cudaoptGemm (runtime/gemm), so its variant has no kernel for the
// worker to replay. In program mode the captured launch gives the problem's
// sizes, and the worker calls the library on the replay buffers instead
// (runtime/measure/LibraryCall.h): the call is verified against the original
// kernel's outputs and timed interleaved with it like any variant.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_MEASURE_LIBRARYVARIANT_H
#define CUDA_OPT_MEASURE_LIBRARYVARIANT_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Capture/Capture.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace cuda_opt {

/// The job's "library" object for the cudaoptGemm call that replaces \p K's
/// captured launch \p L, with the library at \p LibraryPath; or why the
/// call cannot be measured.
llvm::Expected<llvm::json::Object>
gemmLibraryCall(clang::ASTContext &Ctx, const KernelInfo &K,
                const CapturedLaunch &L, llvm::StringRef LibraryPath);

} // namespace cuda_opt

#endif // CUDA_OPT_MEASURE_LIBRARYVARIANT_H
