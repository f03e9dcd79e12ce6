//===- RegionTuning.cpp - Measure rewrites of whole host regions ----------===//
//
// Part of cuda-opt. The region phase of program-mode tune (docs/tuning.md,
// "Host regions"): before the kernels are tuned one by one, each host region
// (Analysis/HostRegions.h) where a region rewrite applies is measured as one
// unit: fuse-launches (repeated until no pair of the region fuses),
// temporal-block on a time loop, and library routes (cub-scan, cub-sort,
// cub-histogram, cub-segmented-reduce), a route of one launch with the
// kernel's in-place rewrites as its rivals. The original region and the
// rewritten ones are outlined (Capture/RegionCapture.h), the original
// program is run once to capture the region's inputs, all are built into
// shared libraries, and the worker verifies the rewrites' live outputs
// against the original's and times them in the same rounds. The fastest
// rewrite is kept when it beats the original (a route also every rival);
// a fused kernel is then tuned like any other kernel.
//
//===----------------------------------------------------------------------===//
#include "TunerInternal.h"

#include "cuda-opt/Capture/RegionCapture.h"
#include "cuda-opt/Measure/Measure.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/TemporalBlockSchedule.h"
#include "cuda-opt/Support/FpModel.h"
#include "WorkerProtocol.h"

#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

using namespace llvm;

