//===- ParsePreamble.h - Parse many variants of one file quickly -*- C++ -*-===//
//
// Part of cuda-opt. The tuner parses every candidate rewrite of a file, and
// most of a parse is the file's #include prelude (the CUDA runtime wrapper,
// the standard library): ~0.6 s of CPU per parse for a corpus program. A
// ParsePreamble compiles that prelude once (clang's PrecompiledPreamble, kept
// in memory); parses of texts that share the prelude then only parse the
// rest of the file. A preamble is read-only once built, so any number of
// threads can parse with it at once.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_FRONTEND_PARSEPREAMBLE_H
#define CUDA_OPT_FRONTEND_PARSEPREAMBLE_H

#include "cuda-opt/Frontend/SourceParser.h"

#include <memory>

namespace clang {
class PrecompiledPreamble;
class CompilerInvocation;
} // namespace clang

namespace cuda_opt {

class ParsePreamble {
public:
  /// Precompile the prelude of \p Input for \p Side; nullptr when there is
  /// nothing worth precompiling or clang cannot (parses then go the normal
  /// way).
  static std::shared_ptr<ParsePreamble>
  build(const Toolchain &TC, const SourceInput &Input, CudaSide Side);
  ~ParsePreamble();

  /// Parse \p Input (same path and flags as the preamble's file) using the
  /// preamble when its prelude is unchanged, else without it.
  llvm::Expected<std::unique_ptr<ParsedSource>>
  parse(const Toolchain &TC, const SourceInput &Input) const;

  CudaSide side() const { return Side; }

private:
  ParsePreamble() = default;
  std::unique_ptr<clang::PrecompiledPreamble> Preamble;
  CudaSide Side = CudaSide::Host;
  std::vector<std::string> Flags;
  std::string Path;
};

} // namespace cuda_opt

#endif // CUDA_OPT_FRONTEND_PARSEPREAMBLE_H
