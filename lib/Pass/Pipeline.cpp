//===- Pipeline.cpp - Run a pipeline of transforms -----------------------===//
//
// Part of cuda-opt.
//
// Each (pass, kernel) step works on a fresh parse of the current text, so
// edits from earlier steps are always seen by later ones and no step has to
// reason about offsets that moved. Parsing is cheap next to GPU time.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Pass/Pipeline.h"
#include "cuda-opt/Pass/SourceStyle.h"
#include "cuda-opt/Analysis/CudaOptPragma.h"

#include "clang/Format/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

json::Value PipelineResult::toJSON() const {
  json::Array Arr;
  for (const StepRecord &S : Steps) {
    json::Object O{{"pass", S.Pass},
                   {"kernel", S.Kernel},
                   {"applied", S.Applied},
                   {"edits", S.Edits}};
    if (!S.Applied)
      O["reason"] = S.Reason;
    if (!S.Notes.empty())
      O["notes"] = json::Array(S.Notes);
    Arr.push_back(std::move(O));
  }
  return json::Object{{"steps", std::move(Arr)}};
}

Expected<std::string> applyAndFormat(StringRef Path, StringRef Code,
                                     const tooling::Replacements &Replaces,
                                     bool Format) {
  tooling::Replacements ToApply = Replaces;
  if (Format) {
    format::FormatStyle Style = styleForFile(Path, Code);
    // Only the replaced ranges are reformatted; the rest stays byte-for-byte.
    Expected<tooling::Replacements> Formatted =
        format::formatReplacements(Code, Replaces, Style);
    if (!Formatted)
      return Formatted.takeError();
    ToApply = *Formatted;
  }
  return tooling::applyAllReplacements(Code, ToApply);
}

Error uncompilableRewriteError(StringRef Pass, StringRef Kernel,
                               StringRef Messages) {
  return createStringError(
      inconvertibleErrorCode(),
      "internal error: pass '%s' produced code for kernel '%s' that "
      "does not compile; the output was discarded. This is a cuda-opt "
      "bug; please report it with the input file.\n%s",
      Pass.str().c_str(), Kernel.str().c_str(), Messages.str().c_str());
}

StringRef defaultPipelineSpec() {
  return "restrict-const,vectorize{width=4},launch-bounds";
}

