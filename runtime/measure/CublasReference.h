//===- CublasReference.h - cuBLAS GEMM timed beside the variants -*- C++ -*-===//
//
// Part of cuda-opt's runtime. For a GEMM-like kernel the job names the
// problem (M, N, K, batch, dtype); the worker times cuBLAS on that problem
// (row-major C = A.B, fp32 accumulation, default algorithm) interleaved with
// the variants, so the report can say how far each is from the library.
// cuBLAS is loaded with dlopen: a worker without it still measures variants.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_CUBLASREFERENCE_H
#define CUDA_OPT_RUNTIME_CUBLASREFERENCE_H

#include "DType.h"

#include <cuda.h>

#include <string>
#include <vector>

namespace co_runtime {

struct GemmReference {
  long long M = 0, N = 0, K = 0, Batch = 1;
  DType Type = DType::F32;
  bool Ok = false;
  std::string Error;
  std::vector<double> Times;

  /// Load cuBLAS, allocate and fill A, B, C. On failure Ok stays false and
  /// Error says why (the variants are measured regardless).
  void setUp(CUstream Stream);
  /// Enqueue one GEMM on the stream given to setUp.
  bool run();
  ~GemmReference();

private:
  void *Lib = nullptr, *Handle = nullptr;
  CUdeviceptr A = 0, B = 0, C = 0;
};

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_CUBLASREFERENCE_H
