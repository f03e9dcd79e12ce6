//===- ApplyRecorded.cpp - Re-apply the tuning database's choices ---------===//
//
// Part of cuda-opt. See ApplyRecorded.h.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Search/ApplyRecorded.h"

#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Pass/Pipeline.h"
#include "cuda-opt/Search/KernelHash.h"
#include "cuda-opt/Search/RecordedChoice.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace cuda_opt {

namespace {

/// \p Why (the pipeline's reason, on lines of its own) as one line.
std::string oneLine(const std::string &Why) {
  SmallVector<StringRef> Lines;
  StringRef(Why).split(Lines, '\n', -1, /*KeepEmpty=*/false);
  std::string Out;
  for (StringRef L : Lines)
    Out += (Out.empty() || Out.back() == ':' ? " " : "; ") + L.trim().str();
  return StringRef(Out).trim().str();
}

} // namespace

Expected<ApplyResult> applyRecordedChoices(const Toolchain &TC,
                                           const SourceInput &In,
                                           TuningDatabase &Db,
                                           const ApplyOptions &Opts) {
  ApplyResult Result;
  std::string SpecKernel, SpecSignature;
  // The kernels and their hashes, from the input as given.
  {
    Expected<std::unique_ptr<ParsedSource>> P = parseSource(TC, In);
    if (!P)
      return P.takeError();
    clang::ASTContext &Ctx = (*P)->getASTContext();
    std::vector<KernelInfo> Kernels = findKernels(Ctx);
    if (!Opts.KernelName.empty() && !lookupKernel(Kernels, Opts.KernelName))
      return createStringError(inconvertibleErrorCode(), "no kernel named '" +
                                                             Opts.KernelName +
                                                             "' in " + In.Path);
    if (Opts.SpecSignature) {
      Expected<std::pair<std::string, std::string>> S =
          Opts.SpecSignature(Ctx, Kernels);
      if (!S)
        return S.takeError();
      std::tie(SpecKernel, SpecSignature) = *S;
    }
    for (const KernelInfo &K : Kernels)
      if (Opts.KernelName.empty() || K.name() == Opts.KernelName) {
        AppliedKernel A;
        A.Name = K.name();
        A.Hash = kernelHash(Ctx, K);
        Result.Kernels.push_back(std::move(A));
      }
  }

  SourceInput Current = In;
  for (AppliedKernel &A : Result.Kernels) {
    TuningFilter F;
    F.KernelHash = A.Hash;
    Expected<std::vector<TuningRecord>> Rows = Db.query(F);
    if (!Rows)
      return Rows.takeError();
    ChoiceOptions CO;
    CO.GpuModel = Opts.GpuModel;
    CO.Model = Opts.Model;
    CO.Signature = !Opts.Signature.empty() ? Opts.Signature
                   : A.Name == SpecKernel     ? SpecSignature
                                              : "";
    std::optional<RecordedChoice> C = chooseRecorded(*Rows, CO);
    if (!C) {
      A.Why = (Rows->empty() ? "nothing recorded in "
                             : "no verified measurement usable under "
                               "--fp-model=" +
                                   fpModelName(Opts.Model).str() + " in ") +
              Db.path();
      continue;
    }
    const TuningRecord &B = C->Best;
    A.Recorded = true;
    A.Gpu = B.Key.Gpu.Model;
    if (!C->ExactSignature) {
      A.NearestSignature = B.Key.Signature;
      A.AskedSignature = CO.Signature;
    }
    if (B.Key.Pipeline.empty()) {
      A.Why = "no recorded variant beat the original on " + B.Key.Gpu.Model;
      continue;
    }
    Expected<std::vector<PassInvocation>> Pipeline =
        parsePipeline(B.Key.Pipeline);
    if (!Pipeline) {
      A.Failed = true;
      A.Why = "the recorded pipeline '" + B.Key.Pipeline +
              "' does not parse: " + oneLine(toString(Pipeline.takeError()));
      continue;
    }
    PipelineOptions PO;
    PO.KernelName = A.Name;
    PO.Format = Opts.Format;
    PO.Model = Opts.Model;
    PO.OnStep = [&A](const StepRecord &S) {
      A.Notes.insert(A.Notes.end(), S.Notes.begin(), S.Notes.end());
    };
    Expected<PipelineResult> R = runPipeline(TC, Current, *Pipeline, PO);
    if (!R) {
      A.Failed = true;
      A.Why = "the recorded pipeline '" + B.Key.Pipeline +
              "' no longer applies: " + oneLine(toString(R.takeError()));
      continue;
    }
    Current.Text = R->Text;
    A.Pipeline = B.Key.Pipeline;
    A.Speedup = C->Speedup;
    A.FpModelName = B.Key.FpModel;
    A.MeasuredAt = B.MeasuredAt;
    std::string Line = formatv("// cuda-opt apply: kernel '{0}': '{1}' from "
                               "the tuning database",
                               A.Name, B.Key.Pipeline);
    if (C->Speedup > 0)
      Line += formatv(", {0:F2}x over the original ({1:F4} ms -> {2:F4} ms)",
                      C->Speedup, C->Original->MedianMs, B.MedianMs);
    Line += " on " + B.Key.Gpu.Model + " (" + B.Key.FpModel + ", measured " +
            B.MeasuredAt + ")";
    if (!C->ExactSignature)
      Line += "; nearest recorded problem " + B.Key.Signature;
    Result.Header += Line + ".\n";
  }
  Result.Text = Current.Text;
  return Result;
}

} // namespace cuda_opt
