//===- TunerInternal.h - Pieces of cuda-opt tune shared by its files -*- C++
//-*-===//
//
// Part of cuda-opt (private to lib/Search). Tuner.cpp runs a tune;
// CandidateGeneration.cpp makes a kernel's variants; VariantLaunches.cpp
// learns the launch of variants that change it (program mode).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_LIB_SEARCH_TUNERINTERNAL_H
#define CUDA_OPT_LIB_SEARCH_TUNERINTERNAL_H

#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Capture/Capture.h"
#include "cuda-opt/Frontend/ParsePreamble.h"
#include "cuda-opt/Pass/Pipeline.h"
#include "cuda-opt/Search/Tuner.h"
#include "cuda-opt/Search/TuningDatabase.h"
#include "cuda-opt/Support/GpuProbe.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace cuda_opt {
namespace tuner {

/// When the --time budget ends, if there is one.
inline std::optional<std::chrono::steady_clock::time_point>
timeBudgetEnd(const TuneOptions &Opts) {
  if (!Opts.TimeSeconds)
    return std::nullopt;
  return Opts.StartedAt + std::chrono::seconds(Opts.TimeSeconds);
}
/// Draw the progress bar (when stderr is a terminal).
inline void progress(const TuneOptions &Opts, llvm::StringRef Phase,
                     unsigned Done, unsigned Total) {
  if (!Opts.ShowProgress || Total == 0)
    return;
  const unsigned Width = 30;
  unsigned Filled = Done * Width / Total;
  llvm::errs() << "\r" << Phase << " [" << std::string(Filled, '#')
               << std::string(Width - Filled, '.') << "] " << Done << "/"
               << Total << "   ";
  if (Done == Total)
    llvm::errs() << "\n";
  llvm::errs().flush();
}

/// The fewest variants a round of --online-rounds measures: below that,
/// a round's fixed cost (the original measured again, a worker started)
/// buys too little re-ranking.
constexpr size_t MinOnlineRound = 4;

/// Whether tune may measure a kernel in rounds: the ranker orders the
/// candidates (not --candidates, k-NN or round-robin), --online-rounds is
/// over 1 and the budget holds two rounds. Candidate generation then keeps
/// every legal candidate it rewrote, not only the budget's first, for the
/// later rounds to choose from.
inline bool onlineRoundsPossible(const TuneOptions &Opts) {
  return Opts.Ranker && Opts.Candidates.empty() && !Opts.DryRun &&
         Opts.OnlineRounds > 1 && Opts.Budget >= 2 * MinOnlineRound;
}

/// How many rounds a kernel with \p Pool candidates left to measure and
/// \p BudgetLeft of the budget left is measured in: 1 (one batch) unless
/// rounds are possible and there are more candidates than the budget
/// takes; at most --online-rounds, each of at least MinOnlineRound.
inline unsigned onlineRoundsFor(const TuneOptions &Opts, size_t Pool,
                                size_t BudgetLeft) {
  if (!onlineRoundsPossible(Opts) || Pool <= BudgetLeft)
    return 1;
  return static_cast<unsigned>(
      std::clamp<size_t>(BudgetLeft / MinOnlineRound, 1, Opts.OnlineRounds));
}

/// tune --test-replay-measurements=FILE, for tests only (docs/tuning.md):
/// spec mode takes every measurement from FILE instead of compiling and
/// running the variants on a GPU, so that the lit suite can drive the
/// rounds, the tuning database and the report on a machine without one.
/// FILE is JSON:
///   {"format": "cuda-opt-test-replay", "original_ms": 1.0,
///    "default_ms": 1.0, "clock": [1.0, 2.0],
///    "pipelines": {"unroll{factor=4}": 0.5, "launch-bounds": 0.8,
///                  "unroll": {"verdict": "rejected"}}}
/// A pipeline's entry is its exact name, else its passes without
/// parameters ("restrict-const,unroll"); a number is a verified median in
/// ms, an object has "verdict" (verified, slower, rejected, compile-error)
/// and "median_ms". Unlisted pipelines measure default_ms (default: the
/// original's). Every time of round R is multiplied by clock[R-1] (the
/// last entry repeats): a GPU whose clock changed between rounds.
struct MeasurementReplay {
  struct Entry {
    double MedianMs = 0;
    std::string Verdict = "verified";
  };
  double OriginalMs = 1;
  std::optional<double> DefaultMs;
  std::vector<double> Clock = {1.0};
  std::map<std::string, Entry, std::less<>> Pipelines;

