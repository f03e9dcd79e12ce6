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
#include "llvm/Support/JSON.h"

namespace cuda_opt {

struct TuneOptions {
  std::string KernelName;   ///< Empty: the spec's kernel, or the only one.
  std::string SpecPath;     ///< JSON tuning spec (spec mode).
  std::string Pipeline;     ///< Fixed pipeline used when nothing is measured.
  unsigned Budget = 64;     ///< Max candidate variants measured.
  std::string WorkerPath;   ///< cuda-opt-measure.
  std::string WorkDir;
  bool Format = true;
  bool ShowProgress = false;
};

/// One candidate in the report.
struct CandidateRecord {
  std::string Id;
  std::string Pipeline;
  std::string Status; ///< "fastest", "verified", "illegal", "rejected", ...
  std::string Detail;
  Measurement M;
};

struct TuneResult {
  std::string Text;          ///< The source to emit.
  bool Measured = false;
  std::string NotMeasuredReason;
  std::string Device;
  std::string Kernel;
  std::string ChosenPipeline;
  std::vector<CandidateRecord> Candidates;
  double BaselineMs = 0, BestMs = 0;
  unsigned VariantsMeasured = 0;
  int64_t MinBytes = 0, Flops = 0; ///< For GB/s and TFLOP/s in the report.
  double Seconds = 0;

  llvm::json::Value toJSON(llvm::StringRef File) const;
  std::string toMarkdown(llvm::StringRef File) const;
};

llvm::Expected<TuneResult> tune(const Toolchain &TC, const SourceInput &Input,
                                const TuneOptions &Opts);

/// Candidate pipelines for one kernel: each transform over a small grid of
/// its parameters, alone and after restrict-const, capped at \p Budget.
std::vector<std::string> candidatePipelines(unsigned Budget);

} // namespace cuda_opt

#endif // CUDA_OPT_SEARCH_TUNER_H
