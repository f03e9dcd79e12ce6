//===- Tuner.cpp - cuda-opt tune: search, measure, keep the fastest ------===//
//
// Part of cuda-opt. Two ways to get a kernel's inputs (docs/tuning.md):
// spec mode (a JSON file describes sizes and arguments; random inputs) and
// program mode (the file's own main() is run once, instrumented, and the
// chosen launch is captured and replayed). Both feed the same search: rewrite
// with each candidate pipeline, compile, verify and time against the original
// in the measurement worker, keep the fastest verified variant.
//
//===----------------------------------------------------------------------===//
#include "TunerInternal.h"
#include "cuda-opt/Search/Tuner.h"
#include "cuda-opt/Support/GpuLock.h"
#include "cuda-opt/Frontend/ParsePreamble.h"
#include "cuda-opt/Analysis/RowOutputs.h"
#include "cuda-opt/Measure/Fp64Shadow.h"
#include "cuda-opt/Measure/LibraryVariant.h"
#include "cuda-opt/Capture/Capture.h"
#include "cuda-opt/Measure/GemmReference.h"
#include "cuda-opt/Capture/TuneSpec.h"
#include "cuda-opt/Support/GpuProbe.h"
#include "cuda-opt/Pass/Pipeline.h"

#include "cuda-opt/Search/Ranker.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <set>

using namespace llvm;

