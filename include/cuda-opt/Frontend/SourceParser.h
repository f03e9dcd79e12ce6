//===- SourceParser.h - Parse CUDA source text into a clang AST -*- C++ -*-===//
//
// Part of cuda-opt. One parse of one file's text (possibly rewritten, not yet
// on disk) on one side (host or device) of the CUDA compilation.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_FRONTEND_SOURCEPARSER_H
#define CUDA_OPT_FRONTEND_SOURCEPARSER_H

#include "cuda-opt/Frontend/CudaToolchain.h"
#include "clang/Frontend/ASTUnit.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>

namespace cuda_opt {

/// The input the tool works on: a file's path, its current text, and the
/// parse flags (include paths, defines) that came with it.
struct SourceInput {
  std::string Path;  ///< Absolute path; includes resolve relative to it.
  std::string Text;  ///< Current contents (the original or a rewrite).
  std::vector<std::string> Flags; ///< -I/-D/-std flags for this file.
};

/// A successfully parsed translation unit.
class ParsedSource {
public:
  ParsedSource(std::unique_ptr<clang::ASTUnit> Unit) : Unit(std::move(Unit)) {}
  clang::ASTContext &getASTContext() { return Unit->getASTContext(); }
  clang::SourceManager &getSourceManager() { return Unit->getSourceManager(); }
  clang::ASTUnit &getUnit() { return *Unit; }

private:
  std::unique_ptr<clang::ASTUnit> Unit;
};

/// Parse \p Input on \p Side. Fails with the compiler's error messages (file,
/// line, column) when the text does not compile.
llvm::Expected<std::unique_ptr<ParsedSource>>
parseSource(const Toolchain &TC, const SourceInput &Input,
            CudaSide Side = CudaSide::Host);

/// Parse both sides and report the first errors; used to check rewritten
/// code. Returns the host-side parse so the caller need not parse it again.
llvm::Expected<std::unique_ptr<ParsedSource>>
parseCheckingBothSides(const Toolchain &TC, const SourceInput &Input);

} // namespace cuda_opt

#endif // CUDA_OPT_FRONTEND_SOURCEPARSER_H
