//===- TuningPolicy.h - Which candidates tune measures first -*- C++ -*-===//
//
// Part of cuda-opt. The learned policy that orders the tuner's candidate
// pipelines for a kernel: a k-nearest-neighbour regression over the kernel
// model's feature vector (KernelModel::features), trained on the speedups
// measured by earlier tunes (bench/policy/train.py writes the training set
// into TuningPolicyData.inc; docs/policy.md). Within a budget it measures
// the predicted winners first, interleaved with the round-robin order so a
// wrong prediction costs at most every other slot.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SEARCH_TUNINGPOLICY_H
#define CUDA_OPT_SEARCH_TUNINGPOLICY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cuda_opt {

using KernelFeatures = std::vector<std::pair<std::string, double>>;

class TuningPolicy {
public:
  /// The policy compiled into this build.
  static const TuningPolicy &learned();

  /// Predicted speedup of \p Pipeline on a kernel with \p Features: the
  /// similarity-weighted geometric mean over the nearest training kernels
  /// that measured it; std::nullopt when none did.
  std::optional<double> predictSpeedup(const KernelFeatures &Features,
                                       llvm::StringRef Pipeline) const;

  /// The order in which to measure \p Pipelines (given in round-robin
  /// order), as a permutation of their indexes.
  std::vector<size_t> rank(const KernelFeatures &Features,
                           llvm::ArrayRef<std::string> Pipelines) const;

  /// "learned k-NN, training set h200-2026-11-30 (N kernels)".
  std::string describe() const;

private:
  TuningPolicy() = default;
};

/// A pipeline's passes without their parameters: "coarsen{factor=8}" and
/// "coarsen{factor=2}" are one family (train.py's family()).
std::string pipelineFamily(llvm::StringRef Pipeline);

/// The k-NN policy's order of candidates given each one's predicted score
/// (candidates in round-robin order): the best-scored first, interleaved with
/// the round-robin order (one greedy pick, one round-robin pick, skipping
/// what is already taken), so that a wrong prediction costs at most every
/// other slot.
std::vector<size_t> interleavedOrder(const std::vector<double> &Score);

} // namespace cuda_opt

#endif // CUDA_OPT_SEARCH_TUNINGPOLICY_H