namespace cuda_opt {

using namespace tuner;

size_t tuner::chooseVariant(ArrayRef<Measurement> Ms,
                            function_ref<bool(size_t)> Usable) {
  size_t Best = 0;
  for (size_t I = 1; I < Ms.size(); ++I) {
    const Measurement &V = Ms[I], &O = Ms[0];
    double Noise = std::max(O.P90Ms - O.P10Ms, V.P90Ms - V.P10Ms);
    if (Usable(I) && V.MedianMs + Noise < O.MedianMs &&
        (Best == 0 || V.MedianMs < Ms[Best].MedianMs))
      Best = I;
  }
  return Best;
}

namespace {

/// Apply a pipeline without measuring: the given one (--passes), else the
/// default one, each pass where legal.
Expected<TuneResult> rewriteFixedPipeline(const Toolchain &TC,
                                          const SourceInput &Input,
                                          const TuneOptions &Opts,
                                          StringRef Why) {
  std::string Spec =
      Opts.Pipeline.empty() ? defaultPipelineSpec().str() : Opts.Pipeline;
  Expected<std::vector<PassInvocation>> Pipeline = parsePipeline(Spec);
  if (!Pipeline)
    return Pipeline.takeError();
  PipelineOptions PO;
  PO.KernelName = Opts.KernelName;
  PO.Format = Opts.Format;
  PO.Model = Opts.Model;
  PO.SkipIllegal = Opts.Pipeline.empty();
  PO.OnStep = Opts.OnRewriteStep;
  Expected<PipelineResult> R = runPipeline(TC, Input, *Pipeline, PO);
  if (!R)
    return R.takeError();
  TuneResult T;
  T.Text = R->Text;
  T.NotMeasuredReason = Why.str();
  T.ChosenPipeline = Spec;
  T.Kernel = Opts.KernelName;
  for (const StepRecord &S : R->Steps) {
    CandidateRecord C;
    C.Pipeline = S.Pass;
    C.Id = S.Kernel;
    C.Status = S.Applied ? "applied" : "skipped";
    C.Detail = S.Reason;
    T.Candidates.push_back(C);
  }
  return T;
}

/// Rewrite without measuring, the fallback when nothing can be measured:
/// with the learned ranker and no pipeline given, each kernel's predicted
/// best strict rewrite among the candidate space (or --candidates;
/// PredictedRewrite.cpp); otherwise the given or the default pipeline where
/// legal.
Expected<TuneResult> rewriteOnly(const Toolchain &TC, const SourceInput &Input,
                                 const TuneOptions &Opts, StringRef Why) {
  if (Opts.Pipeline.empty() && Opts.Ranker)
    return rewritePredicted(TC, Input, Opts, Why);
  return rewriteFixedPipeline(TC, Input, Opts, Why);
}

std::vector<int> ordinals(const GpuProbeResult &Gpus) {
  std::vector<int> Out;
  for (const GpuInfo &G : Gpus.Devices)
    Out.push_back(G.Ordinal);
  return Out;
}

/// The bytes a launch must at least move, from a program-mode capture: each
/// buffer the kernel only reads, once; each buffer it changed, written once
/// (and read once more when the kernel also reads it).
int64_t capturedMinBytes(const json::Array &Args, const CapturedLaunch &L) {
  int64_t Bytes = 0;
  unsigned I = 0;
  for (const json::Value &V : Args) {
    const json::Object *O = V.getAsObject();
    const CapturedParam &P = L.Params[I++];
    if (!O || O->getString("kind") != "buffer" || O->get("same_as"))
      continue;
    int64_t Size = static_cast<int64_t>(L.Allocs[P.Alloc].Size);
    bool Output = O->getBoolean("output").value_or(false);
    bool Input = O->getBoolean("input").value_or(true);
    Bytes += Output ? (Input ? 2 * Size : Size) : Size;
  }
  return Bytes;
}

/// Search, measure and choose for one kernel; appends to \p Result and
/// returns the text to continue from.
Expected<std::string> tuneKernel(const Toolchain &TC, const SourceInput &Input,
                                 ParsedSource &Parsed, const KernelInfo &K,
                                 Harness &H, const TuneOptions &Opts,
                                 TuneResult &Result) {
  clang::ASTContext &Ctx = Parsed.getASTContext();
  std::string Kernel = K.name();
  auto Record = [&](CandidateRecord C) {
    C.Kernel = Kernel;
    Result.Candidates.push_back(std::move(C));
  };
  // Program mode built it for the capture; the policy and the cuBLAS
  // reference need it in spec mode too.
  if (!H.Model)
    H.Model = buildKernelModel(Ctx, K);
  CandidateSet Set = generateVariants(TC, Input, Parsed, K, H, Opts, Result);
  std::vector<VariantSource> &Variants = Set.Variants;
  std::vector<bool> &NeedLaunch = Set.NeedLaunch;

  // The tuning database: a variant measured before on the same key (GPU,
  // versions, kernel hash, signature, fp-model) is not measured again; its
  // stored result joins the measured ones below.
  KernelRecording Rec = startRecording(Opts, H, Ctx, K, Input);
  struct ReusedVariant {
    VariantSource V;
    TuningRecord R;
  };
  std::vector<ReusedVariant> Reused;
  std::optional<TuningRecord> StoredOriginal;
  if (Rec.Db) {
    StoredOriginal = Rec.stored("", Result);
    std::vector<VariantSource> Keep;
    std::vector<bool> KeepNeed;
    for (size_t I = 0; I < Variants.size(); ++I) {
      if (I > 0)
        if (std::optional<TuningRecord> S =
                Rec.stored(Variants[I].Pipeline, Result)) {
          Reused.push_back({std::move(Variants[I]), std::move(*S)});
          continue;
        }
      Keep.push_back(std::move(Variants[I]));
      KeepNeed.push_back(NeedLaunch[I]);
    }
    Variants = std::move(Keep);
    NeedLaunch = std::move(KeepNeed);
  }
  // How many candidates are measured, and in how many rounds
  // (--online-rounds, docs/policy.md): with the ranker, when more
  // candidates are left than the budget takes, the budget is spent in
  // rounds, each taken from the ranker's order re-scored by what the
  // earlier rounds (and the database: round 0) measured. Otherwise every
  // variant left is measured in one batch, as before.
  const size_t Pool = Variants.size() - 1;
  const size_t BudgetLeft =
      Opts.Budget > Reused.size() ? Opts.Budget - Reused.size() : 0;
  const unsigned NumRounds = onlineRoundsFor(Opts, Pool, BudgetLeft);
  const bool InRounds = NumRounds > 1;
  const size_t ToMeasure = std::min(Pool, BudgetLeft);
  // Nothing left to measure: not even the original runs.
  const bool AllReused = StoredOriginal && !Reused.empty() && ToMeasure == 0;

  std::vector<std::string> CompileErrors;
  std::vector<Measurement> Ms;
  std::vector<int> RoundOf; // Per measured variant: its round (rounds only).
  std::vector<MeasureRound> Rounds;
  ReferenceMeasurement Ref;
  std::string ShadowNote, ReferenceNote;
  bool ReferenceJob = false;
  if (AllReused) {
    Ms.push_back(measurementOf(*StoredOriginal));
    Ms[0].Speedup = 1;
    CompileErrors.emplace_back();
    ShadowNote = "every result came from the tuning database (" +
                 Opts.Database->path() + "); nothing was measured this run";
    ReferenceNote = "not measured: every result came from the tuning "
                    "database";
    Variants.resize(1);
  } else {
    // What does not change from round to round: compile options, the
    // fp64 shadow, the worker's job options.
    std::optional<CompileOptions> CO;
    std::optional<MeasureOptions> MO;
    // Measure one batch: Batch[0] is the original, Pos[I] where Batch[I]
    // is in Variants. Launch-changing variants whose launch cannot be
    // learned are recorded and dropped from Batch (and Pos).
    struct BatchResult {
      std::vector<Measurement> Ms;
      std::vector<std::string> CompileErrors;
    };
    auto MeasureBatch = [&](std::vector<VariantSource> &Batch,
                            std::vector<bool> &Need, std::vector<size_t> &Pos,
                            unsigned Round) -> Expected<BatchResult> {
      const std::string Suffix =
          InRounds ? formatv(" round {0}/{1}", Round, NumRounds).str() : "";
      auto PhaseStart = std::chrono::steady_clock::now();
      if (H.Replay) {
        // Tests only (--test-replay-measurements): nothing is compiled or
        // run; the file says what each variant measured.
        BatchResult R;
        R.Ms = H.Replay->measure(Batch, Round, R.CompileErrors);
        Result.addPhase("measure", PhaseStart);
        return R;
      }
      // Program mode: launch-changing variants run their own program to
      // say what launch they make.
      if (H.ProgramMode && llvm::is_contained(Need, true)) {
        std::vector<bool> Probed = probeVariantLaunches(
            TC, Input, Parsed, K, H, Batch, Need, Set.Preamble.get());
        for (size_t I = 0; I < Probed.size(); ++I)
          if (Probed[I])
            Need[I] = false;
      }
      if (H.ProgramMode && llvm::is_contained(Need, true)) {
        std::vector<std::string> Errs = captureVariantLaunches(
            TC, Input, Kernel, H, Batch, Need, Opts, Set.Preamble.get());
        std::vector<VariantSource> Kept;
        std::vector<size_t> KeptPos;
        for (size_t I = 0; I < Batch.size(); ++I) {
          if (Errs[I].empty()) {
            Kept.push_back(std::move(Batch[I]));
            KeptPos.push_back(Pos[I]);
            continue;
          }
          CandidateRecord C;
          C.Id = Batch[I].Id;
          C.Pipeline = Batch[I].Pipeline;
          C.Status = "launch-unknown";
          C.Detail = Errs[I];
          if (InRounds)
            C.Round = static_cast<int>(Round);
          Record(C);
        }
        Batch = std::move(Kept);
        Pos = std::move(KeptPos);
        Need.assign(Batch.size(), false);
      }
      Result.addPhase("variant-launches", PhaseStart);
      PhaseStart = std::chrono::steady_clock::now();

      if (!CO) {
        CO.emplace();
        CO->SourcePath = Input.Path;
        CO->Flags = Input.Flags;
        CO->Arch = TC.GpuArch;
        CO->DependencyFingerprint =
            projectHeaderFingerprint(Parsed.getSourceManager(), TC);
      }
      BatchResult R;
      progress(Opts, "compile" + Suffix, 0, Batch.size());
      std::vector<std::string> Cubins =
          compileVariants(TC, Batch, *CO, R.CompileErrors);
      progress(Opts, "compile" + Suffix, Batch.size(), Batch.size());
      Result.addPhase("compile", PhaseStart);
      PhaseStart = std::chrono::steady_clock::now();
      if (Cubins[0].empty())
        return createStringError(inconvertibleErrorCode(),
                                 "nvcc could not compile the original file: %s",
                                 R.CompileErrors[0].c_str());

      if (!MO) {
        MO.emplace();
        MO->FpModel = fpModelName(Opts.Model).str();
        if (Opts.Model == FpModel::Reassoc) {
          // The reference of float outputs: the original promoted to
          // double.
          if (Expected<Fp64Shadow> Sh = makeFp64Shadow(Ctx, K, Input.Text)) {
            VariantSource SV;
            SV.Id = "fp64-shadow";
            SV.Text = Sh->Text;
            SV.Entry = Sh->Entry;
            std::vector<std::string> ShadowErrors;
            std::vector<std::string> ShadowCubin =
                compileVariants(TC, {SV}, *CO, ShadowErrors);
            if (ShadowCubin[0].empty())
              ShadowNote = "no fp64 reference: the shadow did not compile (" +
                           ShadowErrors[0].substr(0, 300) +
                           "); compared with the original at the fp32 "
                           "tolerance";
            else
              MO->Shadow = MeasureOptions::ShadowJob{
                  ShadowCubin[0], Sh->Entry,
                  H.Shmem * (Sh->DoublesDynamicShared ? 2 : 1), Sh->Promoted};
          } else {
            ShadowNote = toString(Sh.takeError()) +
                         "; compared with the original at the fp32 tolerance";
          }
        }
        MO->OrigRuns = Opts.OrigRuns;
        if (MO->Shadow)
          // Outputs the analysis proves are written in rows are also
          // checked row by row against the shadow.
          for (const auto &[Index, L] : rowStructuredOutputs(Ctx, K)) {
            MeasureOptions::RowLayout Layout;
            if (L.Value)
              Layout.Length = *L.Value;
            else if (L.Param)
              Layout.LengthArg = static_cast<int>(*L.Param);
            MO->RowOutputs[Index] = Layout;
          }
        MO->Worker = Opts.WorkerPath;
        MO->Devices = Opts.Devices.empty() ? H.Devices : Opts.Devices;
        MO->Runs = H.Runs;
        MO->RelTol = H.RelTol;
        MO->TimeBudgetEnd = timeBudgetEnd(Opts);
        // Racing (stop timing clearly slower variants after a few rounds;
        // checked on the GPU by test/GPU/measure/hazards.test);
        // CUDA_OPT_NO_RACE=1 times every verified variant in full.
        MO->Race = std::getenv("CUDA_OPT_NO_RACE") == nullptr;
        // The cuBLAS reference is timed once, beside the first batch.
        MO->Reference = gemmReferenceFor(*H.Model, H.IntArgs, H.BufferElements,
                                         H.Grid, H.Block, ReferenceNote);
        ReferenceJob = MO->Reference.has_value();
      } else {
        MO->Reference.reset();
      }
      // Each round's worker files apart (job, result, log).
      SmallString<256> WD(Opts.WorkDir);
      sys::path::append(WD, "measure-" + Kernel);
      if (InRounds)
        sys::path::append(WD, "round-" + std::to_string(Round));
      MO->WorkDir = std::string(WD);
      // Verification of large buffers takes time per variant; the deadline
      // is for a worker that stopped making progress.
      MO->DeadlineSeconds = 120 + 20 * static_cast<unsigned>(Batch.size());
      MO->Progress = [&Opts, Suffix](unsigned D, unsigned T) {
        progress(Opts, "measure" + Suffix, D, T);
      };
      std::map<std::string, double> WorkerPhases;
      MO->WorkerPhases = &WorkerPhases;
      Expected<std::vector<Measurement>> Measured =
          measureVariants(Batch, Cubins, H.Args, *MO, Result.Device,
                          Round <= 1 ? &Ref : nullptr);
      MO->WorkerPhases = nullptr;
      Result.addPhase("measure", PhaseStart);
      for (const auto &[Phase, Secs] : WorkerPhases)
        Result.PhaseSeconds["measure: worker " + Phase + " (included above)"] +=
            Secs;
      if (!Measured)
        return Measured.takeError();
      R.Ms = std::move(*Measured);
      return R;
    };

    // Round 0: what the database gave (rounds only) is what the order has
    // seen before the first round.
    std::vector<std::string> Pipelines;
    for (size_t I = 1; I < Variants.size(); ++I)
      Pipelines.push_back(Variants[I].Pipeline);
    for (const ReusedVariant &U : Reused)
      Pipelines.push_back(U.V.Pipeline);
    std::optional<OnlineRanking> Online;
    unsigned Observed = 0;
    if (InRounds) {
      Online.emplace(*Opts.Ranker, H.Model->features(), harnessSignature(H),
                     Pipelines);
      MeasureRound R0;
      for (size_t J = 0; J < Reused.size(); ++J) {
        const TuningRecord &R = Reused[J].R;
        const size_t I = Pool + J;
        R0.Ids.push_back(Reused[J].V.Id);
        if (R.Verdict == "rejected" || R.Verdict == "compile-error") {
          Online->observeFailure(I);
          ++Observed;
        } else if ((R.verified() || R.Verdict == "slower") && StoredOriginal &&
                   StoredOriginal->MedianMs > 0 && R.MedianMs > 0) {
          Online->observe(I, std::log(StoredOriginal->MedianMs / R.MedianMs));
          ++Observed;
        } else {
          Online->take(I);
        }
      }
      if (!R0.Ids.empty()) {
        R0.Observed = Observed;
        Rounds.push_back(std::move(R0));
      }
    }

    // The rounds (one batch when not in rounds).
    std::vector<VariantSource> Done = {Variants[0]};
    std::vector<bool> PoolTaken(Pool, false);
    std::optional<std::chrono::steady_clock::time_point> Deadline =
        timeBudgetEnd(Opts);
    for (unsigned Round = 1; Round <= NumRounds; ++Round) {
      MeasureRound MR;
      MR.Number = Round;
      MR.Observed = Observed;
      if (Round > 1 && Deadline &&
          std::chrono::steady_clock::now() >= *Deadline) {
        MR.Error = formatv("not measured: the time budget (--time={0}) ran "
                           "out before round {1}",
                           Opts.TimeSeconds, Round);
        Rounds.push_back(std::move(MR));
        break;
      }
      // Pool positions (from 0) this round measures.
      std::vector<size_t> Picks;
      const size_t Size =
          InRounds ? ToMeasure / NumRounds + (Round <= ToMeasure % NumRounds)
                   : ToMeasure;
      if (Online) {
        std::vector<size_t> StaticNext;
        for (size_t I = 0; I < Pool && StaticNext.size() < Size; ++I)
          if (!PoolTaken[I])
            StaticNext.push_back(I);
        while (Picks.size() < Size)
          if (std::optional<size_t> I = Online->next(); I && *I < Pool)
            Picks.push_back(*I);
          else if (!I)
            break;
        for (size_t I : Picks)
          MR.Moved += !llvm::is_contained(StaticNext, I);
      } else {
        for (size_t I = 0; I < Size; ++I)
          Picks.push_back(I);
      }
      std::vector<VariantSource> Batch = {Variants[0]};
      std::vector<bool> Need = {false};
      std::vector<size_t> Pos = {0};
      for (size_t I : Picks) {
        PoolTaken[I] = true;
        Batch.push_back(Variants[I + 1]);
        Need.push_back(NeedLaunch[I + 1]);
        Pos.push_back(I + 1);
      }
      Expected<BatchResult> B = MeasureBatch(Batch, Need, Pos, Round);
      if (!B) {
        if (Round == 1)
          return B.takeError();
        // What the earlier rounds measured stands; these are not measured.
        MR.Error = toString(B.takeError());
        for (size_t J = 1; J < Pos.size(); ++J) {
          CandidateRecord C;
          C.Id = Batch[J].Id;
          C.Pipeline = Batch[J].Pipeline;
          C.Status = "not-measured";
          C.Detail = "round " + std::to_string(Round) + " failed: " + MR.Error;
          C.Round = static_cast<int>(Round);
          Record(C);
        }
        Rounds.push_back(std::move(MR));
        break;
      }
      Result.VariantsMeasured += Batch.size() - 1;
      const Measurement &Orig = B->Ms[0];
      if (Round == 1) {
        Ms.push_back(Orig);
        CompileErrors.push_back(B->CompileErrors[0]);
        RoundOf.push_back(1);
        // Each measurement in its own transaction, as soon as the worker's
        // results are back. The original once: later rounds' variants are
        // stored scaled to this round's original (below).
        Rec.record("", Orig, B->CompileErrors[0], Result);
      }
      // Each round measures the original again beside its variants (same-run
      // ratios); later rounds' times are scaled by round 1's original over
      // this round's, which keeps every speedup and makes the medians
      // comparable for the choice (as with several GPUs).
      const double Scale =
          Orig.MedianMs > 0 ? Ms[0].MedianMs / Orig.MedianMs : 1.0;
      MR.OriginalMs = Orig.MedianMs;
      for (size_t J = 1; J < Batch.size(); ++J) {
        Measurement M = B->Ms[J];
        if (Round > 1) {
          M.MedianMs *= Scale;
          M.MinMs *= Scale;
          M.MaxMs *= Scale;
          M.P10Ms *= Scale;
          M.P90Ms *= Scale;
        }
        Rec.record(Batch[J].Pipeline, M, B->CompileErrors[J], Result);
        MR.Ids.push_back(Batch[J].Id);
        if (Online) {
          const size_t I = Pos[J] - 1;
          if (!B->CompileErrors[J].empty() || (!M.Skipped && !M.Verified)) {
            Online->observeFailure(I);
            ++Observed;
          } else if (!M.Skipped && M.MedianMs > 0 && Orig.MedianMs > 0) {
            Online->observe(I, std::log(Orig.MedianMs / B->Ms[J].MedianMs));
            ++Observed;
          }
        }
        Done.push_back(std::move(Batch[J]));
        Ms.push_back(M);
        CompileErrors.push_back(B->CompileErrors[J]);
        RoundOf.push_back(static_cast<int>(Round));
      }
      if (InRounds)
        Rounds.push_back(std::move(MR));
    }
    // Legal candidates the rounds did not reach.
    if (InRounds)
      for (size_t I = 0; I < Pool; ++I)
        if (!PoolTaken[I]) {
          CandidateRecord C;
          C.Id = Variants[I + 1].Id;
          C.Pipeline = Variants[I + 1].Pipeline;
          C.Status = "over-budget";
          C.Detail = "legal, ranked after the budget's candidates by the "
                     "online ranker";
          Record(C);
        }
    Variants = std::move(Done);
  }
  // Stored results join the measured ones, after them.
  const size_t FirstReused = Variants.size();
  for (ReusedVariant &U : Reused) {
    Measurement M = measurementOf(U.R);
    M.Id = U.V.Id;
    if (M.MedianMs > 0)
      M.Speedup = Ms[0].MedianMs / M.MedianMs;
    Ms.push_back(M);
    CompileErrors.push_back(U.R.Verdict == "compile-error" ? U.R.FailureReason
                                                           : "");
    Variants.push_back(std::move(U.V));
  }
  if (!Reused.empty()) {
    Result.VariantsReused += Reused.size();
    Result.DatabaseNotes.push_back(formatv(
        "{0}: {1} of {2} variants reused from the tuning database {3} (same "
        "GPU model, driver, CUDA and cuda-opt version, kernel, problem and "
        "fp-model), not measured again{4}",
        Kernel, Reused.size(), Variants.size() - 1, Opts.Database->path(),
        AllReused ? "; the original's time is the stored one too" : ""));
  }

  Result.Measured = true;
  Result.MinBytes += H.MinBytes;
  Result.Flops += H.Flops;
  const size_t Best = chooseVariant(Ms, [&](size_t I) {
    const Measurement &M = Ms[I];
    return CompileErrors[I].empty() && M.Verified && !M.StoppedEarly;
  });
  for (size_t I = 0; I < Variants.size(); ++I) {
    const Measurement &M = Ms[I];
    CandidateRecord C;
    C.Id = Variants[I].Id;
    C.Pipeline = Variants[I].Pipeline;
    C.M = M;
    if (!CompileErrors[I].empty()) {
      C.Status = "compile-error";
      C.Detail = CompileErrors[I];
    } else if (M.Skipped) {
      C.Status = "skipped";
      C.Detail = M.Error;
    } else if (M.StoppedEarly) {
      C.Status = "slower";
      C.Detail = formatv("verified; timing stopped after {0} runs: its "
                         "fastest run was over 1.25x the original's median "
                         "(times from those runs only)",
                         M.Runs);
    } else if (!M.Verified) {
      C.Status = "rejected";
      C.Detail = M.Error;
    } else {
      C.Status = I == Best ? "fastest" : "verified";
      if (M.Check == "fp64")
        C.Detail = formatv("within the fp64 bound: error {0:e1}, {1:F1}x "
                           "the original's",
                           M.Fp64Error, M.Fp64ErrorRatio);
      if (I == 0 && !M.ReplayWarning.empty())
        C.Detail = "warning: " + M.ReplayWarning;
      if (Variants[I].Library)
        C.Detail = "calls " +
                   Variants[I].Library->getString("kind").value_or("").str() +
                   " (" +
                   Variants[I].Library->getString("path").value_or("").str() +
                   "); build the output with that runtime library";
      if (Variants[I].Grid != H.Grid || Variants[I].Block != H.Block)
        C.Detail = formatv("launch {0}x{1}x{2} blocks of {3}x{4}x{5}",
                           Variants[I].Grid[0], Variants[I].Grid[1],
                           Variants[I].Grid[2], Variants[I].Block[0],
                           Variants[I].Block[1], Variants[I].Block[2]);
    }
    if (InRounds)
      C.Round = I >= FirstReused ? 0 : RoundOf[I];
    if (I >= FirstReused) {
      const TuningRecord &R = Reused[I - FirstReused].R;
      C.Detail = "reused from the tuning database (measured " + R.MeasuredAt +
                 " on " + R.Host + ")" +
                 (C.Detail.empty() ? "" : "; " + C.Detail);
    }
    Record(C);
  }
  KernelOutcome KO;
  KO.Kernel = Kernel;
  KO.Measured = true;
  KO.Detail = H.ProgramMode ? "program mode" : "spec mode";
  if (!Ms[0].ReplayWarning.empty())
    KO.Detail += "; warning: " + Ms[0].ReplayWarning;
  KO.BaselineMs = Ms[0].MedianMs;
  KO.BestMs = Ms[Best].MedianMs;
  KO.Pipeline = Variants[Best].Pipeline;
  KO.Grid = H.Grid;
  KO.Block = H.Block;
  KO.MinBytes = H.MinBytes;
  KO.Reference = Ref;
  KO.ReferenceNote = ReferenceJob ? Ref.Error : ReferenceNote;
  KO.VerifyNote = !Ms[0].ShadowNote.empty() ? Ms[0].ShadowNote : ShadowNote;
  KO.Rounds = std::move(Rounds);
  if (Expected<std::vector<PassInvocation>> Chosen =
          parsePipeline(Variants[Best].Pipeline)) {
    KO.ChosenNeeds = modelNeededFor(KernelTarget{Ctx, K}, *Chosen);
  } else {
    consumeError(Chosen.takeError());
  }
  Result.Kernels.push_back(KO);
  // A kernel a kept region rewrite launches N times per run counts N times
  // (the region's own time was counted as the difference to the original).
  auto Launched = Result.LaunchesPerRun.find(Kernel);
  double Times = Launched == Result.LaunchesPerRun.end()
                     ? 1.0
                     : static_cast<double>(Launched->second);
  Result.BaselineMs += Times * KO.BaselineMs;
  Result.BestMs += Times * KO.BestMs;
  if (!KO.Pipeline.empty())
    Result.ChosenPipeline += (Result.ChosenPipeline.empty() ? "" : "; ") +
                             Kernel + ": " + KO.Pipeline;
  return Variants[Best].Text;
}

/// The spec file at \p Path, read and checked against the parsed kernels.
static Expected<TuneSpec> loadSpec(StringRef Path, ParsedSource &Parsed,
                                   const std::vector<KernelInfo> &Kernels) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read spec '%s': %s",
                             Path.str().c_str(),
                             Buf.getError().message().c_str());
  return TuneSpec::parse((*Buf)->getBuffer(), Parsed.getASTContext(), Kernels);
}

