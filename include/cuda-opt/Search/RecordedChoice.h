//===- RecordedChoice.h - The best recorded variant of a kernel -*- C++ -*-===//
//
// Part of cuda-opt. What `cuda-opt apply` and `cuda-opt db best` take from
// the tuning database for one kernel: among its rows, grouped by GPU model,
// problem signature and fp-model, the verified variant with the lowest
// median that beats the recorded original (or the original, when no
// variant does); the group of the asked-for signature when it has one,
// else the nearest signature (ProblemSignature.h).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SEARCH_RECORDEDCHOICE_H
#define CUDA_OPT_SEARCH_RECORDEDCHOICE_H

#include "cuda-opt/Search/TuningDatabase.h"
#include "cuda-opt/Support/FpModel.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>

namespace cuda_opt {

struct RecordedChoice {
  /// The chosen row; its pipeline is empty when no recorded variant beat
  /// the original.
  TuningRecord Best;
  /// The original's row in the same group, when recorded.
  std::optional<TuningRecord> Original;
  /// Original median over Best's (0 without the original).
  double Speedup = 0;
  /// Best's signature is the one asked for (always true when none was).
  bool ExactSignature = true;
  /// How many verified rows the group holds.
  unsigned VerifiedRows = 0;
};

struct ChoiceOptions {
  std::string Signature; ///< Empty: any (the group with the best speedup).
  std::string GpuModel;  ///< Empty: any GPU.
  /// Rows recorded under a weaker or equal model are usable.
  FpModel Model = FpModel::Reassoc;
};

/// The choice for one kernel among \p Rows (all of one kernel hash), or
/// none when no group has a verified row.
std::optional<RecordedChoice> chooseRecorded(llvm::ArrayRef<TuningRecord> Rows,
                                             const ChoiceOptions &Opts);

} // namespace cuda_opt

#endif // CUDA_OPT_SEARCH_RECORDEDCHOICE_H
