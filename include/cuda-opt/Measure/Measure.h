//===- Measure.h - Compile variants and measure them on the GPU -*- C++ -*-===//
//
// Part of cuda-opt. The LLVM-side half of measurement: compile each variant's
// source to a cubin (nvcc, in parallel, cached by content hash), then hand
// the cubins to the measurement worker (runtime/measure, a separate process
// per GPU) and read back verdicts and timings. A worker that faults is
// restarted without the faulting variant; one that outlives its deadline is
// killed and restarted without the variant it was running.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_MEASURE_MEASURE_H
#define CUDA_OPT_MEASURE_MEASURE_H

#include "cuda-opt/Frontend/CudaToolchain.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <array>
#include <functional>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

/// One candidate: its source and how to launch its kernel.
struct VariantSource {
  std::string Id;       ///< "original", "v3", ...
  std::string Pipeline; ///< The transforms that made it ("" for the input).
  std::string Text;     ///< Whole rewritten file.
  std::string Entry;    ///< Kernel symbol (mangled).
  std::array<int64_t, 3> Grid{1, 1, 1}, Block{1, 1, 1};
  int64_t Shmem = 0;
  /// A library call replaces the launch (runtime/measure/LibraryCall.h):
  /// the job's "library" object; nothing to compile.
  std::optional<llvm::json::Object> Library;
};

struct CompileOptions {
  std::string SourcePath; ///< Original file; its directory joins the -I list.
  std::vector<std::string> Flags; ///< -I/-D/-std flags of the file.
  std::string Arch = "sm_90";
  std::string CacheDir; ///< Empty: $XDG_CACHE_HOME/cuda-opt or ~/.cache/...
  unsigned Jobs = 0;    ///< Parallel compiles; 0 = hardware threads.
  /// Hash of the project headers the file includes, so an edited header
  /// invalidates cached cubins (see projectHeaderFingerprint).
  std::string DependencyFingerprint;
};

/// Compile \p V with NVRTC (Nvrtc.h); fails when NVRTC is not available,
/// rejects the file, or produces no code for V.Entry.
llvm::Expected<std::string> compileWithNvrtc(const Toolchain &TC,
                                             const VariantSource &V,
                                             const CompileOptions &Opts);

/// Compile every variant to a cubin (NVRTC, else nvcc); returns the cubin
/// paths in order, or "" with a message in \p Errors for variants neither
/// could build.
std::vector<std::string> compileVariants(const Toolchain &TC,
                                         const std::vector<VariantSource> &Vs,
                                         const CompileOptions &Opts,
                                         std::vector<std::string> &Errors);

/// Run the nvcc command line \p Args with its output in \p Log: "" when it
/// succeeds, else "nvcc failed: " and the start of the log.
std::string runNvcc(llvm::ArrayRef<llvm::StringRef> Args, llvm::StringRef Log);

/// Build each outlined region file (Capture/RegionCapture.h) into a shared
/// library under \p Dir with nvcc; returns the paths in order, or "" with
/// the reason in \p Errors.
std::vector<std::string>
compileRegionLibraries(const Toolchain &TC, const std::vector<std::string> &Texts,
                       const CompileOptions &Opts, llvm::StringRef Dir,
                       std::vector<std::string> &Errors);

struct Measurement {
  std::string Id;
  bool Verified = false;
  std::string Error;
  double MedianMs = 0, MinMs = 0, MaxMs = 0, P10Ms = 0, P90Ms = 0;
  int Runs = 0;
  double Speedup = 0; ///< Baseline median / this median.
  double MaxRelError = 0;
  /// How the outputs were checked: "bitwise", "fp64" (against the fp64
  /// shadow of the original), "tolerance" (against the original).
  std::string Check;
  /// With "fp64": the largest |output - fp64 reference| and its largest
  /// ratio to the original's own error.
  double Fp64Error = 0, Fp64ErrorRatio = 0;
  /// The baseline's entry: whether the fp64 shadow was used, and why not
  /// ("fp64 reference used; the original's max error 3.1e-06").
  std::string ShadowNote;
  /// Not measured because the time budget (--time) ran out first.
  bool Skipped = false;
  /// Racing: timed for a few rounds only, clearly slower than the original
  /// (its median is from those rounds).
  bool StoppedEarly = false;
  /// The original only: the replay did not reproduce the program's own
  /// launch (program mode), with the differences.
  std::string ReplayWarning;
};

