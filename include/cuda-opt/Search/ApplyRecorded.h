//===- ApplyRecorded.h - Re-apply the tuning database's choices -*- C++ -*-===//
//
// Part of cuda-opt. What `cuda-opt apply` and the clang plugin (with
// `-fplugin-arg-cudaopt-db=DB`) do without a GPU: for each kernel of a file
// whose AST hash the tuning database knows, run the best verified recorded
// pipeline (RecordedChoice.h) through the pass pipeline; kernels with
// nothing usable recorded, or whose recorded pipeline no longer applies,
// stay as they are, and the result says why.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SEARCH_APPLYRECORDED_H
#define CUDA_OPT_SEARCH_APPLYRECORDED_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Frontend/CudaToolchain.h"
#include "cuda-opt/Frontend/SourceParser.h"
#include "cuda-opt/Search/TuningDatabase.h"
#include "cuda-opt/Support/FpModel.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace cuda_opt {

struct ApplyOptions {
  /// Only this kernel; empty: every kernel of the file.
  std::string KernelName;
  /// The problem signature to prefer for every kernel (--signature), or
  /// for one kernel only (--spec): SpecSignature, when set, is asked with
  /// the input's parse for that kernel and its signature (the parse that
  /// hashes the kernels, not one of its own); empty: the nearest recorded
  /// one.
  std::string Signature;
  std::function<llvm::Expected<std::pair<std::string, std::string>>(
      clang::ASTContext &, const std::vector<KernelInfo> &)>
      SpecSignature;
  /// Only rows measured on this GPU model; empty: any.
  std::string GpuModel;
  /// Rows recorded under this or a stricter model are usable; the passes
  /// run under it.
  FpModel Model = FpModel::Reassoc;
  /// clang-format the edited ranges.
  bool Format = true;
};

/// What happened to one kernel.
struct AppliedKernel {
  std::string Name, Hash;
  /// The recorded pipeline run on it; empty when it was left unchanged.
  std::string Pipeline;
  /// Why it was left unchanged (nothing recorded, no variant beat the
  /// original, the pipeline no longer applies), when it was.
  std::string Why;
  /// The recorded speedup over the original (0 when the original's time
  /// was not recorded), the GPU and fp-model it was measured on, when.
  double Speedup = 0;
  std::string Gpu, FpModelName, MeasuredAt;
  /// The signature of the row used, when it is not the one asked for
  /// (AskedSignature).
  std::string NearestSignature, AskedSignature;
  /// The database holds a verified row for the kernel usable under the
  /// fp-model (its choice may still be the original).
  bool Recorded = false;
  /// The recorded pipeline failed to apply (a warning, not a plain note).
  bool Failed = false;
  /// The passes' notes.
  std::vector<std::string> Notes;
};

struct ApplyResult {
  /// The rewritten text (the input's when nothing applied).
  std::string Text;
  /// One `// cuda-opt apply: ...` line per applied kernel.
  std::string Header;
  std::vector<AppliedKernel> Kernels;
};

/// The recorded choices of \p Db applied to \p In. Fails only when the
/// input does not parse, KernelName names no kernel, or the database
/// cannot be read.
llvm::Expected<ApplyResult> applyRecordedChoices(const Toolchain &TC,
                                                 const SourceInput &In,
                                                 TuningDatabase &Db,
                                                 const ApplyOptions &Opts);

} // namespace cuda_opt

#endif // CUDA_OPT_SEARCH_APPLYRECORDED_H
