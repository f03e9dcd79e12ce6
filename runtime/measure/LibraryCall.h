//===- LibraryCall.h - Variants that call a library instead of a kernel --===//
//
// Part of cuda-opt's runtime. Transforms such as gemm-specialize replace a
// kernel launch with a call into one of the project's runtime libraries, so
// their variant has no kernel to load. The worker runs such a variant by
// calling the library (dlopen'ed from the path the job gives) on the replay
// buffers; it is then verified and timed like any other variant.
//
// Job format, inside a variant:
//   "library": {"kind": "cudaopt_gemm", "path": ".../libcudaopt_gemm.so",
//               "m": M, "n": N, "k": K, "dtype": "f16" | "bf16",
//               "b_layout": "row" | "col", "a": ARG, "b": ARG, "c": ARG,
//               "lda": .., "ldb": .., "ldc": .., "alpha": .., "beta": ..}
// where ARG is the index of a buffer argument of the job.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_MEASURE_LIBRARYCALL_H
#define CUDA_OPT_RUNTIME_MEASURE_LIBRARYCALL_H

#include "Json.h"

#include <cuda.h>

#include <string>
#include <vector>

namespace co_runtime {

class LibraryCall {
public:
  /// Read the "library" object; false with a message on a malformed one.
  bool parse(const Json &J, size_t NumArgs, std::string &Error);
  /// dlopen the library and find its entry point.
  bool load(std::string &Error);
  /// Run it on the kernel's pointers (Ptrs[i] is argument i's device
  /// address); asynchronous on Stream.
  CUresult run(const std::vector<CUdeviceptr> &Ptrs, CUstream Stream,
               std::string &Error);
  const std::string &path() const { return Path; }

private:
  std::string Kind, Path;
  long long M = 0, N = 0, K = 0, Lda = 0, Ldb = 0, Ldc = 0;
  bool BF16 = false, F32 = false, BRowMajor = true;
  int A = -1, B = -1, C = -1;
  double Alpha = 1, Beta = 0;
  long long Batch = 1, StrideA = 0, StrideB = 0, StrideC = 0;
  void *Entry = nullptr;
};

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_MEASURE_LIBRARYCALL_H