  static llvm::Expected<MeasurementReplay> load(llvm::StringRef Path);
  /// Round \p Round's measurements of \p Batch (index 0 the original), as
  /// the worker would return them; \p CompileErrors as compileVariants
  /// would.
  std::vector<Measurement>
  measure(llvm::ArrayRef<VariantSource> Batch, unsigned Round,
          std::vector<std::string> &CompileErrors) const;
};

/// How one kernel is run by the measurement worker.
struct Harness {
  std::array<int64_t, 3> Grid{1, 1, 1}, Block{1, 1, 1};
  int64_t Shmem = 0;
  llvm::json::Array Args;
  int64_t Runs = 20;
  double RelTol = -1;
  int64_t MinBytes = 0, Flops = 0;
  /// Program mode: the original's capture; variants whose host code changes
  /// the launch are run once in config-only mode to learn theirs.
  bool ProgramMode = false;
  CapturedLaunch Original;
  CaptureOptions Capture;
  /// The kernel's integer arguments and buffer sizes (elements), by name,
  /// for the cuBLAS reference of a GEMM-like kernel.
  llvm::StringMap<int64_t> IntArgs, BufferElements;
  /// Every GPU the probe found (one measurement worker each).
  std::vector<int> Devices;
  /// Program mode: the kernel's model, built once for the replay job and
  /// the cuBLAS reference.
  std::optional<KernelModel> Model;
  /// What the measurements are made on, for the tuning database.
  TuningGpu Gpu;
  /// Tests only: measurements replayed from a file (MeasurementReplay).
  std::shared_ptr<const MeasurementReplay> Replay;
};

// The tuning database in a tune (TuneRecording.cpp).

/// The GPU of a probe as the database keys it: the one of \p Ordinal (the
/// first --gpus), else the first.
TuningGpu tuningGpuOf(const GpuProbeResult &Gpus, const Toolchain &TC,
                      int Ordinal);

/// The problem signature of a kernel's measurements.
std::string harnessSignature(const Harness &H);

/// One kernel's measurements in the tuning database: the key without the
/// pipeline. Null Db: nothing is recorded or reused.
struct KernelRecording {
  TuningDatabase *Db = nullptr;
  TuningKey Base;
  std::string KernelName, SourceFile;