Expected<PipelineResult> runPipeline(const Toolchain &TC,
                                     const SourceInput &Input,
                                     ArrayRef<PassInvocation> Passes,
                                     const PipelineOptions &Opts) {
  PipelineResult Result;
  SourceInput Current = Input;
  // The host-side parse of Current.Text: made once per text, shared by the
  // steps until one of them changes the text.
  auto ParseHost = [&](const SourceInput &In) {
    return Opts.Preamble ? Opts.Preamble->parse(TC, In)
                         : parseSource(TC, In, CudaSide::Host);
  };
  // The parse the next step works on: the caller's or one of ours.
  ParsedSource *CurrentParse = Opts.InitialParse;
  std::unique_ptr<ParsedSource> OwnedParse;
  if (!CurrentParse) {
    Expected<std::unique_ptr<ParsedSource>> Initial = ParseHost(Current);
    if (!Initial)
      return Initial.takeError();
    OwnedParse = std::move(*Initial);
    CurrentParse = OwnedParse.get();
  }

  // The kernel names to work on, from the original file.
  std::vector<std::string> KernelNames;
  if (Opts.InitialParse) {
    assert(!Opts.KernelName.empty() && "InitialParse needs a KernelName");
    KernelNames.push_back(Opts.KernelName);
  } else {
    std::vector<KernelInfo> Kernels =
        findKernels(CurrentParse->getASTContext());
    if (Kernels.empty())
      return createStringError(inconvertibleErrorCode(),
                               "no __global__ kernel is defined in '%s'",
                               Input.Path.c_str());
    if (!Opts.KernelName.empty()) {
      if (!lookupKernel(Kernels, Opts.KernelName)) {
        std::string Names;
        for (const KernelInfo &K : Kernels)
          Names += (Names.empty() ? "" : ", ") + K.name();
        return createStringError(inconvertibleErrorCode(),
                                 "no kernel named '%s' in '%s' (kernels: %s)",
                                 Opts.KernelName.c_str(), Input.Path.c_str(),
                                 Names.c_str());
      }
      KernelNames.push_back(Opts.KernelName);
    } else {
      for (const KernelInfo &K : Kernels)
        KernelNames.push_back(K.name());
    }
  }

  auto Record = [&](StepRecord Step) {
    if (Opts.OnStep)
      Opts.OnStep(Step);
    Result.Steps.push_back(std::move(Step));
  };
  // The last (pass, kernel) step: only it may skip the re-parse.
  auto IsLastStep = [&](const PassInvocation *PI, const std::string *Name) {
    return PI == &Passes.back() && *Name == KernelNames.back();
  };
  for (const PassInvocation &PI : Passes) {
    unsigned AppliedForPass = 0;
    std::string Reasons;
    for (const std::string &Name : KernelNames) {
      StepRecord Step;
      Step.Pass = PI.str();
      Step.Kernel = Name;
      ASTContext &Ctx = CurrentParse->getASTContext();
      std::vector<KernelInfo> Kernels = findKernels(Ctx);
      const KernelInfo *K = lookupKernel(Kernels, Name);
      if (!K)
        return createStringError(inconvertibleErrorCode(),
                                 "internal error: kernel '%s' disappeared "
                                 "after an earlier pass; please report this",
                                 Name.c_str());
      KernelTarget Target{Ctx, *K};
      auto PlanStep = [&]() -> Expected<std::unique_ptr<TransformPlan>> {
        if (!K->DeviceLaunches.empty() && !PI.Pass->isKernelLocal())
          return refuse(
              "kernel '" + Name + "' is also launched from device code at " +
              describeLocation(Ctx.getSourceManager(),
                               K->DeviceLaunches.front().Call->getBeginLoc()) +
              " (dynamic parallelism), which cuda-opt does not model; only "
              "kernel-local passes such as unroll apply");
        if (std::optional<std::string> Arch = archConditionalRefusal(Ctx, *K))
          return refuse(*Arch);
        std::string PinError;
        FpModel Model = Opts.Model;
        if (std::optional<FpModel> Pin =
                kernelFpModelPin(Ctx, K->Decl, PinError))
          Model = *Pin;
        if (!PinError.empty())
          return refuse(PinError);
        FpEffect Effect = PI.Pass->fpEffectOn(Target, PI.Params);
        if (!fpModelAllows(Model, Effect))
          return refuse(fpModelRefusal(Effect, Model, Name));
        return PI.Pass->plan(Target, PI.Params);
      };
      Expected<std::unique_ptr<TransformPlan>> StepPlan = PlanStep();
      if (!StepPlan) {
        Step.Reason = toString(StepPlan.takeError());
        Reasons += "\n  kernel '" + Name + "': " + Step.Reason;
        Record(std::move(Step));
        continue;
      }
      Expected<tooling::Replacements> Edits =
          PI.Pass->apply(Target, **StepPlan);
      if (!Edits)
        return createStringError(inconvertibleErrorCode(),
                                 "pass '%s' failed on kernel '%s': %s",
                                 Step.Pass.c_str(), Name.c_str(),
                                 toString(Edits.takeError()).c_str());
      Step.Notes = std::move((*StepPlan)->Notes);
      Step.Effect = PI.Pass->fpEffectOn(Target, PI.Params);
      StepPlan->reset(); // It points into the AST that the re-parse replaces.
      Expected<std::string> NewText =
          applyAndFormat(Current.Path, Current.Text, *Edits, Opts.Format);
      if (!NewText)
        return NewText.takeError();
      SourceInput Candidate = Current;
      Candidate.Text = *NewText;
      if (!Opts.CheckFinalText && IsLastStep(&PI, &Name)) {
        Current = std::move(Candidate);
        Step.Applied = true;
        Step.Edits = Edits->size();
        Record(std::move(Step));
        ++AppliedForPass;
        continue;
      }
      Expected<std::unique_ptr<ParsedSource>> Checked =
          Opts.CheckFinalText ? parseCheckingBothSides(TC, Candidate)
                              : ParseHost(Candidate);
      if (!Checked)
        return uncompilableRewriteError(Step.Pass, Name,
                                        toString(Checked.takeError()));
      Current = std::move(Candidate);
      OwnedParse = std::move(*Checked);
      CurrentParse = OwnedParse.get();
      Step.Applied = true;
      Step.Edits = Edits->size();
      Record(std::move(Step));
      ++AppliedForPass;
    }
    if (AppliedForPass == 0 && !Opts.SkipIllegal)
      return createStringError(inconvertibleErrorCode(),
                               "pass '%s' is not legal here:%s",
                               PI.str().c_str(), Reasons.c_str());
  }
  Result.Text = std::move(Current.Text);
  return Result;
}

} // namespace cuda_opt