/// The spec's buffer sizes and integer arguments, which candidate
/// generation reads (Transform::inertAt) and the cuBLAS reference sizes.
static void addSpecArgs(const TuneSpec &Spec, Harness &H) {
  for (const SpecArg &A : Spec.Args) {
    if (A.IsBuffer)
      H.BufferElements[A.Name] = A.Count;
    else if (A.DType[0] == 'i' || A.DType[0] == 'u')
      H.IntArgs[A.Name] = static_cast<int64_t>(A.Value);
  }
}

} // namespace

std::string specProblemSignature(const TuneSpec &Spec) {
  Harness H;
  H.Grid = Spec.Grid;
  H.Block = Spec.Block;
  H.Shmem = Spec.Shmem;
  addSpecArgs(Spec, H);
  return harnessSignature(H);
}

namespace {

/// --dry-run: the candidates each kernel would get, rewritten and checked
/// for legality, with nothing compiled or run.
Expected<TuneResult> dryRun(const Toolchain &TC, const SourceInput &Input,
                            ParsedSource &Parsed,
                            const std::vector<KernelInfo> &Kernels,
                            const TuneOptions &Opts) {
  TuneResult Result;
  Result.Mode = Opts.SpecPath.empty() ? "program" : "spec";
  Result.Text = Input.Text;
  Result.NotMeasuredReason =
      "dry run (--dry-run): the candidates are listed; nothing was compiled "
      "or run";
  bool HasMain = definesMain(Parsed.getASTContext());
  // With a spec, its sizes are the launch tune would measure.
  std::optional<TuneSpec> Spec;
  if (!Opts.SpecPath.empty()) {
    Expected<TuneSpec> S = loadSpec(Opts.SpecPath, Parsed, Kernels);
    if (!S)
      return S.takeError();
    Spec = std::move(*S);
  }
  // Program mode: the region phase's rewrites first, as tune measures them.
  if (!Spec && HasMain && Opts.KernelName.empty() &&
      !std::getenv("CUDA_OPT_NO_REGIONS")) {
    Harness RH;
    RH.ProgramMode = true;
    Expected<std::string> T =
        tuneRegions(TC, Input, RH, Opts, Result, &Parsed);
    if (!T)
      return T.takeError();
  }
  // Every kernel's candidates rewrite the same input.
  SharedPreamble Prelude(TC, Input);
  for (const KernelInfo &K : Kernels) {
    if (!Opts.KernelName.empty() ? K.name() != Opts.KernelName
                                 : HasMain && K.Launches.empty())
      continue;
    Result.Kernel += (Result.Kernel.empty() ? "" : ", ") + K.name();
    Harness H;
    H.ProgramMode = Opts.SpecPath.empty();
    if (Spec && Spec->Kernel == K.name())
      addSpecArgs(*Spec, H);
    CandidateSet Set =
        generateVariants(TC, Input, Parsed, K, H, Opts, Result, &Prelude);
    for (size_t I = 1; I < Set.Variants.size(); ++I) {
      CandidateRecord C;
      C.Kernel = K.name();
      C.Id = Set.Variants[I].Id;
      C.Pipeline = Set.Variants[I].Pipeline;
      C.Status = "candidate";
      if (Set.Variants[I].Library)
        C.Detail = "calls a runtime library";
      else if (Set.NeedLaunch[I])
        C.Detail = "changes the launch (its own program is run to learn it)";
      Result.Candidates.push_back(C);
    }
    // With --db: the candidates as unmeasured rows (a tune-batch shard's
    // trace in the shared database); the spec's problem, else none yet.
    recordDryRun(Opts, TC, Parsed.getASTContext(), K,
                 Spec && Spec->Kernel == K.name()
                     ? specProblemSignature(*Spec)
                     : std::string("not captured (dry run)"),
                 Result.Candidates, Input, Result);
  }
  return Result;
}

Expected<TuneResult> tuneSpecMode(const Toolchain &TC, const SourceInput &Input,
                                  ParsedSource &Parsed,
                                  const std::vector<KernelInfo> &Kernels,
                                  const TuneOptions &Opts) {
  // The spec is checked even when there is no GPU, so its mistakes surface
  // early.
  Expected<TuneSpec> Spec = loadSpec(Opts.SpecPath, Parsed, Kernels);
  if (!Spec)
    return Spec.takeError();
  if (!Opts.KernelName.empty() && Opts.KernelName != Spec->Kernel)
    return createStringError(inconvertibleErrorCode(),
                             "--kernel=%s but the spec describes kernel '%s'",
                             Opts.KernelName.c_str(), Spec->Kernel.c_str());
  TuneOptions Fallback = Opts;
  Fallback.KernelName = Spec->Kernel;
  Harness H;
  GpuProbeResult Gpus;
  if (!Opts.TestReplayPath.empty()) {
    // Tests only: no GPU, no worker; the measurements come from a file.
    Expected<MeasurementReplay> Replay =
        MeasurementReplay::load(Opts.TestReplayPath);
    if (!Replay)
      return Replay.takeError();
    H.Replay = std::make_shared<const MeasurementReplay>(std::move(*Replay));
    GpuInfo G;
    G.Name = "test replay (no GPU)";
    Gpus.Devices.push_back(G);
    Gpus.DriverVersion = "none";
  } else {
    Gpus = probeGpus();
    if (Gpus.Devices.empty())
      return rewriteOnly(TC, Input, Fallback, "no CUDA GPU: " + Gpus.Reason);
    if (Opts.WorkerPath.empty())
      return rewriteOnly(TC, Input, Fallback,
                         "the measurement worker cuda-opt-measure is not "
                         "installed next to cuda-opt");
  }
  H.Devices = ordinals(Gpus);
  H.Gpu =
      tuningGpuOf(Gpus, TC, Opts.Devices.empty() ? -1 : Opts.Devices.front());
  H.Grid = Spec->Grid;
  H.Block = Spec->Block;
  H.Shmem = Spec->Shmem;
  H.Args = Spec->argsToJob();
  H.Runs = Spec->Runs;
  H.RelTol = Opts.RelTol >= 0 ? Opts.RelTol : Spec->RelTol;
  H.MinBytes = Spec->MinBytes;
  H.Flops = Spec->Flops;
  addSpecArgs(*Spec, H);
  TuneResult Result;
  Result.Mode = "spec";
  Result.Kernel = Spec->Kernel;
  Result.Device = Gpus.Devices.front().Name;
  Expected<std::string> Text =
      tuneKernel(TC, Input, Parsed, *lookupKernel(Kernels, Spec->Kernel), H,
                 Opts, Result);
  if (!Text)
    return Text.takeError();
  Result.Text = std::move(*Text);
  return Result;
}

/// Program mode: tune each chosen kernel in turn on its captured launch,
/// continuing from the previous kernel's best text.
Expected<TuneResult> tuneProgramMode(const Toolchain &TC,
                                     const SourceInput &Input,
                                     std::vector<std::string> KernelNames,
                                     const GpuProbeResult &Gpus,
                                     const TuneOptions &Opts) {
  TuneResult Result;
  Result.Mode = "program";
  Result.Device = Gpus.Devices.front().Name;
  SourceInput Current = Input;
  std::optional<std::chrono::steady_clock::time_point> Deadline =
      timeBudgetEnd(Opts);
  auto CaptureSetup = [&](Harness &H) {
    H.Devices = ordinals(Gpus);
    H.Gpu =
        tuningGpuOf(Gpus, TC, Opts.Devices.empty() ? -1 : Opts.Devices.front());
    H.ProgramMode = true;
    H.RelTol = Opts.RelTol;
    H.Capture.WorkDir = Opts.WorkDir;
    H.Capture.Flags = Current.Flags;
    H.Capture.Arch = TC.GpuArch;
    H.Capture.ProgramArgs = Opts.ProgramArgs;
    H.Capture.LaunchIndex = Opts.LaunchIndex;
    H.Capture.TimeoutSeconds = Opts.ProgramTimeoutSeconds;
    H.Capture.RunCommand = Opts.RunCommand;
    if (!Opts.RunCommand.empty()) {
      SmallString<256> Cwd;
      sys::fs::current_path(Cwd);
      H.Capture.RunRoot = std::string(Cwd);
    }
  };
  // Host regions first: a fused kernel is then tuned like the others.
  if (Opts.KernelName.empty() && !std::getenv("CUDA_OPT_NO_REGIONS")) {
    Harness RH;
    CaptureSetup(RH);
    Expected<std::string> T = tuneRegions(TC, Current, RH, Opts, Result);
    if (!T)
      return T.takeError();
    if (*T != Current.Text) {
      Current.Text = std::move(*T);
      Expected<std::unique_ptr<ParsedSource>> P = parseSource(TC, Current);
      if (!P)
        return P.takeError();
      KernelNames.clear();
      for (const KernelInfo &K : findKernels((*P)->getASTContext()))
        if (!K.Launches.empty())
          KernelNames.push_back(K.name());
    }
  }
  for (const std::string &Name : KernelNames) {
    Result.Kernel += (Result.Kernel.empty() ? "" : ", ") + Name;
    KernelOutcome Skip;
    Skip.Kernel = Name;
    auto Skipped = [&](Error E) {
      Skip.Detail = toString(std::move(E));
      Result.Kernels.push_back(Skip);
      CandidateRecord C;
      C.Kernel = Name;
      C.Id = "original";
      C.Status = "not-measured";
      C.Detail = Skip.Detail;
      Result.Candidates.push_back(C);
    };
    if (Deadline && std::chrono::steady_clock::now() >= *Deadline) {
      Skipped(createStringError(inconvertibleErrorCode(),
                                "not measured: the time budget (--time=%u) "
                                "ran out before this kernel",
                                Opts.TimeSeconds));
      continue;
    }
    Expected<std::unique_ptr<ParsedSource>> P = parseSource(TC, Current);
    if (!P)
      return P.takeError();
    std::vector<KernelInfo> Kernels = findKernels((*P)->getASTContext());
    const KernelInfo *K = lookupKernel(Kernels, Name);
    Harness H;
    CaptureSetup(H);
    H.Capture.Tag = Name + "-original";
    progress(Opts, "capture " + Name, 0, 1);
    auto CaptureStart = std::chrono::steady_clock::now();
    Expected<CapturedLaunch> L =
        captureLaunch(TC, Current, **P, Name, H.Capture);
    progress(Opts, "capture " + Name, 1, 1);
    Result.addPhase("capture", CaptureStart);
    if (!L) {
      Skipped(L.takeError());
      continue;
    }
    H.Model = buildKernelModel((*P)->getASTContext(), *K);
    Expected<json::Array> Args =
        replayArgs(*L, (*P)->getASTContext(), *K, *H.Model);
    if (!Args) {
      Skipped(Args.takeError());
      continue;
    }
    H.Original = *L;
    H.Grid = L->Grid;
    H.Block = L->Block;
    H.Shmem = L->Shmem;
    H.Args = std::move(*Args);
    H.MinBytes = capturedMinBytes(H.Args, *L);
    for (unsigned I = 0; I < L->Params.size() && I < K->Decl->getNumParams();
         ++I) {
      const clang::ParmVarDecl *PD = K->Decl->getParamDecl(I);
      std::string PName = PD->getNameAsString();
      if (std::optional<int64_t> V = capturedInteger(L->Params[I], PD->getType()))
        H.IntArgs[PName] = *V;
      const json::Object *A = H.Args[I].getAsObject();
      if (L->Params[I].K == CapturedParam::Pointer && A &&
          A->getInteger("count")) {
        int64_t Count = *A->getInteger("count");
        int64_t Elt = static_cast<int64_t>(L->Allocs[L->Params[I].Alloc].Size) /
                      std::max<int64_t>(Count, 1);
        H.BufferElements[PName] =
            Count - static_cast<int64_t>(L->Params[I].Offset) /
                        std::max<int64_t>(Elt, 1);
      }
    }
    Expected<std::string> Text =
        tuneKernel(TC, Current, **P, *K, H, Opts, Result);
    if (!Text) {
      Skipped(Text.takeError());
      continue;
    }
    Current.Text = std::move(*Text);
  }
  Result.Text = Current.Text;
  // Only regions were measured (a region rewrite left no kernel of ours).
  if (Result.Kernel.empty())
    for (const KernelOutcome &K : Result.Kernels)
      Result.Kernel += (Result.Kernel.empty() ? "" : ", ") + K.Kernel;
  if (!Result.Measured) {
    std::string Why = "no kernel could be measured";
    for (const KernelOutcome &K : Result.Kernels)
      Why += "; " + K.Kernel + ": " + K.Detail;
    TuneOptions Fallback = Opts;
    Expected<TuneResult> R = rewriteOnly(TC, Input, Fallback, Why);
    if (R)
      R->Kernels = Result.Kernels;
    return R;
  }
  return Result;
}
} // namespace

