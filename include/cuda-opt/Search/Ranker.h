//===- Ranker.h - The learned candidate ranker --------------------*- C++ -*-===//
//
// Part of cuda-opt. A small gradient-boosted tree model that scores a
// candidate pipeline on a kernel: features are the kernel model's features,
// the problem (sizes and launch shape from the problem signature) and the
// pipeline (which passes, their parameters, how many); trees are fitted with
// a pairwise logistic (RankNet) objective within each kernel plus a squared
// anchor on the log speedup, so scores rank and stay in log-speedup units
// (docs/policy.md). `cuda-opt train --db DB -o model.json` fits one from a
// tuning database; the model trained from the committed H200 rows is
// compiled in (RankerModelData.inc). While a kernel's candidates are
// measured, OnlineRanking re-ranks the rest from the residuals of what was
// just measured.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SEARCH_RANKER_H
#define CUDA_OPT_SEARCH_RANKER_H

#include "cuda-opt/Search/TuningPolicy.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

/// One measured candidate, as the ranker learns from it.
struct RankerSample {
  std::string Program;   ///< The unit left out in evaluation (source file).
  std::string Kernel;    ///< Pairs are formed within one kernel + problem.
  const KernelFeatures *Features = nullptr; ///< Owned by the training set.
  std::string Signature; ///< Problem signature ("" when unknown).
  std::string Pipeline;
  double LogSpeedup = 0;
};

/// How the trees are fitted (fixed; docs/policy.md says how they were
/// chosen).
struct RankerParams {
  unsigned Rounds = 200;
  unsigned Depth = 4;
  double LearningRate = 0.1;
  double MinLeafHessian = 1.0;
  /// Weight of the squared anchor on the log speedup beside the pairwise
  /// loss.
  double Anchor = 0.1;
};

class RankerModel {
public:
  static constexpr const char *Format = "cuda-opt-ranker";
  static constexpr int FormatVersion = 1;

  /// Fit on \p Samples (deterministic). \p Training names the data in the
  /// model file. Needs at least two kernels with two candidates each.
  static llvm::Expected<RankerModel> fit(llvm::ArrayRef<RankerSample> Samples,
                                         llvm::StringRef Training,
                                         const RankerParams &P = {});
  /// Read a model file's text; \p Origin names it in errors. A file of
  /// another format, version or feature set is refused.
  static llvm::Expected<RankerModel> parse(llvm::StringRef Text,
                                           llvm::StringRef Origin);
  static llvm::Expected<RankerModel> load(llvm::StringRef Path);
  /// The model compiled into this build (trained from the H200 rows).
  static const RankerModel &builtin();

  /// The model file's text (JSON, deterministic).
  std::string toJSON() const;

  /// Predicted log speedup; std::nullopt when the pipeline has a pass the
  /// model never saw.
  std::optional<double> predictLog(const KernelFeatures &Features,
                                   llvm::StringRef Signature,
                                   llvm::StringRef Pipeline) const;

  /// \p Pipelines (round-robin order) in the order to measure them, with no
  /// measurement yet: best predicted first, never-seen passes before all.
  std::vector<size_t> rank(const KernelFeatures &Features,
                           llvm::StringRef Signature,
                           llvm::ArrayRef<std::string> Pipelines) const;

  const std::string &training() const { return Training; }
  size_t numTrees() const { return Trees.size(); }
  std::string describe() const;

  struct Node {
    int Feature = -1; ///< -1: a leaf.
    double Threshold = 0;
    int Left = -1, Right = -1;
    double Value = 0;
  };

private:
  friend class RankerFitter;
  std::vector<std::string> FeatureNames;
  std::vector<std::vector<Node>> Trees;
  double Base = 0;
  std::string Training;
  RankerParams Params;
  std::vector<double> vectorOf(const KernelFeatures &Features,
                               llvm::StringRef Signature,
                               llvm::StringRef Pipeline, bool &Unknown) const;
};

