//===- PassesCommand.cpp - --passes=PIPELINE ------------------------------===//
//
// Part of cuda-opt. Applies a pipeline of transforms to one file and writes
// what --emit asks for: the rewritten source, a unified diff, or a report of
// what was applied where (text or --json).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"

#include "cuda-opt/Frontend/NvccCompat.h"
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

/// The first line of an output whose results may differ from the input's
/// in the last bits: which steps reorder sums, under which --fp-model.
static std::string fpModelHeader(const PipelineResult &R) {
  std::string Steps;
  for (const StepRecord &S : R.Steps)
    if (S.Applied && S.Effect != FpEffect::Preserves)
      Steps += (Steps.empty() ? "" : ", ") + S.Pass + " on '" + S.Kernel + "'";
  if (Steps.empty())
    return "";
  return "// cuda-opt --fp-model=" + fpModelName(cli::FpModelOpt).str() +
         ": " + Steps +
         " reorders floating-point sums; results may differ in the last "
         "bits (cuda-opt tune verifies such rewrites against an fp64 "
         "reference).\n";
}

/// The header line naming the libraries that the steps of \p Pipeline
/// which applied somewhere call.
static std::string linkHeader(const PipelineResult &R,
                              ArrayRef<PassInvocation> Pipeline) {
  std::vector<std::string> Flags, Passes;
  for (const PassInvocation &PI : Pipeline) {
    std::string Step = PI.str();
    bool Applied = any_of(R.Steps, [&](const StepRecord &S) {
      return S.Applied && S.Pass == Step;
    });
    if (Applied && appendLinkFlags(PI, Flags) &&
        !is_contained(Passes, PI.Pass->getName()))
      Passes.push_back(PI.Pass->getName().str());
  }
  return linkFlagsHeader(Flags, Passes);
}

Error runPasses(const Toolchain &TC, const SourceInput &In,
                ArrayRef<PassInvocation> Pipeline, StringRef Output) {
  PipelineOptions Opts;
  Opts.KernelName = cli::KernelName;
  Opts.Format = !cli::NoFormat;
  Opts.Model = cli::FpModelOpt;
  // As each step is decided, so that a step's notes show also when a later
  // step fails the run.
  Opts.OnStep = [](const StepRecord &S) { printNotes(S.Notes); };
  Expected<PipelineResult> R = runPipeline(TC, In, Pipeline, Opts);
  if (!R)
    return R.takeError();
  std::string Out;
  switch (cli::Emit) {
  case cli::EmitKind::Source:
    Out = fpModelHeader(*R) + linkHeader(*R, Pipeline) +
          standaloneText(TC, R->Text);
    break;
  case cli::EmitKind::Diff:
    Out = unifiedDiff(In.Path, In.Text, In.Path, standaloneText(TC, R->Text));
    break;
  case cli::EmitKind::Report:
    Out = report(In, *R);
    break;
  }
  return writeFileAtomically(Output, Out);
}

} // namespace cuda_opt
