//===- SourceParser.cpp - Parse CUDA source text into a clang AST ---------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Frontend/SourceParser.h"
#include "ParseErrors.h"
#include "cuda-opt/Frontend/NvccCompat.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

Expected<std::unique_ptr<ParsedSource>>
parseSource(const Toolchain &TC, const SourceInput &Input, CudaSide Side) {
  std::string Messages;
  raw_string_ostream OS(Messages);
  DiagnosticOptions DiagOpts;
  DiagOpts.ShowColors = false;
  ParseErrorCollector Collector(OS, DiagOpts, Input.Path);

  std::vector<std::string> Args = TC.parseArguments(Side, Input.Flags);
  // buildASTFromCodeWithArgs prepends the tool name itself.
  Args.erase(Args.begin());
  std::unique_ptr<ASTUnit> Unit = tooling::buildASTFromCodeWithArgs(
      normalizeSpacedLaunches(Input.Text), Args, Input.Path, "cuda-opt",
      std::make_shared<PCHContainerOperations>(),
      tooling::getClangStripDependencyFileAdjuster(),
      virtualHeaders(TC), &Collector);
  OS.flush();
  Expected<std::vector<NvccAcceptedError>> Accepted =
      checkParseErrors(Unit.get(), Collector, Messages);
  if (!Accepted)
    return Accepted.takeError();
  return std::make_unique<ParsedSource>(std::move(Unit), std::move(*Accepted));
}

Expected<std::unique_ptr<ParsedSource>>
parseCheckingBothSides(const Toolchain &TC, const SourceInput &Input) {
  Expected<std::unique_ptr<ParsedSource>> Host =
      parseSource(TC, Input, CudaSide::Host);
  if (!Host)
    return Host.takeError();
  if (Expected<std::unique_ptr<ParsedSource>> Device =
          parseSource(TC, Input, CudaSide::Device);
      !Device)
    return Device.takeError();
  return Host;
}

} // namespace cuda_opt