/// Ranking one kernel's candidates while they are measured: next() is the
/// best remaining by prediction plus a correction from the residuals of
/// the candidates measured so far (a candidate sharing passes with a
/// measured one moves by that one's residual, weighted by their passes'
/// Jaccard similarity, shrunk towards 0).
class OnlineRanking {
public:
  OnlineRanking(const RankerModel &M, const KernelFeatures &Features,
                llvm::StringRef Signature, llvm::ArrayRef<std::string> Pipelines);
  /// The index of the next candidate to measure; std::nullopt when all are
  /// taken.
  std::optional<size_t> next();
  /// What candidate \p I measured (its log speedup); re-ranks the rest.
  void observe(size_t I, double LogSpeedup);
  /// Candidate \p I failed (did not compile, verify or finish): observed
  /// at the log speedup of the race's cutoff, log(1 / 1.25), or at its
  /// prediction when that is lower, so a failure never raises its
  /// relatives (docs/policy.md).
  void observeFailure(size_t I);
  /// Mark \p I as measured without re-ranking (a measurement that says
  /// nothing about its speed, e.g. one the time budget skipped).
  void take(size_t I);
  /// How many times a measurement changed the order of the remaining ones.
  unsigned reorders() const { return Reorders; }
  /// The current score of candidate \p I (prediction plus correction).
  double score(size_t I) const;

private:
  std::vector<std::string> Pipelines;
  std::vector<std::optional<double>> Predicted;
  std::vector<double> Correction;
  std::vector<std::pair<size_t, double>> Residuals;
  std::vector<bool> Taken;
  unsigned Reorders = 0;
  std::vector<size_t> remainingOrder() const;
};

/// The passes of a pipeline without parameters, sorted.
std::vector<std::string> rankerPassesOf(llvm::StringRef Pipeline);

/// A k-NN policy (TuningPolicy's computation) trained from samples: what
/// the leave-one-program-out evaluation compares the ranker with.
class KnnPolicy {
public:
  explicit KnnPolicy(llvm::ArrayRef<RankerSample> Samples);
  std::vector<size_t> rank(const KernelFeatures &Features,
                           llvm::ArrayRef<std::string> Pipelines) const;

private:
  std::vector<std::string> Names;
  std::vector<double> Scale;
  std::vector<std::vector<double>> Kernels;
  std::vector<std::map<std::string, double>> Outcomes;
};

/// Leave-one-program-out: for each program, fit on the others and rank each
/// of its kernels with a measured win (> 2 %).
struct RankerEvaluationRow {
  std::string Program, Kernel;
  double Best = 0; ///< Best measured speedup (x).
  size_t Candidates = 0;
  /// Share of the best log speedup found by the first k (1, 2, 4, 8, 16),
  /// per order: ranker (online), ranker (no online update), k-NN,
  /// round-robin, random (mean over permutations).
  std::map<std::string, std::vector<double>> Share;
};
struct RankerEvaluation {
  std::vector<unsigned> Ks = {1, 2, 4, 8, 16};
  std::vector<std::string> Orders = {"ranker", "ranker (no online)", "k-NN",
                                     "round-robin", "random"};
  /// Computed like Orders, but not in the committed table (markdown):
  /// `cuda-opt train --evaluate-lopo` prints them on the terminal. "ranker
  /// (tune's rounds)": what tune's --online-rounds=4 measures with a budget
  /// of k (Tuner.cpp: k >= 8 and more candidates than k: up to 4 rounds of
  /// at least 4, re-ranked between rounds; else the static order).
  std::vector<std::string> ExtraOrders = {"ranker (tune's rounds)"};
  std::vector<RankerEvaluationRow> Rows;
  unsigned Programs = 0;
  /// Mean share of each order at each k.
  std::vector<double> mean(llvm::StringRef Order) const;
  std::string markdown(llvm::StringRef Source) const;
};
llvm::Expected<RankerEvaluation>
evaluateRankerLopo(llvm::ArrayRef<RankerSample> Samples,
                   llvm::ArrayRef<std::string> RoundRobin,
                   const RankerParams &P = {},
                   const std::function<void(llvm::StringRef)> &Progress = {});

} // namespace cuda_opt

#endif // CUDA_OPT_SEARCH_RANKER_H
