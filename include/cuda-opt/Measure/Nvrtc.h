//===- Nvrtc.h - Compile device-only CUDA with NVRTC ------------*- C++ -*-===//
//
// Part of cuda-opt. The tuner compiles variants with NVRTC first (no host
// compiler, no process start: ~0.2 s for a small kernel) and falls back to
// nvcc for what NVRTC cannot build: files that include host headers or
// define host code NVRTC does not parse, and template kernels the file does
// not instantiate. libnvrtc is loaded at run time from the CUDA toolkit, so
// cuda-opt has no link dependency on it and works (nvcc only) without it.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_MEASURE_NVRTC_H
#define CUDA_OPT_MEASURE_NVRTC_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace cuda_opt {

class Nvrtc {
public:
  /// The NVRTC of the toolkit at \p CudaPath (lib64/libnvrtc.so), loaded
  /// once; nullptr with the reason in \p Why when it cannot be loaded.
  static Nvrtc *get(llvm::StringRef CudaPath, std::string &Why);

  /// Compile \p Text (named \p Name in diagnostics) to a cubin for \p Arch
  /// ("sm_90"); \p Flags are the file's -I/-D/-U/-std flags (others are
  /// ignored). Fails with NVRTC's log.
  llvm::Expected<std::string> compile(llvm::StringRef Text,
                                      llvm::StringRef Name,
                                      llvm::StringRef Arch,
                                      llvm::ArrayRef<std::string> Flags) const;

private:
  Nvrtc() = default;
  void *Create = nullptr, *CompileFn = nullptr, *LogSize = nullptr,
       *Log = nullptr, *CubinSize = nullptr, *Cubin = nullptr,
       *Destroy = nullptr, *ErrorString = nullptr;
  std::string CudaInclude;
};

} // namespace cuda_opt

#endif // CUDA_OPT_MEASURE_NVRTC_H