struct MeasureOptions {
  std::string Worker; ///< Path of cuda-opt-measure.
  int Device = 0;
  /// With several GPUs: one worker per GPU, the variants split among them
  /// (each timed against the original on its own GPU). Empty: just Device.
  std::vector<int> Devices;
  std::vector<unsigned> Seeds = {1, 2, 3};
  int64_t Runs = 20;
  double RelTol = -1;
  /// --fp-model for the worker's checks (job "fp_model": "strict",
  /// "reassoc", "fast"); empty: the tolerance check against the baseline.
  std::string FpModel;
  /// The baseline promoted to double (job "shadow"; Fp64Shadow.h): the
  /// reference of float outputs under "reassoc".
  struct ShadowJob {
    std::string Module, Entry;
    int64_t Shmem = 0;
    std::vector<bool> Promote;
  };
  std::optional<ShadowJob> Shadow;
  /// With a shadow: the original's runs per seed on the same inputs (job
  /// "orig_runs", 1..16); its largest error against the shadow counts.
  int OrigRuns = 3;
  /// Outputs written in rows (lib/Analysis/RowOutputs.h), by argument
  /// index: the row length in elements (Length > 0), or the index of the
  /// scalar argument that holds it. Against the shadow they are also
  /// checked row by row (job arg "row_length" / "row_length_arg").
  struct RowLayout {
    int64_t Length = 0;
    int LengthArg = -1;
  };
  std::map<unsigned, RowLayout> RowOutputs;
  unsigned DeadlineSeconds = 120; ///< Per worker process.
  /// The tuning's time budget (--time): variants not verified by then are
  /// skipped (the worker still times those it verified).
  std::optional<std::chrono::steady_clock::time_point> TimeBudgetEnd;
  /// Stop timing variants that are clearly slower after a few rounds (job
  /// "race"; runtime/measure/Worker.cpp).
  bool Race = false;
  std::string WorkDir;
  /// If set, the workers' own phase times ("setup", "verify", "timing",
  /// ...; result "phase_seconds") are added to it.
  std::map<std::string, double> *WorkerPhases = nullptr;
  /// Called after each worker process ends, with (done, total).
  std::function<void(unsigned, unsigned)> Progress;  /// A library baseline timed beside the variants (job "reference"), e.g.
  /// {"kind": "cublas_gemm", "m": .., "n": .., "k": .., "batch": ..,
  /// "dtype": "f32"}; see runtime/measure/CublasReference.h.
  std::optional<llvm::json::Object> Reference;
};

/// The library baseline's timing (Id = its kind), or its error.
struct ReferenceMeasurement {
  bool Measured = false;
  std::string Kind, Description, Error;
  double MedianMs = 0, P10Ms = 0, P90Ms = 0;
};

/// Measure \p Vs (index 0 is the baseline) with arguments \p Args (job
/// format of runtime/measure). The baseline failing is an error; variant
/// failures are reported in their Measurement.
llvm::Expected<std::vector<Measurement>>
measureVariants(const std::vector<VariantSource> &Vs,
                const std::vector<std::string> &Cubins, const llvm::json::Array &Args,
                const MeasureOptions &Opts, std::string &DeviceName,
                ReferenceMeasurement *Reference = nullptr);

/// A hash of the contents of every file the parse of \p Main pulled in apart
/// from the main file, the CUDA toolkit's and clang's headers and /usr.
std::string projectHeaderFingerprint(const clang::SourceManager &SM,
                                     const Toolchain &TC);

/// The worker binary next to cuda-opt, or "" if there is none.
std::string findMeasureWorker(llvm::StringRef ExecutablePath);

} // namespace cuda_opt

#endif // CUDA_OPT_MEASURE_MEASURE_H
