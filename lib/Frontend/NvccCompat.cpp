//===- NvccCompat.cpp - Host overloads nvcc provides and clang does not ---===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Frontend/NvccCompat.h"

namespace cuda_opt {

llvm::StringRef nvccCompatHeaderPath() {
  return "/cuda-opt-builtin/nvcc_host_compat.h";
}

// The overload set of CUDA 13's crt/math_functions.hpp (min/max for the
// integer types and their signed/unsigned mixes, float, double and their
// mixes), host-only: clang's headers already give the device the same set.
// Only parsed, never compiled: cuda-opt's variants are built by nvcc/NVRTC.
llvm::StringRef nvccCompatHeaderText() {
  return R"(#ifndef CUDA_OPT_NVCC_HOST_COMPAT_H
#define CUDA_OPT_NVCC_HOST_COMPAT_H
#if defined(__cplusplus) && defined(__CUDA__)
#define CUDA_OPT_MINMAX(R, A, B)                                              \
  static inline __attribute__((host)) R min(const A a, const B b) {          \
    return (R)a < (R)b ? (R)a : (R)b;                                        \
  }                                                                          \
  static inline __attribute__((host)) R max(const A a, const B b) {          \
    return (R)a > (R)b ? (R)a : (R)b;                                        \
  }
CUDA_OPT_MINMAX(int, int, int)
CUDA_OPT_MINMAX(unsigned int, unsigned int, unsigned int)
CUDA_OPT_MINMAX(unsigned int, int, unsigned int)
CUDA_OPT_MINMAX(unsigned int, unsigned int, int)
CUDA_OPT_MINMAX(long int, long int, long int)
CUDA_OPT_MINMAX(unsigned long int, unsigned long int, unsigned long int)
CUDA_OPT_MINMAX(unsigned long int, long int, unsigned long int)
CUDA_OPT_MINMAX(unsigned long int, unsigned long int, long int)
CUDA_OPT_MINMAX(long long int, long long int, long long int)
CUDA_OPT_MINMAX(unsigned long long int, unsigned long long int,
                unsigned long long int)
CUDA_OPT_MINMAX(unsigned long long int, long long int, unsigned long long int)
CUDA_OPT_MINMAX(unsigned long long int, unsigned long long int, long long int)
CUDA_OPT_MINMAX(float, float, float)
CUDA_OPT_MINMAX(double, double, double)
CUDA_OPT_MINMAX(double, float, double)
CUDA_OPT_MINMAX(double, double, float)
#undef CUDA_OPT_MINMAX
#endif
#endif
)";
}

} // namespace cuda_opt
