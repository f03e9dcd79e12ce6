//===- TempFile.h - Fuzz input bytes as a file ------------------*- C++ -*-===//
//
// Part of cuda-opt. The .tls, .npy and .safetensors readers take a path, as
// their callers (sparse-encode, tls-roundtrip) have one; the fuzzers write
// each input to a file of this process (in TMPDIR, else /tmp) and read it
// back. Plain C++: these fuzzers link only the LLVM-free runtime.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TOOLS_FUZZERS_TEMPFILE_H
#define CUDA_OPT_TOOLS_FUZZERS_TEMPFILE_H

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace cuda_opt {
namespace fuzz {

/// The path "<tmp>/cuda-opt-fuzz-<pid>-<Name>", unique to this process.
inline std::string tempPath(const std::string &Name) {
  const char *Dir = std::getenv("TMPDIR");
  return std::string(Dir && *Dir ? Dir : "/tmp") + "/cuda-opt-fuzz-" +
         std::to_string(getpid()) + "-" + Name;
}

/// Writes \p Size bytes at \p Data to \p Path; aborts when it cannot (the
/// fuzzer would otherwise test only the "cannot open" path).
inline void writeFile(const std::string &Path, const void *Data, size_t Size) {
  FILE *F = std::fopen(Path.c_str(), "wb");
  if (!F || (Size && std::fwrite(Data, 1, Size, F) != Size) ||
      std::fclose(F) != 0) {
    std::fprintf(stderr, "fuzzer: cannot write %s\n", Path.c_str());
    std::abort();
  }
}

} // namespace fuzz
} // namespace cuda_opt

#endif // CUDA_OPT_TOOLS_FUZZERS_TEMPFILE_H
