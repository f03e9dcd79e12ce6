//===- ParseErrors.h - Collect a parse's error messages ---------*- C++ -*-===//
//
// Part of cuda-opt (private to lib/Frontend). Both ways of parsing
// (SourceParser.cpp, ParsePreamble.cpp) report a failed parse with the
// compiler's own error text, and notes of ours where they help; warnings in
// the user's code are not ours. Two clang errors about code that nvcc 13
// compiles are held apart: the parse succeeds when they are the only errors
// and the AST shows them to be the nvcc-accepted form (NvccAcceptedErrors.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_LIB_FRONTEND_PARSEERRORS_H
#define CUDA_OPT_LIB_FRONTEND_PARSEERRORS_H

#include "MissingIncludes.h"
#include "RemovedCudaApis.h"
#include "cuda-opt/Frontend/SourceParser.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "llvm/ADT/SmallString.h"

namespace cuda_opt {

/// A clang error that nvcc 13 may accept, held until the AST says whether
/// the code is the form nvcc accepts.
struct HeldParseError {
  unsigned DiagID;
  clang::SourceLocation Loc;
  /// Where its printed text lies in the collector's output, [Begin, End):
  /// a failed parse leaves it out when the code is the form nvcc accepts.
  uint64_t Begin = 0, End = 0;
};

/// Whether \p DiagID is one of the errors that NvccAcceptedErrors.cpp may
/// accept: err_shared_var_init, err_variable_object_no_init.
inline bool mayBeNvccAccepted(unsigned DiagID) {
  return DiagID == clang::diag::err_shared_var_init ||
         DiagID == clang::diag::err_variable_object_no_init;
}

/// Prints error diagnostics (only) to a stream and counts them; an error
/// about an API that CUDA 13 removed gets a note naming its replacement, a
/// header not found notes naming where the project has it. The errors
/// mayBeNvccAccepted() names are printed too but counted apart, in Held; a
/// parse that fails for other errors leaves out those the AST shows to be
/// code nvcc accepts (docs/nvcc-compatibility.md).
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
    const uint64_t Begin = Out.tell();
    clang::TextDiagnosticPrinter::HandleDiagnostic(Level, Info);
    if (Level == clang::DiagnosticsEngine::Error &&
        mayBeNvccAccepted(Info.getID()) && Info.getLocation().isValid()) {
      Held.push_back({Info.getID(), Info.getLocation(), Begin, Out.tell()});
      return;
    }
    ++Errors;
    llvm::SmallString<128> Message;
    Info.FormatDiagnostic(Message);
    if (std::optional<std::string> Note = removedCudaApiNote(Message))
      Out << "note: " << *Note << "\n";
    for (const std::string &Note : missingIncludeNotes(Message, MainFile))
      Out << "note: " << Note << "\n";
  }
  /// Errors other than the held ones.
  unsigned Errors = 0;
  std::vector<HeldParseError> Held;

private:
  llvm::raw_ostream &Out;
  std::string MainFile;
};

/// The verdict on a finished parse: \p Unit (null when clang built none),
/// with the errors \p Collector saw and the text it printed, \p Messages.
/// Fails with \p Messages, less the held errors that the AST shows to be
/// code nvcc 13 accepts, unless those are the only errors; then returns
/// them, described, and passes each to the handler of
/// setNvccAcceptedErrorHandler.
llvm::Expected<std::vector<NvccAcceptedError>>
checkParseErrors(clang::ASTUnit *Unit, const ParseErrorCollector &Collector,
                 llvm::StringRef Messages);

} // namespace cuda_opt

#endif // CUDA_OPT_LIB_FRONTEND_PARSEERRORS_H
