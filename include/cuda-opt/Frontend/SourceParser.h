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
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <functional>
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

/// A clang error that a parse accepted because nvcc 13 compiles the code
/// (docs/nvcc-compatibility.md): a function-scope `__shared__` object whose
/// default constructor is not empty (nvcc warns, #20054-D, and does not run
/// it) and a variable-length array with an initialiser in host code (a GCC
/// extension nvcc's host compiler takes). Clang leaves the declaration
/// invalid or its initialiser an error node in the AST, so the code around it
/// is not fully modelled: the transforms refuse to rewrite it
/// (Analysis/DamagedCode.h), and the output keeps it as written.
struct NvccAcceptedError {
  std::string Location; ///< "file:line:col" of the declaration.
  std::string Message; ///< What nvcc does, what clang does, what cuda-opt does.
};

/// A successfully parsed translation unit.
class ParsedSource {
public:
  ParsedSource(std::unique_ptr<clang::ASTUnit> Unit,
               std::vector<NvccAcceptedError> Accepted = {})
      : Unit(std::move(Unit)), Accepted(std::move(Accepted)) {}
  clang::ASTContext &getASTContext() { return Unit->getASTContext(); }
  clang::SourceManager &getSourceManager() { return Unit->getSourceManager(); }
  clang::ASTUnit &getUnit() { return *Unit; }
  /// The clang errors this parse accepted because nvcc accepts the code.
  llvm::ArrayRef<NvccAcceptedError> nvccAcceptedErrors() const {
    return Accepted;
  }

private:
  std::unique_ptr<clang::ASTUnit> Unit;
  std::vector<NvccAcceptedError> Accepted;
};

/// Install \p Handler, called (from any thread that parses) with each
/// NvccAcceptedError of each successful parse, so that the tool can warn;
/// parses of the same file on both sides, and of its rewrites, report the
/// same declaration again, so the tool prints each message once. An empty
/// function (the default) reports nothing.
void setNvccAcceptedErrorHandler(
    std::function<void(const NvccAcceptedError &)> Handler);

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