  /// The stored measurement of \p Pipeline on this key, if any.
  std::optional<TuningRecord> stored(llvm::StringRef Pipeline,
                                     TuneResult &Result) const;
  /// Store one measured variant (\p CompileError: it did not compile);
  /// skipped variants (--time) are not stored.
  void record(llvm::StringRef Pipeline, const Measurement &M,
              llvm::StringRef CompileError, TuneResult &Result) const;
};

KernelRecording startRecording(const TuneOptions &Opts, const Harness &H,
                               clang::ASTContext &Ctx, const KernelInfo &K,
                               const SourceInput &Input);

/// The recording of one host region of the region phase (RegionTuning.cpp):
/// keyed by regionHash (KernelHash.h) and the sizes of the replayed
/// variables; recorded only (a region is not a kernel `apply` rewrites).
KernelRecording startRegionRecording(const TuneOptions &Opts, const Harness &H,
                                     clang::ASTContext &Ctx,
                                     clang::SourceRange Region,
                                     llvm::ArrayRef<KernelInfo> Kernels,
                                     const llvm::json::Array &Args,
                                     llvm::StringRef Label,
                                     const SourceInput &Input);

/// A stored measurement as the worker would have returned it.
Measurement measurementOf(const TuningRecord &R);

/// The GPU a dry run's rows are keyed by: none ("none (dry run)", 0 SMs,
/// driver "none"), the toolkit's version as measurements have it.
TuningGpu dryRunGpu(const Toolchain &TC);

/// `tune --dry-run --db`: record kernel \p K's candidates (\p Candidates,
/// those of \p K) as rows with the verdict "not-measured", timings 0, keyed
/// by dryRunGpu and \p Signature (docs/cluster-tuning.md). Nothing was
/// measured and no row says otherwise; a candidate already recorded on the
/// same key is not recorded again, so a shard run twice adds nothing.
void recordDryRun(const TuneOptions &Opts, const Toolchain &TC,
                  clang::ASTContext &Ctx, const KernelInfo &K,
                  llvm::StringRef Signature,
                  llvm::ArrayRef<CandidateRecord> Candidates,
                  const SourceInput &Input, TuneResult &Result);

/// The input's precompiled #include prelude, built the first time a parse
/// needs it (a dry run's rewrites may need none) and then shared by every
/// thread, and in a dry run by every kernel of the file.
class SharedPreamble {
public:
  SharedPreamble(const Toolchain &TC, const SourceInput &Input)
      : TC(TC), Input(Input) {}
  /// Null when the file has no prelude worth precompiling.
  std::shared_ptr<const ParsePreamble> get() {
    std::call_once(Built, [&] {
      Preamble = ParsePreamble::build(TC, Input, CudaSide::Host);
    });
    return Preamble;
  }

private:
  const Toolchain &TC;
  SourceInput Input;
  std::once_flag Built;
  std::shared_ptr<const ParsePreamble> Preamble;
};

struct CandidateSet {
  std::vector<VariantSource> Variants;
  std::vector<bool> NeedLaunch;
  /// The input's precompiled #include prelude (null if none), for the
  /// variants' later parses.
  std::shared_ptr<const ParsePreamble> Preamble;
};

/// The candidates for kernel \p K: every legal pipeline of the candidate
/// space rewritten (in parallel; identical rewrites once), up to the
/// budget. Index 0 of the result is the original. Illegal candidates are
/// recorded in \p Result; \p NeedLaunch says which variants change the
/// launch (program mode runs their own program to learn it). \p Preamble,
/// when given, is \p Input's, shared with other kernels' calls.
CandidateSet generateVariants(const Toolchain &TC, const SourceInput &Input,
                              ParsedSource &Parsed, const KernelInfo &K,
                              const Harness &H, const TuneOptions &Opts,
                              TuneResult &Result,
                              SharedPreamble *Preamble = nullptr);

/// Without measuring: per kernel, the legal candidate that keeps every
/// floating-point operation and that Opts.Ranker (not null) ranks first,
/// applied when it predicts it faster than the original
/// (PredictedRewrite.cpp). \p Why is the result's NotMeasuredReason.
llvm::Expected<TuneResult> rewritePredicted(const Toolchain &TC,
                                            const SourceInput &Input,
                                            const TuneOptions &Opts,
                                            llvm::StringRef Why);

/// The launch probe (docs/tuning.md): launch-changing variants
/// whose host code differs from the original's only inside the kernel's
/// launch statements get their launch from one config-mode run of the
/// original program. Off when CUDA_OPT_NO_LAUNCH_PROBE is set. Returns which
/// variants got their launch.
std::vector<bool> probeVariantLaunches(
    const Toolchain &TC, const SourceInput &Input, ParsedSource &Parsed,
    const KernelInfo &K, const Harness &H, std::vector<VariantSource> &Vs,
    const std::vector<bool> &Need, const ParsePreamble *Preamble);

/// Learn the launch of each launch-changing variant by running its own
/// program in config-only mode. Returns per variant "" or why it failed.
std::vector<std::string>
captureVariantLaunches(const Toolchain &TC, const SourceInput &Input,
                       llvm::StringRef Kernel, const Harness &H,
                       std::vector<VariantSource> &Vs,
                       const std::vector<bool> &Need, const TuneOptions &Opts,
                       const ParsePreamble *Preamble);

/// The variant tune keeps among \p Ms (index 0 is the original): of those
/// \p Usable allows that beat the original's median by more than the larger
/// p10-p90 spread of the two, the one with the lowest median; 0 when none.
/// (Each variant against the best so far let a noisy early variant hide
/// faster ones; the original's spread alone let a noisy original hide
/// variants several times faster.)
size_t chooseVariant(llvm::ArrayRef<Measurement> Ms,
                     llvm::function_ref<bool(size_t)> Usable);

/// The region phase of program mode (RegionTuning.cpp): each host region
/// where a region rewrite applies (fuse-launches, temporal-block, a library
/// route) is measured as one unit against the original region, a route of
/// a launch also against the kernel's in-place rewrites; the fastest
/// verified rewrite is kept. Returns the text to continue from; outcomes go
/// to \p Result. With --dry-run, only lists the rewrites as candidates.
/// \p InitialParse, when given, is a parse of \p Input's text (borrowed, read
/// only), used instead of parsing it again. CUDA_OPT_NO_REGIONS=1 skips it.
llvm::Expected<std::string> tuneRegions(const Toolchain &TC,
                                        const SourceInput &Input,
                                        const Harness &H,
                                        const TuneOptions &Opts,
                                        TuneResult &Result,
                                        ParsedSource *InitialParse = nullptr);

} // namespace tuner
} // namespace cuda_opt

#endif // CUDA_OPT_LIB_SEARCH_TUNERINTERNAL_H
