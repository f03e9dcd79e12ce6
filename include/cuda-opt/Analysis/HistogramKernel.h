//===- HistogramKernel.h - Kernels that compute a histogram -----*- C++ -*-===//
//
// Part of cuda-opt. Recognises a one-element-per-thread (or grid-stride)
// kernel whose only effect is counting each element into one bin of a
// histogram:
//
//   int i = blockIdx.x * blockDim.x + threadIdx.x;
//   if (i < n) {
//     int v = data[i];
//     if (v >= 0 && v < nbins)           // or any proven-bounded bin
//       atomicAdd(&bins[v], 1);          // or += a grid-uniform weight
//   }
//
// launched over a grid that covers [0, n) (BinnedAtomics.h proves the shape,
// the bin's range and that the counters are touched by nothing else). The
// facts are what cub-histogram needs to hand the counting to
// cub::DeviceHistogram: the bin of element i is a pure function of i and
// the kernel's arguments (no thread or block index, no memory the kernel
// writes, no effect), either the element itself (`bins[data[i]]` with
// data of an unsigned 8- or 16-bit type: the samples are the data) or the
// per-element work with the update replaced by "the bin is ...", and each
// sample that reaches no update counts nowhere.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_HISTOGRAMKERNEL_H
#define CUDA_OPT_ANALYSIS_HISTOGRAMKERNEL_H

#include "cuda-opt/Analysis/BinnedAtomics.h"
#include "llvm/Support/Error.h"

namespace cuda_opt {

struct HistogramKernel {
  /// The shape, the counters (Binned.Array), the bin range (Binned.Bins or
  /// Binned.BinsParam) and the one update.
  BinnedAtomics Binned;
  /// The update's bin expression and the weight it adds (null: one).
  const clang::Expr *Bin = nullptr;
  const clang::Expr *Weight = nullptr;
  /// The update as a statement (the call, or `(void)` of it).
  const clang::Expr *UpdateStmt = nullptr;
  /// atomicSub: the weight is subtracted.
  bool Negated = false;
  /// The samples are the elements of this parameter themselves: the work is
  /// just the update of `bins[Samples[i]]` (Samples of an unsigned integer
  /// type no wider than 16 bits, so that every value is a bin), and CUB can
  /// read them directly. Null when the bin is computed.
  const clang::ParmVarDecl *Samples = nullptr;
  /// The kernel parameter the element count `n` of `i < n` is (null when the
  /// bound is a constant, BoundValue).
  const clang::ParmVarDecl *CountParam = nullptr;
  int64_t BoundValue = 0;
  /// `i <= n`: n + 1 elements.
  bool Inclusive = false;
  /// The elements are those of a grid-stride loop
  /// (`for (i = global index; i < n; i += blockDim.x * gridDim.x)`, the
  /// kernel's last statement) rather than one per thread.
  bool GridStride = false;
};

/// Recognise the histogram in \p K, or say why it is not one.
llvm::Expected<HistogramKernel> matchHistogramKernel(clang::ASTContext &Ctx,
                                                     const KernelInfo &K);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_HISTOGRAMKERNEL_H
