//===- ConvKernelMatch.h - Prove a kernel is a direct convolution -*- C++ -*-===//
//
// Part of cuda-opt. conv-cudnn replaces the launch of a direct 2-D
// convolution kernel with a cuDNN call. That is only sound when every thread
// of the launch that stores computes one output element as the sum over
// input channels and filter taps of input * weight, with zero padding, and
// the threads of the launch reach every output element; this matcher proves
// both from the kernel's index polynomials, or explains why it cannot.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_CONVKERNELMATCH_H
#define CUDA_OPT_ANALYSIS_CONVKERNELMATCH_H

#include "cuda-opt/Analysis/IndexExpr.h"
#include "cuda-opt/Analysis/KernelFinder.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

/// One launch dimension whose threads enumerate output coordinates: the
/// launch must supply at least Extent values of its index (exactly Extent
/// when the kernel has no guard that drops the extra threads).
struct ConvLaunchCover {
  unsigned Dim = 0;
  /// blockIdx.d alone (else blockIdx.d * blockDim.d + threadIdx.d).
  bool BlocksOnly = false;
  bool Exact = false;
  IndexExpr Extent;
};

/// What the kernel computes; every extent is a polynomial over the kernel's
/// scalar parameters (symbols of Symbols) and constants.
struct ConvKernelMatch {
  /// NCHW input, KCRS weights, NKPQ output; or NHWC, KRSC, NPQK.
  bool Nhwc = false;
  unsigned In = 0, Weight = 0, Out = 0;
  /// `out[...] = acc + bias[k]`: the bias parameter.
  std::optional<unsigned> Bias;
  IndexExpr N, C, H, W, K, R, S, P, Q;
  IndexExpr PadH, PadW, StrideH, StrideW, DilH, DilW;
  std::vector<ConvLaunchCover> Covers;
  SymbolTable Symbols;

  /// \p E with each parameter replaced by \p Param(index) (parenthesised);
  /// products are computed in long long.
  std::string render(const IndexExpr &E,
                     llvm::function_ref<std::string(unsigned)> Param) const;
  /// \p E's value given the parameters' values, if all are known.
  std::optional<int64_t>
  evaluate(const IndexExpr &E,
           llvm::function_ref<std::optional<int64_t>(unsigned)> Param) const;
};

/// Prove that \p K is a direct fp32 2-D convolution, or say why not.
llvm::Expected<ConvKernelMatch> matchConvKernel(clang::ASTContext &Ctx,
                                                const KernelInfo &K);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_CONVKERNELMATCH_H
