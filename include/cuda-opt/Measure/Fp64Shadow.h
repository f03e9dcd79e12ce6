//===- Fp64Shadow.h - The original kernel promoted to double ----*- C++ -*-===//
//
// Part of cuda-opt. Under --fp-model=reassoc a variant may sum in another
// order than the original, so comparing it with the original's fp32 outputs
// at a fixed tolerance rejects correct variants (a long sum's error grows
// with its length) and the original is no oracle either. The reference is an
// fp64 shadow of the original instead: a copy of the kernel (and of the
// __device__ functions of the main file it calls) in which every `float`
// type is `double`, every `1.0f` literal `1.0` and every float math function
// its double counterpart, so each float output is computed in double from
// the same inputs. The worker runs it on double copies of the float buffers
// and accepts a variant when, per output buffer,
//
//   max|variant - shadow| <= 2 * max|original - shadow| + 2 ulp(max|shadow|).
//
// A kernel that cannot be promoted (float bit tricks, vector types such as
// float4, callees in headers, template kernels, floats spelled in macros) has
// no shadow; the reason is reported and the variants are compared with the
// original at the fp32 tolerance.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_MEASURE_FP64SHADOW_H
#define CUDA_OPT_MEASURE_FP64SHADOW_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace cuda_opt {

struct Fp64Shadow {
  /// The whole file with the shadow kernel (and its callees' shadows)
  /// appended; the original code is untouched, so the file still builds
  /// with its host code.
  std::string Text;
  /// The shadow kernel's symbol (extern "C").
  std::string Entry;
  /// Per kernel parameter: its type was float* / float and is now double* /
  /// double (the worker passes double copies of those buffers and scalars).
  std::vector<bool> Promoted;
  /// The kernel declares dynamic (extern) shared memory of float type: the
  /// shadow needs twice the launch's dynamic shared bytes.
  bool DoublesDynamicShared = false;
};

/// The fp64 shadow of kernel \p K of the parsed file whose text is \p Text,
/// or the reason there is none.
llvm::Expected<Fp64Shadow> makeFp64Shadow(clang::ASTContext &Ctx,
                                          const KernelInfo &K,
                                          llvm::StringRef Text);

} // namespace cuda_opt

#endif // CUDA_OPT_MEASURE_FP64SHADOW_H