namespace cuda_opt {
namespace tuner {

namespace {

/// A region after its launches were fused as far as they go.
struct FusedRegion {
  std::string Text;
  unsigned Begin = 0, End = 0, FunctionBegin = 0;
  std::vector<std::string> Pairs; ///< "a+b" per fusion, in order.
  std::string Refusal;            ///< Why the first attempt was refused.
};

unsigned offsetOf(const clang::SourceManager &SM, clang::SourceLocation L) {
  return SM.getFileOffset(SM.getExpansionLoc(L));
}

/// Fuse launches of the region at [Begin, End) of \p Text until none fuses.
/// \p Initial is the parse of \p Text (the first round needs no other).
Expected<FusedRegion> fuseRegion(const Toolchain &TC, const SourceInput &Base,
                                 StringRef Text, ParsedSource &Initial,
                                 const RegionSignature &Sig) {
  FusedRegion F;
  F.Text = Text.str();
  F.Begin = Sig.Begin;
  F.End = Sig.End;
  F.FunctionBegin = Sig.FunctionBegin;
  std::unique_ptr<Transform> Fuse = TransformRegistry::create("fuse-launches");
  if (!Fuse)
    return createStringError(inconvertibleErrorCode(),
                             "internal error: fuse-launches is not registered");
  ParamValues None;
  std::unique_ptr<ParsedSource> Later;
  for (unsigned Round = 0; Round < 16; ++Round) {
    if (Round > 0) {
      SourceInput In = Base;
      In.Text = F.Text;
      Expected<std::unique_ptr<ParsedSource>> P = parseSource(TC, In);
      if (!P)
        return P.takeError();
      Later = std::move(*P);
    }
    clang::ASTContext &Ctx = (Round ? *Later : Initial).getASTContext();
    const clang::SourceManager &SM = Ctx.getSourceManager();
    std::vector<KernelInfo> Kernels = findKernels(Ctx);
    std::vector<HostRegion> Regions = findHostRegions(Ctx, Kernels);
    const HostRegion *R = nullptr;
    for (const HostRegion &Cand : Regions)
      if (offsetOf(SM, Cand.Range.getBegin()) == F.Begin)
        R = &Cand;
    if (!R)
      break; // One launch left: no longer a region of two.
    bool Applied = false;
    for (const RegionStep &St : R->Steps) {
      if (St.Kind != RegionStep::Launch)
        continue;
      KernelTarget T{Ctx, Kernels[St.Kernel]};
      Expected<std::unique_ptr<TransformPlan>> Plan = Fuse->plan(T, None);
      if (!Plan) {
        std::string Why = toString(Plan.takeError());
        if (F.Refusal.empty() && F.Pairs.empty())
          F.Refusal = Why;
        continue;
      }
      Expected<clang::tooling::Replacements> Edits = Fuse->apply(T, **Plan);
      if (!Edits)
        return Edits.takeError();
      // The kernel's first fusable launch may be in another region.
      bool Here = any_of(*Edits, [&](const clang::tooling::Replacement &E) {
        return E.getLength() > 0 && E.getOffset() >= F.Begin &&
               E.getOffset() < F.End;
      });
      if (!Here)
        continue;
      Expected<std::string> New =
          clang::tooling::applyAllReplacements(F.Text, *Edits);
      if (!New)
        return New.takeError();
      F.Pairs.push_back(Kernels[St.Kernel].name());
      F.Text = std::move(*New);
      F.Begin = Edits->getShiftedCodePosition(F.Begin);
      F.End = Edits->getShiftedCodePosition(F.End);
      F.FunctionBegin = Edits->getShiftedCodePosition(F.FunctionBegin);
      Applied = true;
      break;
    }
    if (!Applied)
      break;
  }
  return F;
}

/// A rewrite of the region: its text and where the region is in it.
struct RegionRewrite {
  std::string Pipeline, Text, Detail;
  unsigned Begin = 0, End = 0, FunctionBegin = 0;
  /// Launches per run of the rewritten region of the kernels it launches
  /// more than once (a blocked time loop), when known.
  std::map<std::string, int64_t> Launches;
  /// The rewritten region runs library code only (cub-scan): no kernel of
  /// it is tuned afterwards, so its time counts in the program's as
  /// measured here.
  bool LibraryOnly = false;
  /// The fp-model the rewrite needs.
  FpModel Needs = FpModel::Strict;
  /// The kernel whose launch a library call replaces (cub-histogram,
  /// cub-segmented-reduce): the route is kept only when it beats that
  /// kernel's in-place rivals, measured in the same run.
  std::string RoutedKernel;
  /// An in-place rewrite of this kernel (inPlaceRivals): measured only to
  /// judge the library routes of the kernel, never kept by the region
  /// phase (the kernel phase tunes the kernel with its whole budget).
  std::string RivalOf;
};

/// The settings of temporal-block the region phase measures: sweeps per
/// launch 2 and 4 and those of 5, 8 and 10 that divide a known trip count
/// (no remainder loop), on three tile shapes (tile=0: as wide as makes the
/// shared tile 128 cells), each with the column walk (walk=1), and the
/// 64 x 64 tile also with interleaved cells (walk=0). Settings whose tiles
/// do not fit in shared memory, or that cannot keep which buffer holds the
/// result, are refused by the transform and skipped.
std::vector<ParamValues> temporalBlockSettings(std::optional<int64_t> Trips) {
  std::vector<int64_t> Sweeps = {2, 4};
  for (int64_t S : {5, 8, 10})
    if (Trips && *Trips >= S && *Trips % S == 0)
      Sweeps.push_back(S);
  std::vector<ParamValues> Out;
  for (int64_t S : Sweeps)
    for (auto [TX, TY] : {std::pair<int64_t, int64_t>{64, 32}, {0, 32},
                          {64, 64}})
      for (int64_t Walk : {1, 0}) {
        if (!Walk && TY != 64)
          continue;
        ParamValues V;
        V.set("sweeps", S);
        V.set("tile", TX);
        V.set("rows", TY);
        V.set("threads", 256);
        V.set("walk", Walk);
        Out.push_back(V);
      }
  return Out;
}

/// \p Tr's rewrite of \p T with \p V applied to \p Text, with the region's
/// offsets moved to the rewritten text; none when the transform refuses
/// (\p Refusal keeps the first reason) or its edits do not apply.
std::optional<RegionRewrite> rewriteFor(const Transform &Tr,
                                        const KernelTarget &T,
                                        const ParamValues &V, StringRef Text,
                                        const RegionSignature &Sig,
                                        std::string &Refusal) {
  auto Refused = [&](Error E) -> std::optional<RegionRewrite> {
    std::string Why = toString(std::move(E));
    if (Refusal.empty())
      Refusal = Why;
    return std::nullopt;
  };
  Expected<std::unique_ptr<TransformPlan>> Plan = Tr.plan(T, V);
  if (!Plan)
    return Refused(Plan.takeError());
  Expected<clang::tooling::Replacements> Edits = Tr.apply(T, **Plan);
  if (!Edits)
    return Refused(Edits.takeError());
  Expected<std::string> New =
      clang::tooling::applyAllReplacements(Text, *Edits);
  if (!New)
    return Refused(New.takeError());
  RegionRewrite W;
  W.Text = std::move(*New);
  W.Begin = Edits->getShiftedCodePosition(Sig.Begin);
  W.End = Edits->getShiftedCodePosition(Sig.End);
  W.FunctionBegin = Edits->getShiftedCodePosition(Sig.FunctionBegin);
  return W;
}

/// temporal-block on the region's time loop, one rewrite per setting that
/// applies; \p Refusal gets the first reason when none does.
std::vector<RegionRewrite> temporalBlockRegion(clang::ASTContext &Ctx,
                                               ArrayRef<KernelInfo> Kernels,
                                               StringRef Text,
                                               const HostRegion &R,
                                               const RegionSignature &Sig,
                                               std::string &Refusal) {
  std::vector<RegionRewrite> Out;
  if (!R.TimeLoop)
    return Out;
  std::unique_ptr<Transform> TB = TransformRegistry::create("temporal-block");
  if (!TB)
    return Out;
  for (const RegionStep &St : R.Steps) {
    if (St.Kind != RegionStep::Launch)
      continue;
    KernelTarget T{Ctx, Kernels[St.Kernel]};
    for (const ParamValues &V : temporalBlockSettings(R.Trips)) {
      std::optional<RegionRewrite> Made =
          rewriteFor(*TB, T, V, Text, Sig, Refusal);
      if (!Made)
        continue;
      RegionRewrite W = std::move(*Made);
      W.Pipeline = "temporal-block{" + V.str(TB->getParams()) + "}";
      W.Detail = "sweeps of " + Kernels[St.Kernel].name() +
                 " advanced several per launch";
      if (R.Trips) {
        SweepSchedule Sched =
            temporalBlockSchedule(*R.Trips, V.get("sweeps"));
        W.Launches[temporalBlockKernelName(Ctx, Kernels[St.Kernel])] =
            Sched.Launches;
        W.Launches[Kernels[St.Kernel].name()] = Sched.Singles;
      }
      Out.push_back(std::move(W));
    }
  }
  return Out;
}

/// A step a library call replaces as a whole: the pass that routes it, the
/// kernel the pass is named after, why the rewrite changes results (for
/// the fp-model refusal) and what the report says it did.
struct LibraryStep {
  StringRef Pass;
  int Kernel = -1;
  std::string Changes, Detail;
  /// The call replaces the launch of Kernel (not a host function's calls
  /// or a sorting nest): the kernel could be rewritten in place instead.
  bool ReplacesLaunch = false;
};

std::optional<LibraryStep> libraryStepOf(const RegionStep &St,
                                         ArrayRef<KernelInfo> Kernels) {
  if (St.Kind == RegionStep::Call && St.Routine) {
    std::string F = St.Routine->Function->getNameAsString();
    return LibraryStep{"cub-scan", St.Routine->BlockKernel,
                       "cub-scan adds the " +
                           St.Routine->Element.getAsString() +
                           " elements of '" + F + "' in another order",
                       "'" + F +
                           "' routed to CUB (cub::DeviceScan::InclusiveSum)"};
  }
  if (St.Kind == RegionStep::Sort && St.SortNest)
    return LibraryStep{
        "cub-sort", St.Kernel,
        "cub-sort orders the " + St.SortNest->Element.getAsString() +
            " keys of '" + St.SortNest->Keys->getNameAsString() +
            "' by their bits (NaN last, -0 before +0), which the network's "
            "comparisons do not",
        "the bitonic network of " + Kernels[St.Kernel].name() +
            " routed to CUB (cub::DeviceRadixSort::SortKeys" +
            (St.SortNest->Descending ? "Descending" : "") + ")"};
  if (St.Kind == RegionStep::Launch && St.Routes == "cub-histogram")
    return LibraryStep{"cub-histogram", St.Kernel,
                       "cub-histogram counts in another order",
                       "the launch of " + Kernels[St.Kernel].name() +
                           " routed to CUB "
                           "(cub::DeviceHistogram::HistogramEven)",
                       true};
  if (St.Kind == RegionStep::Launch && St.Routes == "cub-segmented-reduce")
    return LibraryStep{"cub-segmented-reduce", St.Kernel,
                       "cub-segmented-reduce combines the elements of each "
                       "segment of " +
                           Kernels[St.Kernel].name() + " in another order",
                       "the launch of " + Kernels[St.Kernel].name() +
                           " routed to CUB (cub::DeviceSegmentedReduce)",
                       true};
  return std::nullopt;
}

/// cub-scan on each call of a scan function, cub-sort on each sorting nest,
/// cub-histogram and cub-segmented-reduce on each launch of a histogram or
/// a segmented reduction of the region (one rewrite per step); \p Refusal
/// gets the first reason when none applies.
std::vector<RegionRewrite> libraryRegion(clang::ASTContext &Ctx,
                                         ArrayRef<KernelInfo> Kernels,
                                         StringRef Text, const HostRegion &R,
                                         const RegionSignature &Sig,
                                         FpModel Model, std::string &Refusal) {
  std::vector<RegionRewrite> Out;
  ParamValues None;
  for (const RegionStep &St : R.Steps) {
    std::optional<LibraryStep> L = libraryStepOf(St, Kernels);
    std::unique_ptr<Transform> Pass =
        L ? TransformRegistry::create(L->Pass) : nullptr;
    if (!Pass)
      continue;
    KernelTarget T{Ctx, Kernels[L->Kernel]};
    FpEffect Effect = Pass->fpEffectOn(T, None);
    if (!fpModelAllows(Model, Effect)) {
      if (Refusal.empty())
        Refusal = L->Changes + "; --fp-model=" + fpModelName(Model).str() +
                  " does not allow it (" +
                  fpModelName(modelRequiredFor(Effect)).str() + " does)";
      continue;
    }
    std::optional<RegionRewrite> Made =
        rewriteFor(*Pass, T, None, Text, Sig, Refusal);
    if (!Made)
      continue;
    RegionRewrite W = std::move(*Made);
    W.Pipeline = L->Pass.str();
    W.Detail = L->Detail;
    W.LibraryOnly = true;
    W.Needs = modelRequiredFor(Effect);
    if (L->ReplacesLaunch)
      W.RoutedKernel = Kernels[L->Kernel].name();
    Out.push_back(std::move(W));
  }
  return Out;
}

/// How many of a routed kernel's in-place rewrites (the policy's first)
/// are measured against its library routes in the region phase.
constexpr unsigned RegionRivals = 4;

/// Comments marking where the region and its outlined function go while
/// the rivals are rewritten: the passes replace statements and insert
/// text at them, never the text between, so the marks survive and give
/// the region's place in every rewrite. (A pass may insert a host helper
/// at the host function, after FunctionMark: unmarkRegion finds the host
/// function after it.)
constexpr StringLiteral FunctionMark = "/*cudaopt:region-function*/\n";
constexpr StringLiteral BeginMark = "/*cudaopt:region-begin*/";
constexpr StringLiteral EndMark = "/*cudaopt:region-end*/";

std::string markRegion(StringRef Text, const RegionSignature &Sig) {
  std::string Out = Text.str();
  Out.insert(Sig.End, EndMark.data(), EndMark.size());
  Out.insert(Sig.Begin, BeginMark.data(), BeginMark.size());
  Out.insert(Sig.FunctionBegin, FunctionMark.data(), FunctionMark.size());
  return Out;
}

/// \p Marked without its marks, with the region's offsets where they were;
/// none when a mark is missing, repeated or out of order. \p HostHead is
/// the host function's first line in the original: the outlined function
/// goes before it, after any helper a pass inserted there.
std::optional<RegionRewrite> unmarkRegion(StringRef Marked,
                                          StringRef HostHead) {
  size_t F = Marked.find(FunctionMark), B = Marked.find(BeginMark),
         E = Marked.find(EndMark);
  if (F == StringRef::npos || B == StringRef::npos || E == StringRef::npos ||
      !(F < B && B < E) ||
      Marked.find(FunctionMark, F + 1) != StringRef::npos ||
      Marked.find(BeginMark, B + 1) != StringRef::npos ||
      Marked.find(EndMark, E + 1) != StringRef::npos)
    return std::nullopt;
  RegionRewrite W;
  W.Text = Marked.substr(0, F).str();
  size_t Head = Marked.slice(F + FunctionMark.size(), B).find(HostHead);
  W.FunctionBegin =
      W.Text.size() + (Head == StringRef::npos || HostHead.empty() ? 0 : Head);
  W.Text += Marked.slice(F + FunctionMark.size(), B);
  W.Begin = W.Text.size();
  W.Text += Marked.slice(B + BeginMark.size(), E);
  W.End = W.Text.size();
  W.Text += Marked.substr(E + EndMark.size());
  return W;
}

/// The policy's first in-place rewrites of \p Kernel (as the kernel phase
/// would rank them, without the problem's sizes, which are not captured
/// yet), as rewrites of the region: a library route of the kernel's launch
/// is kept only if it beats them. Variants that call a library themselves
/// are left out (the kernel phase measures those).
Expected<std::vector<RegionRewrite>>
inPlaceRivals(const Toolchain &TC, const SourceInput &Input, StringRef Text,
              const RegionSignature &Sig, StringRef Kernel, const Harness &H,
              const TuneOptions &Opts, TuneResult &Result) {
  std::vector<RegionRewrite> Out;
  if (!(Sig.FunctionBegin <= Sig.Begin && Sig.Begin <= Sig.End &&
        Sig.End <= Text.size()))
    return Out;
  StringRef HostHead = Text.slice(Sig.FunctionBegin, Sig.Begin);
  HostHead = HostHead.take_until([](char C) { return C == '\n'; });
  SourceInput In = Input;
  In.Text = markRegion(Text, Sig);
  Expected<std::unique_ptr<ParsedSource>> P = parseSource(TC, In);
  if (!P)
    return P.takeError();
  std::vector<KernelInfo> Kernels = findKernels((*P)->getASTContext());
  const KernelInfo *K = lookupKernel(Kernels, Kernel);
  if (!K)
    return Out;
  TuneOptions RO = Opts;
  // Twice the rivals: a pipeline and the same after restrict-const are
  // one rival (nearly always the same speed), the first kept.
  RO.Budget = 2 * RegionRivals;
  RO.OnlineRounds = 1;
  RO.ShowProgress = false;
  Harness RH = H;
  RH.ProgramMode = true;
  TuneResult Scratch; // Its refusals are the kernel phase's to report.
  CandidateSet Set = generateVariants(TC, In, **P, *K, RH, RO, Scratch);
  for (const auto &[Phase, Seconds] : Scratch.PhaseSeconds)
    Result.PhaseSeconds[Phase] += Seconds;
  StringSet<> Seen;
  for (size_t I = 1; I < Set.Variants.size() && Out.size() < RegionRivals;
       ++I) {
    const VariantSource &V = Set.Variants[I];
    StringRef Core(V.Pipeline);
    Core.consume_front("restrict-const,");
    if (V.Library || !Seen.insert(Core).second)
      continue;
    std::optional<RegionRewrite> W = unmarkRegion(V.Text, HostHead);
    if (!W)
      continue;
    W->Pipeline = V.Pipeline;
    W->RivalOf = Kernel.str();
    W->Detail = Kernel.str() + " rewritten in place, measured against the "
                               "library route of its launch";
    Out.push_back(std::move(*W));
  }
  return Out;
}

/// The file tune builds for rewrite \p W of the region of \p Sig: W's text
/// with the region outlined (the original's parameters) and the worker's
/// entry appended.
std::string outlinedRewriteFile(const RegionSignature &Sig,
                                const RegionRewrite &W) {
  RegionSignature WSig = Sig;
  WSig.Begin = W.Begin;
  WSig.End = W.End;
  WSig.FunctionBegin = W.FunctionBegin;
  return outlineRegion(W.Text, WSig, W.Begin, W.End, false) +
         regionEntryText(WSig);
}

json::Object regionLibrary(StringRef Path) {
  namespace L = worker::library;
  return json::Object{{L::Kind, L::KindRegion},
                      {L::Path, Path.str()},
                      {L::Entry, L::RegionEntryDefault}};
}

/// Bytes of the region's live inputs and live outputs: the traffic of a
/// region that keeps nothing else in memory (the fused floor). Sizes are
/// the captured allocations'.
int64_t liveBytes(const json::Array &Args, const CapturedLaunch &L) {
  int64_t Bytes = 0;
  for (size_t I = 0; I < Args.size() && I < L.Params.size(); ++I) {
    const json::Object *A = Args[I].getAsObject();
    if (!A || A->getString(worker::arg::Kind) != worker::arg::KindBuffer ||
        A->get(worker::arg::SameAs) ||
        A->getBoolean(worker::arg::Scratch).value_or(false))
      continue;
    int64_t Size = static_cast<int64_t>(L.Allocs[L.Params[I].Alloc].Size);
    Bytes += Size * (A->getBoolean(worker::arg::Input).value_or(true) +
                     A->getBoolean(worker::arg::Output).value_or(false));
  }
  return Bytes;
}

} // namespace

Expected<std::string> tuneRegions(const Toolchain &TC, const SourceInput &Input,
                                  const Harness &H, const TuneOptions &Opts,
                                  TuneResult &Result,
                                  ParsedSource *InitialParse) {
  std::string Current = Input.Text;
  StringSet<> Done;
  unsigned Count = 0;
  // Re-parsed only when a kept rewrite changed the text; the caller's
  // parse of the input serves until then.
  std::unique_ptr<ParsedSource> Owned;
  ParsedSource *P = InitialParse;
  std::string ParsedText = InitialParse ? Input.Text : "";
  for (unsigned Iteration = 0; Iteration < 32; ++Iteration) {
    SourceInput In = Input;
    In.Text = Current;
    if (!P || ParsedText != Current) {
      Expected<std::unique_ptr<ParsedSource>> Parsed = parseSource(TC, In);
      if (!Parsed)
        return Parsed.takeError();
      Owned = std::move(*Parsed);
      P = Owned.get();
      ParsedText = Current;
    }
    clang::ASTContext &Ctx = P->getASTContext();
    std::vector<KernelInfo> Kernels = findKernels(Ctx);
    std::vector<HostRegion> Regions = findHostRegions(Ctx, Kernels);
    const HostRegion *R = nullptr;
    std::string Key;
    for (const HostRegion &Cand : Regions) {
      std::string K = (Cand.Host ? Cand.Host->getNameAsString() : "") + "\n" +
                      sourceText(Ctx, Cand.Range);
      if (!Done.contains(K)) {
        R = &Cand;
        Key = K;
        break;
      }
    }
    if (!R)
      break;
    Done.insert(Key);
    ++Count;
    std::string Label = "region #" + std::to_string(Count);
    auto Record = [&](StringRef Id, StringRef Pipeline, StringRef Status,
                      StringRef Detail, const Measurement *M = nullptr) {
      CandidateRecord C;
      C.Kernel = Label;
      C.Id = Id.str();
      C.Pipeline = Pipeline.str();
      C.Status = Status.str();
      C.Detail = Detail.str();
      if (M)
        C.M = *M;
      Result.Candidates.push_back(std::move(C));
    };
    Expected<RegionSignature> Sig = regionSignature(Ctx, *R);
    if (!Sig) {
      Record("original", "", "not-measured",
             "the region cannot be outlined: " + toString(Sig.takeError()));
      continue;
    }
    Label += " (" + Sig->Where + ")";
    auto Start = std::chrono::steady_clock::now();
    Expected<FusedRegion> F = fuseRegion(TC, Input, Current, *P, *Sig);
    if (!F)
      return F.takeError();
    std::vector<RegionRewrite> Rewrites;
    if (!F->Pairs.empty()) {
      RegionRewrite W;
      W.Pipeline = "fuse-launches";
      if (F->Pairs.size() > 1)
        W.Pipeline += " (x" + std::to_string(F->Pairs.size()) + ")";
      std::string Fused;
      for (const std::string &K : F->Pairs)
        Fused += (Fused.empty() ? "" : ", ") + K;
      W.Detail = "launches of " + Fused + " fused with the next one";
      W.Text = F->Text;
      W.Begin = F->Begin;
      W.End = F->End;
      W.FunctionBegin = F->FunctionBegin;
      Rewrites.push_back(std::move(W));
    }
    std::string BlockRefusal;
    for (RegionRewrite &W :
         temporalBlockRegion(Ctx, Kernels, Current, *R, *Sig, BlockRefusal))
      Rewrites.push_back(std::move(W));
    std::string LibraryRefusal;
    for (RegionRewrite &W : libraryRegion(Ctx, Kernels, Current, *R, *Sig,
                                          Opts.Model, LibraryRefusal))
      Rewrites.push_back(std::move(W));
    Result.addPhase("rewrite", Start);
    // A library route of a launch competes with the kernel's in-place
    // rewrites in the same run: a route that only beats the original would
    // hide a better rewrite of the kernel (privatised atomics, a warp per
    // row), which the kernel phase never gets to try once the launch is gone.
    std::set<std::string> Routed;
    for (const RegionRewrite &W : Rewrites)
      if (!W.RoutedKernel.empty())
        Routed.insert(W.RoutedKernel);
    for (const std::string &Kernel : Routed) {
      Expected<std::vector<RegionRewrite>> Rivals =
          inPlaceRivals(TC, In, Current, *Sig, Kernel, H, Opts, Result);
      if (!Rivals) {
        // The marked text did not parse: the route is measured alone.
        consumeError(Rivals.takeError());
        continue;
      }
      for (RegionRewrite &W : *Rivals)
        Rewrites.push_back(std::move(W));
    }
    if (Rewrites.empty()) {
      Record("v1", "fuse-launches", "illegal",
             F->Refusal.empty() ? "no launch of the region fuses" : F->Refusal);
      if (R->TimeLoop)
        Record("v2", "temporal-block", "illegal",
               BlockRefusal.empty() ? "no setting applies" : BlockRefusal);
      if (R->calls())
        Record("v3", "cub-scan", "illegal",
               LibraryRefusal.empty() ? "no call applies" : LibraryRefusal);
      if (R->sorts())
        Record("v4", "cub-sort", "illegal",
               LibraryRefusal.empty() ? "no nest applies" : LibraryRefusal);
      if (R->routed())
        Record("v5", "cub-histogram, cub-segmented-reduce", "illegal",
               LibraryRefusal.empty() ? "no launch applies" : LibraryRefusal);
      continue;
    }
    if (Opts.DryRun) {
      // What a tune would measure here; nothing is compiled or run.
      for (size_t I = 0; I < Rewrites.size(); ++I) {
        Record("v" + std::to_string(I + 1), Rewrites[I].Pipeline, "candidate",
               Rewrites[I].Detail);
        // Tests only: the outlined file as tune would build it, so a test
        // can compile it without a GPU (test/Tune/dry-run-regions.test).
        if (const char *Dir = std::getenv("CUDA_OPT_DRY_RUN_REGION_DIR")) {
          SmallString<256> Path(Dir);
          sys::path::append(Path, formatv("region-{0}-v{1}.cu", Count, I + 1));
          std::error_code EC;
          raw_fd_ostream OS(Path, EC);
          if (!EC)
            OS << outlinedRewriteFile(*Sig, Rewrites[I]);
        }
      }
      continue;
    }
    for (const RegionRewrite &W : Rewrites)
      Done.insert((R->Host ? R->Host->getNameAsString() : "") + "\n" +
                  StringRef(W.Text).slice(W.Begin, W.End).str());

    // Capture the region's inputs from the original program.
    CaptureOptions CO = H.Capture;
    CO.Tag = "region-" + std::to_string(Count);
    CO.LaunchIndex = 0;
    CO.ConfigOnly = false;
    CO.Probes.clear();
    progress(Opts, "capture " + Label, 0, 1);
    Start = std::chrono::steady_clock::now();
    Expected<CapturedLaunch> L = captureInstrumented(
        TC, In, outlineRegion(Current, *Sig, Sig->Begin, Sig->End, true),
        "the first run of " + Label, CO);
    Result.addPhase("capture", Start);
    progress(Opts, "capture " + Label, 1, 1);
    if (!L) {
      Record("original", "", "not-measured", toString(L.takeError()));
      continue;
    }
    Expected<json::Array> Args = regionReplayArgs(*L, Ctx, *R, *Sig);
    if (!Args) {
      Record("original", "", "not-measured", toString(Args.takeError()));
      continue;
    }

    // Build the original and every rewrite into libraries the worker calls.
    std::vector<std::string> Texts = {
        outlineRegion(Current, *Sig, Sig->Begin, Sig->End, false) +
        regionEntryText(*Sig)};
    for (const RegionRewrite &W : Rewrites)
      Texts.push_back(outlinedRewriteFile(*Sig, W));
    CompileOptions Comp;
    Comp.SourcePath = Input.Path;
    Comp.Flags = Input.Flags;
    Comp.Arch = TC.GpuArch;
    Comp.DependencyFingerprint =
        projectHeaderFingerprint(P->getSourceManager(), TC);
    SmallString<256> Dir(Opts.WorkDir);
    sys::path::append(Dir, "region-" + std::to_string(Count));
    std::vector<std::string> Errors;
    Start = std::chrono::steady_clock::now();
    std::vector<std::string> Libs =
        compileRegionLibraries(TC, Texts, Comp, Dir, Errors);
    Result.addPhase("compile", Start);
    if (Libs[0].empty()) {
      Record("original", "", "not-measured", Errors[0]);
      continue;
    }
    std::vector<VariantSource> Vs(1);
    Vs[0].Id = "original";
    Vs[0].Text = Current;
    Vs[0].Library = regionLibrary(Libs[0]);
    std::vector<const RegionRewrite *> Built;
    for (size_t I = 0; I < Rewrites.size(); ++I) {
      std::string Id = "v" + std::to_string(I + 1);
      if (Libs[I + 1].empty()) {
        Record(Id, Rewrites[I].Pipeline, "compile-error", Errors[I + 1]);
        continue;
      }
      VariantSource V;
      V.Id = Id;
      V.Pipeline = Rewrites[I].Pipeline;
      V.Text = Rewrites[I].Text;
      V.Library = regionLibrary(Libs[I + 1]);
      Vs.push_back(std::move(V));
      Built.push_back(&Rewrites[I]);
    }

    MeasureOptions MO;
    MO.FpModel = fpModelName(Opts.Model).str();
    MO.Worker = Opts.WorkerPath;
    MO.Devices = Opts.Devices.empty() ? H.Devices : Opts.Devices;
    MO.Devices.resize(std::min<size_t>(MO.Devices.size(), 1));
    MO.Runs = H.Runs;
    MO.RelTol = H.RelTol;
    MO.DeadlineSeconds = 300;
    MO.WorkDir = std::string(Dir);
    MO.Race = false;
    MO.TimeBudgetEnd = timeBudgetEnd(Opts);
    Start = std::chrono::steady_clock::now();
    std::string DeviceName;
    Expected<std::vector<Measurement>> Ms = measureVariants(
        Vs, std::vector<std::string>(Vs.size(), ""), *Args, MO, DeviceName);
    Result.addPhase("measure", Start);
    if (!Ms) {
      Record("original", "", "not-measured", toString(Ms.takeError()));
      continue;
    }
    // The tuning database: each measured variant of the region (recorded
    // only; the region phase reuses nothing).
    KernelRecording Rec = startRegionRecording(Opts, H, Ctx, R->Range, Kernels,
                                               *Args, Label, Input);
    for (size_t I = 0; I < Ms->size(); ++I)
      Rec.record(I == 0 ? "" : StringRef(Vs[I].Pipeline), (*Ms)[I], "", Result);
    const Measurement &O = (*Ms)[0];
    auto Usable = [&](size_t I) {
      return (*Ms)[I].Verified && !(*Ms)[I].Skipped;
    };
    // The fastest verified in-place rival of each routed kernel.
    std::map<std::string, size_t> BestRival;
    for (size_t I = 1; I < Ms->size(); ++I) {
      const std::string &Of = Built[I - 1]->RivalOf;
      if (Of.empty() || !Usable(I))
        continue;
      auto [It, New] = BestRival.try_emplace(Of, I);
      if (!New && (*Ms)[I].MedianMs < (*Ms)[It->second].MedianMs)
        It->second = I;
    }
    // A route slower than a rewrite of its kernel in place is not kept.
    auto BeatenBy = [&](size_t I) -> std::optional<size_t> {
      auto It = BestRival.find(Built[I - 1]->RoutedKernel);
      if (It == BestRival.end() ||
          (*Ms)[I].MedianMs < (*Ms)[It->second].MedianMs)
        return std::nullopt;
      return It->second;
    };
    const size_t Best = chooseVariant(*Ms, [&](size_t I) {
      return Usable(I) && Built[I - 1]->RivalOf.empty() && !BeatenBy(I);
    });
    Record("original", "", Best > 0 ? "verified" : "fastest",
           O.ReplayWarning.empty() ? "" : "warning: " + O.ReplayWarning, &O);
    for (size_t I = 1; I < Ms->size(); ++I) {
      const Measurement &V = (*Ms)[I];
      std::string Detail = V.Verified ? Built[I - 1]->Detail : V.Error;
      if (std::optional<size_t> By = V.Verified ? BeatenBy(I) : std::nullopt)
        Detail += "; not kept: slower than " + Built[I - 1]->RoutedKernel +
                  " rewritten in place (" + Vs[*By].Id + ", " +
                  Vs[*By].Pipeline + "), which the kernel phase tunes";
      Record(Vs[I].Id, Vs[I].Pipeline,
             !V.Verified ? (V.Skipped ? "skipped" : "rejected")
                         : (I == Best ? "fastest" : "verified"),
             Detail, &V);
    }
    Result.Measured = true;
    Result.VariantsMeasured += Ms->size() - 1;
    const Measurement *Chosen = Best > 0 ? &(*Ms)[Best] : nullptr;
    KernelOutcome KO;
    KO.Kernel = Label;
    KO.Measured = true;
    KO.Detail = "program mode, the whole region replayed";
    KO.BaselineMs = O.MedianMs;
    KO.BestMs = Chosen ? Chosen->MedianMs : O.MedianMs;
    KO.Pipeline = Chosen ? Built[Best - 1]->Pipeline : "";
    KO.MinBytes = liveBytes(*Args, *L);
    const Measurement &Shown = Chosen ? *Chosen : (*Ms).back();
    KO.VerifyNote =
        "live outputs compared with the original region's (" +
        (Shown.Check.empty() ? std::string("not verified") : Shown.Check) +
        "); dead intermediates not compared";
    // fuse-launches, temporal-block and cub-histogram keep every bit;
    // cub-scan and cub-segmented-reduce on floats reassociate.
    KO.ChosenNeeds = Chosen ? Built[Best - 1]->Needs : FpModel::Strict;
    Result.Kernels.push_back(KO);
    if (Chosen) {
      if (Built[Best - 1]->LibraryOnly) {
        // No kernel of the rewritten region is tuned next: both times
        // count here.
        Result.BaselineMs += O.MedianMs;
        Result.BestMs += Chosen->MedianMs;
      } else {
        // The program's input time must count the original region; the new
        // kernels' own tune adds about the rewritten region's time next.
        Result.BaselineMs += O.MedianMs - Chosen->MedianMs;
      }
      for (const auto &[Kernel, N] : Built[Best - 1]->Launches)
        Result.LaunchesPerRun[Kernel] = N;
      Result.ChosenPipeline +=
          std::string(Result.ChosenPipeline.empty() ? "" : "; ") + "region #" +
          std::to_string(Count) + ": " + Built[Best - 1]->Pipeline;
      Current = Built[Best - 1]->Text;
    }
  }
  return Current;
}

} // namespace tuner
} // namespace cuda_opt
