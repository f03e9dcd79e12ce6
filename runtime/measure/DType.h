//===- DType.h - Element types the measurement runtime understands --------===//
//
// Part of cuda-opt's runtime.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_MEASURE_DTYPE_H
#define CUDA_OPT_RUNTIME_MEASURE_DTYPE_H

#include <cstddef>
#include <string>

namespace co_runtime {

enum class DType { F32, F64, F16, BF16, I8, U8, I32, U32, I64, U64, Invalid };

DType parseDType(const std::string &Name);
const char *dtypeName(DType T);
size_t dtypeSize(DType T);
bool isFloating(DType T);
/// Default relative tolerance for comparing a variant with its baseline
/// (MEASURING.md: fp32 ~1e-5, fp16/bf16 ~1e-2, integers exact).
double defaultRelTol(DType T);

/// Element I of a buffer of type T as a double (fp16/bf16 decoded on the host).
double loadAsDouble(const void *Base, size_t I, DType T);
/// Store V into element I, rounding to the type.
void storeFromDouble(void *Base, size_t I, DType T, double V);

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_MEASURE_DTYPE_H
