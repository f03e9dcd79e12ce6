//===- PredictedRewrite.cpp - The ranker's best strict rewrite, unmeasured ===//
//
// Part of cuda-opt. When nothing can be measured (no GPU, no way to run the
// kernel, or cuda-opt run without a mode), tune still rewrites. Nothing it
// writes then may change a floating-point result: a variant that reorders
// sums is only kept after the GPU verified it against the fp64 shadow of the
// original (docs/fp-model.md). Within that rule, each kernel gets the legal
// candidate that keeps every floating-point operation (strict) which the
// learned ranker ranks first, when the ranker predicts it faster than the
// original; other kernels are left as they are. The prediction knows the
// kernel's code, not its problem sizes (nothing was captured), as the
// committed training rows do not either.
//
// With a pipeline given (--passes) or another policy than the ranker, the
// given or the default pipeline is applied where legal instead (Tuner.cpp,
// rewriteFixedPipeline).
//
//===----------------------------------------------------------------------===//
#include "TunerInternal.h"

#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Search/CandidateSpace.h"
#include "cuda-opt/Search/Ranker.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <limits>

using namespace llvm;

namespace cuda_opt {
namespace tuner {

namespace {

/// Whether \p Pipeline may be applied to \p K without a measurement: every
/// step keeps every floating-point operation, none calls a library (which
/// needs its library built and linked), and none asserts something about
/// launches the file does not show (Transform::assumesUnseenLaunches: a
/// user may, a prediction made for them may not).
bool appliesUnmeasured(clang::ASTContext &Ctx, const KernelInfo &K,
                       StringRef Pipeline) {
  Expected<std::vector<PassInvocation>> Steps = parsePipeline(Pipeline);
  if (!Steps) {
    consumeError(Steps.takeError());
    return false;
  }
  for (const PassInvocation &PI : *Steps)
    if (PI.Pass->replacesLaunch(PI.Params) ||
        (K.Launches.empty() && PI.Pass->assumesUnseenLaunches(PI.Params)))
      return false;
  return modelNeededFor(KernelTarget{Ctx, K}, *Steps) == FpModel::Strict;
}

/// The kernels a prediction rewrites, in the file's order: those tune would
/// tune (the named one; in a program, the launched ones).
std::vector<std::string> kernelsToPredict(ParsedSource &Parsed,
                                          const TuneOptions &Opts) {
  std::vector<std::string> Names;
  const bool HasMain = definesMain(Parsed.getASTContext());
  for (const KernelInfo &K : findKernels(Parsed.getASTContext()))
    if (!Opts.KernelName.empty() ? K.name() == Opts.KernelName
                                 : !(HasMain && K.Launches.empty()))
      Names.push_back(K.name());
  return Names;
}

} // namespace

Expected<TuneResult> rewritePredicted(const Toolchain &TC,
                                      const SourceInput &Input,
                                      const TuneOptions &OptsIn,
                                      StringRef Why) {
  TuneOptions Opts = OptsIn;
  Opts.Model = FpModel::Strict; // Unverified: every operation kept.
  Opts.Budget = 4;              // Rewrite only the first few ranked.
  Opts.OnlineRounds = 1;
  Opts.DryRun = true; // No later parse of the variants needs the preamble.
  TuneResult T;
  T.Model = FpModel::Strict;
  T.Policy = Opts.Ranker->describe();
  T.NotMeasuredReason = Why.str();
  T.PredictedBy = "the learned ranker's first rewrite of each kernel that "
                  "keeps every floating-point operation (strict), where it "
                  "predicts it faster than the original";
  SourceInput Current = Input;
  Expected<std::unique_ptr<ParsedSource>> First = parseSource(TC, Current);
  if (!First)
    return First.takeError();
  std::unique_ptr<ParsedSource> Parsed = std::move(*First);
  bool Stale = false; // Parsed is of an earlier text than Current's.
  const std::vector<std::string> Names = kernelsToPredict(*Parsed, Opts);
  for (const std::string &Name : Names) {
    T.Kernel += (T.Kernel.empty() ? "" : ", ") + Name;
    if (Stale) {
      Expected<std::unique_ptr<ParsedSource>> P = parseSource(TC, Current);
      if (!P)
        return P.takeError();
      Parsed = std::move(*P);
      Stale = false;
    }
    clang::ASTContext &Ctx = Parsed->getASTContext();
    std::vector<KernelInfo> Kernels = findKernels(Ctx);
    const KernelInfo *K = lookupKernel(Kernels, Name);
    CandidateRecord Outcome;
    Outcome.Kernel = Name;
    Outcome.Id = "original";
    Outcome.Status = "skipped";
    if (!K) { // An earlier kernel's rewrite replaced it.
      Outcome.Detail = "no longer in the file after an earlier rewrite";
      T.Candidates.push_back(Outcome);
      continue;
    }
    if (std::optional<std::string> Arch = archConditionalRefusal(Ctx, *K)) {
      Outcome.Detail = *Arch;
      T.Candidates.push_back(Outcome);
      continue;
    }
    Harness H;
    H.ProgramMode = true; // The rewrite's own host code makes the launch.
    const KernelFeatures Features = buildKernelModel(Ctx, *K).features();
    const std::string Signature = harnessSignature(H);
    const std::optional<double> Original =
        Opts.Ranker->predictLog(Features, Signature, "");
    // The candidates (the space, or --candidates) the ranker predicts
    // faster than the original, best first. A pass the model never saw has
    // no prediction: tune measures such candidates first, but unmeasured
    // there is nothing to go on.
    std::vector<std::pair<double, std::string>> Scored;
    std::string Unseen;
    for (const std::string &P :
         OptsIn.Candidates.empty()
             ? candidatePipelines(std::numeric_limits<unsigned>::max())
             : OptsIn.Candidates) {
      std::optional<double> S = Opts.Ranker->predictLog(Features, Signature, P);
      if (!S && Unseen.empty())
        Unseen = P;
      if (S && Original && *S > *Original && appliesUnmeasured(Ctx, *K, P))
        Scored.push_back({*S, P});
    }
    std::stable_sort(
        Scored.begin(), Scored.end(),
        [](const auto &A, const auto &B) { return A.first > B.first; });
    TuneOptions KernelOpts = Opts;
    KernelOpts.Candidates.clear();
    for (const auto &[Score, P] : Scored)
      KernelOpts.Candidates.push_back(P);
    // The legal ones rewritten in that order: the first is applied.
    const VariantSource *Chosen = nullptr;
    CandidateSet Set;
    std::string FirstRefusal; // Of the best predicted candidate refused.
    if (!KernelOpts.Candidates.empty()) {
      TuneResult Scratch; // The refusals; only the first is reported.
      Set = generateVariants(TC, Current, *Parsed, *K, H, KernelOpts, Scratch);
      for (const CandidateRecord &R : Scratch.Candidates)
        if (R.Status == "illegal" && FirstRefusal.empty())
          FirstRefusal = R.Detail;
      if (Set.Variants.size() > 1)
        Chosen = &Set.Variants[1];
    }
    if (!Chosen) {
      Outcome.Detail =
          !Scored.empty()
              ? "no candidate predicted faster than the original is legal "
                "and keeps every floating-point operation (strict)" +
                    (FirstRefusal.empty()
                         ? std::string()
                         : " (the first refused: " + FirstRefusal + ")")
          : !Unseen.empty()
              ? formatv("no candidate is predicted faster than the original; "
                        "some have passes the ranker was not trained on "
                        "(first: '{0}'), which only `cuda-opt tune` on a GPU "
                        "can judge",
                        Unseen)
                    .str()
              : "no candidate is predicted faster than the original";
      T.Candidates.push_back(Outcome);
      continue;
    }
    CandidateRecord C;
    C.Kernel = Name;
    C.Id = Chosen->Id;
    C.Pipeline = Chosen->Pipeline;
    C.Status = "applied";
    C.Detail = "predicted (learned ranker, strict), not measured";
    T.Candidates.push_back(C);
    T.ChosenPipeline +=
        (T.ChosenPipeline.empty() ? "" : "; ") + Name + ": " + Chosen->Pipeline;
    Current.Text = Chosen->Text;
    Stale = true;
  }
  T.Text = Current.Text;
  return T;
}

} // namespace tuner
} // namespace cuda_opt
