//===- PassesCommand.cpp - --passes=PIPELINE ------------------------------===//
//
// Part of cuda-opt. Applies a pipeline of transforms to one file and writes
// what --emit asks for: the rewritten source, a unified diff, or a report of
// what was applied where (text or --json).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"

#include "cuda-opt/Support/OutputFile.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cuda_opt {

static std::string report(const SourceInput &In, const PipelineResult &R) {
  std::string Out;
  raw_string_ostream OS(Out);
  if (cli::JSON) {
    json::Value V = R.toJSON();
    V.getAsObject()->insert({"file", In.Path});
    OS << formatv("{0:2}", V) << "\n";
    return Out;
  }
  OS << "file " << In.Path << "\n";
  for (const StepRecord &S : R.Steps) {
    OS << "  " << S.Pass << " on " << S.Kernel << ": ";
    if (S.Applied)
      OS << "applied (" << S.Edits << " edits)\n";
    else
      OS << "skipped: " << S.Reason << "\n";
  }
  return Out;
}

Error runPasses(const Toolchain &TC, const SourceInput &In,
                ArrayRef<PassInvocation> Pipeline, StringRef Output) {
  PipelineOptions Opts;
  Opts.KernelName = cli::KernelName;
  Opts.Format = !cli::NoFormat;
  // As each step is decided, so that a step's notes show also when a later
  // step fails the run.
  Opts.OnStep = [](const StepRecord &S) { printNotes(S.Notes); };
  Expected<PipelineResult> R = runPipeline(TC, In, Pipeline, Opts);
  if (!R)
    return R.takeError();
  std::string Out;
  switch (cli::Emit) {
  case cli::EmitKind::Source:
    Out = R->Text;
    break;
  case cli::EmitKind::Diff:
    Out = unifiedDiff(In.Path, In.Text, In.Path, R->Text);
    break;
  case cli::EmitKind::Report:
    Out = report(In, *R);
    break;
  }
  return writeFileAtomically(Output, Out);
}

} // namespace cuda_opt
