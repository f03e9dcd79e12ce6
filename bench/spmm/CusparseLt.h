//===- CusparseLt.h - cuSPARSELt 2:4 baseline through dlopen --------------===//
//
// cuSPARSELt ships on the GPU machine only inside PyTorch's Python
// environment, and its header's license does not let us carry it, so the few
// entry points the benchmark uses are declared here from the documented API
// (cuSPARSELt >= 0.6 enum values) and resolved with dlopen at run time.
// Opaque handles get 1024 bytes, more than any released version needs.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_OPT_BENCH_SPMM_CUSPARSELT_H
#define CUDA_OPT_BENCH_SPMM_CUSPARSELT_H

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <string>

namespace spmmbench {

/// One W (M x K, row-major fp16) pruned to 2:4 and compressed, ready to
/// multiply X (column-major K x N) into Y (column-major M x N).
class CusparseLtGemm {
public:
  /// Loads the library (Path: libcusparseLt.so.0 or empty for the default
  /// search path). Returns false with Error set when it cannot.
  static bool load(const std::string &Path, std::string &Error);
  static bool loaded();
  static int version();

  CusparseLtGemm() = default;
  ~CusparseLtGemm();
  CusparseLtGemm(const CusparseLtGemm &) = delete;
  CusparseLtGemm &operator=(const CusparseLtGemm &) = delete;

  /// Prunes W into Pruned (2:4 along K, keeping the larger two of every four,
  /// cuSPARSELt's STRIP rule), plans Y = W * X for this N and compresses.
  bool init(const __half *W, __half *Pruned, int M, int K, int N, int Ldx,
            int Ldy, cudaStream_t Stream, std::string &Error);
  bool run(const __half *X, __half *Y, cudaStream_t Stream, std::string &Error);

private:
  struct State;
  State *S = nullptr;
};

} // namespace spmmbench

#endif // CUDA_OPT_BENCH_SPMM_CUSPARSELT_H
