//===- FuzzerSupport.h - What the cuda-opt fuzz targets share ---*- C++ -*-===//
//
// Part of cuda-opt. The toolchain the source fuzzers parse with (discovered
// once, as `cuda-opt` does) and the in-memory SourceInput a fuzz input
// becomes: a file in bench/corpus of the source tree (which does not exist
// on disk: the text is parsed from memory), with the include paths the
// corpus and the tests use, so seeds from there parse as they do in lit.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TOOLS_FUZZERS_FUZZERSUPPORT_H
#define CUDA_OPT_TOOLS_FUZZERS_FUZZERSUPPORT_H

#include "cuda-opt/Frontend/CudaToolchain.h"
#include "cuda-opt/Frontend/SourceParser.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"

#include <cstdlib>
#include <string>

namespace cuda_opt {
namespace fuzz {

/// The source tree: CUDA_OPT_SOURCE_DIR from the environment, else the one
/// this fuzzer was built from.
inline std::string sourceDir() {
  if (const char *Dir = std::getenv("CUDA_OPT_SOURCE_DIR"))
    return Dir;
  return CUDA_OPT_FUZZ_SOURCE_DIR;
}

/// The toolchain every parse uses (CUDA_PATH or /usr/local/cuda and the
/// build machine's clang resource directory); a fuzzer that cannot find
/// it stops at once rather than fuzzing nothing but the error path.
inline const Toolchain &toolchain() {
  static const Toolchain TC = [] {
    llvm::Expected<Toolchain> T = Toolchain::discover(ToolchainOptions());
    if (!T) {
      llvm::errs() << "fuzzer: " << llvm::toString(T.takeError()) << "\n";
      std::abort();
    }
    return *T;
  }();
  return TC;
}

/// \p Text as the file <source>/bench/corpus/fuzz-input.cu with the -I
/// flags of the corpus and of the lit tests.
inline SourceInput sourceInput(llvm::StringRef Text) {
  const std::string Src = sourceDir();
  SourceInput In;
  In.Path = Src + "/bench/corpus/fuzz-input.cu";
  In.Text = Text.str();
  In.Flags = {"-I" + Src + "/bench/corpus", "-I" + Src + "/test/GPU/Inputs",
              "-I" + Src + "/runtime/gemm/include",
              "-I" + Src + "/runtime/sparse/include"};
  return In;
}

/// Runs \p Fn on a thread with the 256 MiB stack cuda-opt's main gives the
/// tool (tools/cuda-opt/cuda-opt.cpp): clang's parser recurses once per
/// nesting level, so deep nesting that cuda-opt parses would overflow the
/// fuzzer's 8 MiB main stack.
template <typename FnT> void onToolStack(FnT Fn) {
  llvm::thread Worker(std::optional<unsigned>(256u << 20), Fn);
  Worker.join();
}

} // namespace fuzz
} // namespace cuda_opt

#endif // CUDA_OPT_TOOLS_FUZZERS_FUZZERSUPPORT_H
