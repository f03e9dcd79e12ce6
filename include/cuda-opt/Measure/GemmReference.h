//===- GemmReference.h - The cuBLAS problem a GEMM kernel solves -*- C++ -*-===//
//
// Part of cuda-opt. For a kernel the analysis classifies as a GEMM, derive
// the equivalent cuBLAS problem from its launch so the worker can time
// cuBLAS beside the variants:
//   K     the trip count of the loop holding the product accumulation,
//   N     the factor of threadIdx.y in the output's index (row * N + col),
//   batch gridDim.z when the output index has a blockIdx.z term,
//   M     the rows the output buffer holds (elements / (N * batch)), capped
//         by the rows the grid covers,
//   dtype the output's element type.
// Anything that does not fit this pattern gets no reference, with a reason.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_MEASURE_GEMMREFERENCE_H
#define CUDA_OPT_MEASURE_GEMMREFERENCE_H

#include "cuda-opt/Analysis/KernelModel.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include <array>
#include <optional>
#include <string>

namespace cuda_opt {

/// \p IntArgs: the kernel's integer scalar arguments by parameter name;
/// \p BufferElements: element count of each pointer parameter's buffer.
std::optional<llvm::json::Object>
gemmReferenceFor(const KernelModel &Model,
                 const llvm::StringMap<int64_t> &IntArgs,
                 const llvm::StringMap<int64_t> &BufferElements,
                 const std::array<int64_t, 3> &Grid,
                 const std::array<int64_t, 3> &Block, std::string &Why);

} // namespace cuda_opt

#endif // CUDA_OPT_MEASURE_GEMMREFERENCE_H
