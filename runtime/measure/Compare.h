//===- Compare.h - Compare a variant's outputs with the baseline's --------===//
//
// Part of cuda-opt's runtime. Rules (MEASURING.md): dtype-aware relative
// tolerance with an absolute floor tied to the output's scale; NaN or Inf
// where the baseline has a finite value fails; elements the baseline left
// unwritten (still the poison NaN) may stay unwritten.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_MEASURE_COMPARE_H
#define CUDA_OPT_RUNTIME_MEASURE_COMPARE_H

#include "DType.h"
#include <string>

namespace co_runtime {

struct CompareResult {
  bool Equal = true;
  size_t Mismatches = 0;
  size_t FirstIndex = 0;
  double FirstExpected = 0, FirstActual = 0;
  double MaxRelError = 0;
  std::string describe(const std::string &Buffer) const;
};

CompareResult compareBuffers(const void *Expected, const void *Actual,
                             size_t Count, DType T, double RelTol);

/// The spacing of fp32 numbers at magnitude |X| (one ulp), the slack of the
/// fp64-shadow rule (Shadow.h).
double ulpF32(double X);

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_MEASURE_COMPARE_H