Expected<TuneResult> tune(const Toolchain &TC, const SourceInput &Input,
                          const TuneOptions &OptsIn) {
  auto Start = std::chrono::steady_clock::now();
  const double LockWaitAtStart = GpuLock::totalWaitSeconds();
  TuneOptions Opts = OptsIn;
  Opts.StartedAt = Start;
  Expected<std::unique_ptr<ParsedSource>> P = parseSource(TC, Input);
  if (!P)
    return P.takeError();
  std::vector<KernelInfo> Kernels = findKernels((*P)->getASTContext());
  if (!Opts.KernelName.empty() && !lookupKernel(Kernels, Opts.KernelName))
    return createStringError(inconvertibleErrorCode(),
                             "no kernel named '%s' in %s",
                             Opts.KernelName.c_str(), Input.Path.c_str());
  Expected<TuneResult> R = [&]() -> Expected<TuneResult> {
    if (Opts.DryRun)
      return dryRun(TC, Input, **P, Kernels, Opts);
    if (Opts.MeasureNothing)
      return rewriteOnly(TC, Input, Opts,
                         "cuda-opt ran without a mode: predicted, not measured "
                         "(`cuda-opt tune` measures)");
    if (!Opts.SpecPath.empty())
      return tuneSpecMode(TC, Input, **P, Kernels, Opts);
    GpuProbeResult Gpus = probeGpus();
    if (Gpus.Devices.empty())
      return rewriteOnly(TC, Input, Opts, "no CUDA GPU: " + Gpus.Reason);
    if (!definesMain((*P)->getASTContext()) && Opts.RunCommand.empty())
      return rewriteOnly(TC, Input, Opts,
                         "the file has no main() to run, and neither --run "
                         "'CMD' (a program built from several files) nor "
                         "--spec=FILE describes the kernel's inputs");
    // Program mode: the named kernel, or every kernel the file launches.
    std::vector<std::string> Names;
    for (const KernelInfo &K : Kernels)
      if ((Opts.KernelName.empty() && !K.Launches.empty()) ||
          K.name() == Opts.KernelName)
        Names.push_back(K.name());
    if (Names.empty())
      return rewriteOnly(TC, Input, Opts,
                         Opts.RunCommand.empty()
                             ? "main() launches no kernel defined in this file"
                             : "this file launches none of its kernels (with "
                               "--run, the launches to capture must be in "
                               "FILE)");
    if (Opts.WorkerPath.empty())
      return rewriteOnly(TC, Input, Opts,
                         "the measurement worker cuda-opt-measure is not "
                         "installed next to cuda-opt");
    return tuneProgramMode(TC, Input, Names, Gpus, Opts);
  }();
  if (R && GpuLock::totalWaitSeconds() > LockWaitAtStart)
    // Included in the phases above; says how much of them other tune
    // processes' GPU work cost (bench/run.sh runs several at once).
    R->PhaseSeconds["gpu-lock-wait (included above)"] =
        GpuLock::totalWaitSeconds() - LockWaitAtStart;
  if (R) {
    R->Model = Opts.Model;
    // The output says when its results may differ from the input's in the
    // last bits, and how that was verified (docs/fp-model.md).
    std::string Reordered;
    for (const KernelOutcome &K : R->Kernels)
      if (K.Measured && K.ChosenNeeds != FpModel::Strict)
        Reordered += (Reordered.empty() ? "'" : ", '") + K.Kernel + "'";
    if (R->Measured && !Reordered.empty())
      R->Text = "// cuda-opt tune --fp-model=" + fpModelName(Opts.Model).str() +
                ": kernel " + Reordered +
                " reorders floating-point sums; verified on " + R->Device +
                " against an fp64 reference of the original "
                "(see the tune report).\n" +
                R->Text;
    // The libraries the chosen rewrites call, for whoever builds the output.
    std::vector<std::string> Passes;
    for (const KernelOutcome &K : R->Kernels)
      if (K.Measured && appendLinkFlags(K.Pipeline, R->LinkFlags))
        Passes.push_back("'" + K.Kernel + "': " + K.Pipeline);
    R->Text = linkFlagsHeader(R->LinkFlags, Passes) + R->Text;
  }
  if (R)
    R->Seconds = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - Start)
                     .count();
  return R;
}

} // namespace cuda_opt
