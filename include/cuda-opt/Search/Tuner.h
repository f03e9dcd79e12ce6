//===- Tuner.h - cuda-opt tune: search, measure, keep the fastest -*- C++ -*-===//
//
// Part of cuda-opt. Generates candidate pipelines for a kernel, rewrites the
// file with each (legal ones only), compiles and measures them against the
// original on the GPU, and returns the fastest verified source with a report.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SEARCH_TUNER_H
#define CUDA_OPT_SEARCH_TUNER_H

#include "cuda-opt/Frontend/SourceParser.h"
#include "cuda-opt/Measure/Measure.h"
#include "cuda-opt/Search/CandidateSpace.h"
#include "cuda-opt/Support/FpModel.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"
#include <chrono>
#include <functional>
#include <map>
#include <memory>

namespace cuda_opt {

class RankerModel;

struct StepRecord;
struct TuneSpec;
class TuningDatabase;

struct TuneOptions {
  std::string KernelName;   ///< Empty: the spec's kernel, or the only one.
  std::string SpecPath;     ///< JSON tuning spec (spec mode).
  std::string Pipeline;     ///< Fixed pipeline used when nothing is measured.
  unsigned Budget = 64;     ///< Max candidate variants measured.
  /// When not empty: measure these pipelines (in this order, within the
  /// budget) instead of the candidate space.
  std::vector<std::string> Candidates;
  std::string WorkerPath;   ///< cuda-opt-measure.
  std::string WorkDir;
  bool Format = true;
  bool ShowProgress = false;
  /// Program mode: arguments of the program, and which launch of the
  /// kernel's sites to capture (0 = the first).
  std::vector<std::string> ProgramArgs;
  int64_t LaunchIndex = 0;
  /// Relative tolerance for comparing outputs (<0: the spec's, else the
  /// per-dtype default).
  double RelTol = -1;
  /// --fp-model: what variants may do to float results, and how they are
  /// verified (Support/FpModel.h; reassoc: against an fp64 shadow).
  FpModel Model = FpModel::Reassoc;
  /// --orig-runs: under reassoc, how many times the original runs per seed
  /// on the same inputs; its largest error against the fp64 reference is
  /// the one variants are held to (1..16).
  int OrigRuns = 3;
  /// GPUs to measure on (one worker each); empty: GPU 0.
  std::vector<int> Devices;
  unsigned ProgramTimeoutSeconds = 600;
  /// --run: shell command that builds and runs the program (program mode
  /// for a program built from several files; see ShadowTree.h).
  std::string RunCommand;
  /// --time: seconds for the whole tune (0: no limit). Kernels not reached
  /// and variants not verified by then are reported as skipped.
  unsigned TimeSeconds = 0;
  /// --dry-run: generate and rewrite the candidates, report them, and stop
  /// (no GPU, nothing compiled or run).
  bool DryRun = false;
  /// cuda-opt without a mode: rewrite as tune does without a GPU (the
  /// ranker's predicted best strict rewrite per kernel, or the given
  /// pipeline where legal) and measure nothing, GPU or not.
  bool MeasureNothing = false;
  /// --policy: order the candidates by the learned policy (TuningPolicy.h)
  /// before the budget cuts them; false: the round-robin order.
  bool LearnedPolicy = true;
  /// --policy=ranker: the learned ranker (Ranker.h) orders the candidates
  /// instead of the k-NN; the built-in model or --policy-model's.
  std::shared_ptr<const RankerModel> Ranker;
  /// --online-rounds: with the ranker, how many rounds a kernel's budget is
  /// measured in when it has more candidates than the budget takes: the
  /// ranker's first picks, then the rest re-ranked from what was measured
  /// (OnlineRanking, Ranker.h) before each further round (docs/policy.md).
  /// 1: one batch in the ranker's order.
  unsigned OnlineRounds = 4;
  /// --test-replay-measurements (tests only, docs/tuning.md): spec mode
  /// takes each variant's measurement from this file instead of compiling
  /// and running it on a GPU, so that the lit suite can run the rounds,
  /// the database and the report on a machine without one. Never set in
  /// normal use.
  std::string TestReplayPath;
  /// libcudaopt_gemm.so, for measuring gemm-specialize (empty: not found).
  std::string GemmLibraryPath;
  /// cuDNN's root (include/cudnn.h and lib/ or lib64/), for building the
  /// libraries that measure conv-cudnn (empty: not found).
  std::string CudnnRoot;
  /// Handed each step of the pipeline applied when nothing is measured, as
  /// it is decided (PipelineOptions::OnStep): how the tool shows its notes.
  std::function<void(const StepRecord &)> OnRewriteStep;
  /// The tuning database (TuningDatabase.h), or null (--no-db): every
  /// measured variant is recorded in it, and a variant already measured on
  /// the same GPU model, driver, CUDA and cuda-opt version, kernel hash,
  /// problem signature and fp-model is not measured again (its stored
  /// result is reused).
  TuningDatabase *Database = nullptr;
  /// Set by tune(): when tuning began (the --time budget counts from it).
  std::chrono::steady_clock::time_point StartedAt;
};

/// One candidate in the report.
struct CandidateRecord {
  std::string Kernel; ///< Program mode may tune several kernels.
  std::string Id;
  std::string Pipeline;
  std::string Status; ///< "fastest", "verified", "illegal", "rejected", ...
  std::string Detail;
  Measurement M;
  /// The measuring round (--online-rounds) of a kernel measured in rounds:
  /// 0 for a result reused from the tuning database, 1 for the ranker's
  /// first picks, ...; -1 when the kernel was measured in one batch.
  int Round = -1;
};

/// One round of a kernel measured in rounds (--online-rounds): what it
/// measured and how the order it was taken from came about.
struct MeasureRound {
  unsigned Number = 0;          ///< 0: results reused from the database.
  std::vector<std::string> Ids; ///< The variants it measured, in order.
  /// The original's median in this round (each round measures it again
  /// beside its variants); the variants' times are scaled by round 1's
  /// original / this one, so that medians compare across rounds.
  double OriginalMs = 0;
  /// Measurements (and failures) the order had seen when the round's
  /// variants were picked.
  unsigned Observed = 0;
  /// How many of its variants the static order (the ranker's, before any
  /// measurement) would not have picked next.
  unsigned Moved = 0;
  /// Why the round, and the rounds after it, did not measure (a failure
  /// of the worker, the time budget).
  std::string Error;
};

/// One kernel's outcome (program mode tunes every launched kernel in turn).
struct KernelOutcome {
  std::string Kernel;
  bool Measured = false;
  std::string Detail; ///< Why it was not measured, or the mode used.
  double BaselineMs = 0, BestMs = 0;
  std::string Pipeline;
  std::array<int64_t, 3> Grid{1, 1, 1}, Block{1, 1, 1};
  int64_t MinBytes = 0;
  /// GEMM-like kernels: cuBLAS on the same problem, timed in the same run.
  ReferenceMeasurement Reference;
  std::string ReferenceNote; ///< Why there is no reference, if none.
  /// How its variants were verified ("fp64 reference used; ..." or why
  /// there is none), and the fp-model the chosen variant needs.
  std::string VerifyNote;
  FpModel ChosenNeeds = FpModel::Strict;
  /// Measured in rounds (--online-rounds): each round, round 0 first when
  /// results came from the tuning database. Empty: one batch.
  std::vector<MeasureRound> Rounds;
};

struct TuneResult {
  std::string Text;          ///< The source to emit.
  FpModel Model = FpModel::Reassoc; ///< --fp-model of the run.
  std::string Mode;          ///< "spec", "program", or "" (not measured).
  std::string Policy;        ///< How the candidates were ordered.
  /// The learned policy's predicted speedup per (kernel, pipeline), for the
  /// report (predicted against measured is the policy's report card).
  std::map<std::pair<std::string, std::string>, double> Predicted;
  std::vector<KernelOutcome> Kernels;
  bool Measured = false;
  std::string NotMeasuredReason;
  std::string Device;
  std::string Kernel;
  std::string ChosenPipeline;
  /// Not measured and chosen by prediction (rewritePredicted): how, for the
  /// output's header, the note and the report; empty otherwise.
  std::string PredictedBy;
  std::vector<CandidateRecord> Candidates;
  /// Libraries the emitted source calls through its chosen rewrites
  /// (Transform::linkFlags): "-lcusparse", ...; the output's header says so.
  std::vector<std::string> LinkFlags;
  double BaselineMs = 0, BestMs = 0;
  /// Program mode: kernels that a kept region rewrite launches a known
  /// number of times other than once per run of the region (a blocked time
  /// loop: the new kernel twice, the original for the left-over sweeps);
  /// their per-launch times count that many times in BaselineMs and BestMs.
  std::map<std::string, int64_t> LaunchesPerRun;
  unsigned VariantsMeasured = 0;
  /// Variants whose result came from the tuning database, not measured again.
  unsigned VariantsReused = 0;
  /// Measurements stored in the tuning database this run.
  unsigned VariantsRecorded = 0;
  /// What the tuning database did or could not do, for the tool to show
  /// (library code does not print).
  std::vector<std::string> DatabaseNotes;
  int64_t MinBytes = 0, Flops = 0; ///< For GB/s and TFLOP/s in the report.
  double Seconds = 0;
  /// Wall seconds per phase (capture, rewrite, variant-launches, compile,
  /// measure), summed over kernels: where tuning time goes.
  std::map<std::string, double> PhaseSeconds;
  void addPhase(llvm::StringRef Phase,
                std::chrono::steady_clock::time_point Since) {
    PhaseSeconds[Phase.str()] += std::chrono::duration<double>(
                                     std::chrono::steady_clock::now() - Since)
                                     .count();
  }

  llvm::json::Value toJSON(llvm::StringRef File) const;
  std::string toMarkdown(llvm::StringRef File) const;
};

/// One round as the report and the tool's notes say it: "round 2: 4
/// measured (v7 v5 v9 v6), picked after 4 observations, 2 not in the
/// static order's next 4, original 1.0000 ms".
std::string describeRound(const MeasureRound &R);
/// Every round, "; " between them.
std::string describeRounds(llvm::ArrayRef<MeasureRound> Rounds);

/// The problem signature (ProblemSignature.h) tune records for a spec-mode
/// measurement of \p Spec: what `cuda-opt apply --spec` looks up.
std::string specProblemSignature(const TuneSpec &Spec);

llvm::Expected<TuneResult> tune(const Toolchain &TC, const SourceInput &Input,
                                const TuneOptions &Opts);

} // namespace cuda_opt

#endif // CUDA_OPT_SEARCH_TUNER_H
