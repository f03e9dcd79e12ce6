//===- ParseErrors.h - Collect a parse's error messages ---------*- C++ -*-===//
//
// Part of cuda-opt (private to lib/Frontend). Both ways of parsing
// (SourceParser.cpp, ParsePreamble.cpp) report a failed parse with the
// compiler's own error text; warnings in the user's code are not ours.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_LIB_FRONTEND_PARSEERRORS_H
#define CUDA_OPT_LIB_FRONTEND_PARSEERRORS_H

#include "RemovedCudaApis.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "llvm/ADT/SmallString.h"

namespace cuda_opt {

/// Prints error diagnostics (only) to a stream and counts them; an error
/// about an API that CUDA 13 removed gets a note naming its replacement.
class ParseErrorCollector : public clang::TextDiagnosticPrinter {
public:
  ParseErrorCollector(llvm::raw_ostream &OS, clang::DiagnosticOptions &Opts)
      : clang::TextDiagnosticPrinter(OS, Opts), Out(OS) {}
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    if (Level < clang::DiagnosticsEngine::Error)
      return;
    clang::TextDiagnosticPrinter::HandleDiagnostic(Level, Info);
    ++Errors;
    llvm::SmallString<128> Message;
    Info.FormatDiagnostic(Message);
    if (std::optional<std::string> Note = removedCudaApiNote(Message))
      Out << "note: " << *Note << "\n";
  }
  unsigned Errors = 0;

private:
  llvm::raw_ostream &Out;
};

} // namespace cuda_opt

#endif // CUDA_OPT_LIB_FRONTEND_PARSEERRORS_H
