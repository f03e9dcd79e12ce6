//===- ParseErrors.h - Collect a parse's error messages ---------*- C++ -*-===//
//
// Part of cuda-opt (private to lib/Frontend). Both ways of parsing
// (SourceParser.cpp, ParsePreamble.cpp) report a failed parse with the
// compiler's own error text; warnings in the user's code are not ours.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_LIB_FRONTEND_PARSEERRORS_H
#define CUDA_OPT_LIB_FRONTEND_PARSEERRORS_H

#include "clang/Frontend/TextDiagnosticPrinter.h"

namespace cuda_opt {

/// Prints error diagnostics (only) to a stream and counts them.
class ParseErrorCollector : public clang::TextDiagnosticPrinter {
public:
  ParseErrorCollector(llvm::raw_ostream &OS, clang::DiagnosticOptions &Opts)
      : clang::TextDiagnosticPrinter(OS, Opts) {}
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    if (Level < clang::DiagnosticsEngine::Error)
      return;
    clang::TextDiagnosticPrinter::HandleDiagnostic(Level, Info);
    ++Errors;
  }
  unsigned Errors = 0;
};

} // namespace cuda_opt

#endif // CUDA_OPT_LIB_FRONTEND_PARSEERRORS_H
