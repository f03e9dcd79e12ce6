//===- ParseErrors.h - Collect a parse's error messages ---------*- C++ -*-===//
//
// Part of cuda-opt (private to lib/Frontend). Both ways of parsing
// (SourceParser.cpp, ParsePreamble.cpp) report a failed parse with the
// compiler's own error text, and notes of ours where they help; warnings in
// the user's code are not ours.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_LIB_FRONTEND_PARSEERRORS_H
#define CUDA_OPT_LIB_FRONTEND_PARSEERRORS_H

#include "MissingIncludes.h"
#include "RemovedCudaApis.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "llvm/ADT/SmallString.h"

namespace cuda_opt {

/// Prints error diagnostics (only) to a stream and counts them; an error
/// about an API that CUDA 13 removed gets a note naming its replacement, a
/// header not found notes naming where the project has it.
class ParseErrorCollector : public clang::TextDiagnosticPrinter {
public:
  /// \p MainFile is the parsed file's path, where the search for a missing
  /// header starts.
  ParseErrorCollector(llvm::raw_ostream &OS, clang::DiagnosticOptions &Opts,
                      llvm::StringRef MainFile)
      : clang::TextDiagnosticPrinter(OS, Opts), Out(OS),
        MainFile(MainFile.str()) {}
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
    for (const std::string &Note : missingIncludeNotes(Message, MainFile))
      Out << "note: " << Note << "\n";
  }
  unsigned Errors = 0;

private:
  llvm::raw_ostream &Out;
  std::string MainFile;
};

} // namespace cuda_opt

#endif // CUDA_OPT_LIB_FRONTEND_PARSEERRORS_H
