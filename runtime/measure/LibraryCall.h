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
//               "lda": .., "ldb": .., "ldc": .., "alpha": .., "beta": ..,
//               fp32 also "reassociate": bool, "library_algo": K}
// where ARG is the index of a buffer argument of the job, or
//   "library": {"kind": "cudaopt_region", "path": ".../region-v3.so",
//               "entry": "cudaopt_region_entry"}
// a host region (several launches) that cuda-opt outlined into
// `extern "C" int entry(void **args, void *stream)` and nvcc built into a
// shared library. It gets the kernel parameters the worker would pass to
// cuLaunchKernel and returns a cudaError_t. Every region exports the same
// symbol, so each library is dlopen'ed RTLD_LOCAL on its own.
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
  /// Run it on the kernel's arguments: Params as for cuLaunchKernel (a
  /// region's args), Ptrs[i] argument i's device address (the gemm's
  /// operands); asynchronous on Stream.
  CUresult run(std::vector<void *> &Params,
               const std::vector<CUdeviceptr> &Ptrs, CUstream Stream,
               std::string &Error);
  const std::string &path() const { return Path; }
  /// A cudaopt_region call: it replaces a whole host region, so it can
  /// stand for the baseline.
  bool isRegion() const { return Region; }

private:
  bool parseGemm(const Json &J, size_t NumArgs, std::string &Error);
  CUresult runGemm(const std::vector<CUdeviceptr> &Ptrs, CUstream Stream,
                   std::string &Error);
  CUresult runRegion(std::vector<void *> &Params, CUstream Stream,
                     std::string &Error);

  std::string Kind, Path;
  bool Region = false;
  /// The region's entry point symbol.
  std::string EntryName;
  long long M = 0, N = 0, K = 0, Lda = 0, Ldb = 0, Ldc = 0;
  bool BF16 = false, F32 = false, BRowMajor = true;
  int A = -1, B = -1, C = -1;
  double Alpha = 1, Beta = 0;
  long long Batch = 1, StrideA = 0, StrideB = 0, StrideC = 0;
  bool Reassociate = false;
  int LibraryAlgo = 0;
  void *Entry = nullptr;
};

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_MEASURE_LIBRARYCALL_H
