//===- TuningPolicy.cpp - Which candidates tune measures first -----------===//
//
// Part of cuda-opt. Mirrors Policy.predict/rank of bench/policy/train.py,
// which evaluates the same computation leave-one-program-out
// (bench/policy/evaluation.md); keep the two in step.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Search/TuningPolicy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

using namespace llvm;

namespace cuda_opt {
namespace {
#include "TuningPolicyData.inc"

constexpr size_t NumFeatures = std::size(PolicyFeatureNames);
constexpr size_t NumKernels = std::size(PolicyKernels);

/// The training kernels' feature order; a feature this build does not
/// compute counts as 0, as it does in training.
std::vector<double> vectorOf(const KernelFeatures &F) {
  std::vector<double> V(NumFeatures, 0.0);
  for (size_t I = 0; I < NumFeatures; ++I)
    for (const auto &[Name, Value] : F)
      if (Name == PolicyFeatureNames[I])
        V[I] = Value;
  return V;
}

/// The kernel's distance to every training kernel (features scaled by
/// their spread).
std::vector<double> distancesOf(const KernelFeatures &F) {
  const std::vector<double> V = vectorOf(F);
  std::vector<double> Out(NumKernels);
  for (size_t K = 0; K < NumKernels; ++K) {
    double Sum = 0;
    for (size_t I = 0; I < NumFeatures; ++I) {
      double D = (V[I] - PolicyKernels[K].Features[I]) / PolicyFeatureScale[I];
      Sum += D * D;
    }
    Out[K] = std::sqrt(Sum);
  }
  return Out;
}

/// Predicted log speedup, as train.py's Policy.predict: the exact pipeline
/// on the nearest kernels that measured it, else its family (each kernel's
/// mean over the family's pipelines), else nothing.
std::optional<double> predictLog(const std::vector<double> &Distance,
                                 StringRef Pipeline) {
  std::vector<std::pair<double, double>> Seen; // (distance, log speedup)
  for (const PolicyOutcomeRow &O : PolicyOutcomes)
    if (Pipeline == O.Pipeline)
      Seen.push_back({Distance[O.Kernel], O.LogSpeedup});
  if (Seen.empty()) {
    const std::string Family = pipelineFamily(Pipeline);
    std::vector<double> Sum(NumKernels, 0.0);
    std::vector<unsigned> Count(NumKernels, 0);
    for (const PolicyOutcomeRow &O : PolicyOutcomes)
      if (pipelineFamily(O.Pipeline) == Family) {
        Sum[O.Kernel] += O.LogSpeedup;
        ++Count[O.Kernel];
      }
    for (size_t K = 0; K < NumKernels; ++K)
      if (Count[K])
        Seen.push_back({Distance[K], Sum[K] / Count[K]});
  }
  if (Seen.empty())
    return std::nullopt;
  std::stable_sort(Seen.begin(), Seen.end(),
                   [](const auto &A, const auto &B) { return A.first < B.first; });
  Seen.resize(std::min<size_t>(Seen.size(), PolicyNeighbours));
  double Num = 0, Den = 0;
  for (const auto &[D, S] : Seen) {
    double W = 1.0 / (1.0 + D);
    Num += W * S;
    Den += W;
  }
  return Num / Den;
}

} // namespace

const TuningPolicy &TuningPolicy::learned() {
  static const TuningPolicy P;
  return P;
}

std::optional<double>
TuningPolicy::predictSpeedup(const KernelFeatures &Features,
                             StringRef Pipeline) const {
  std::optional<double> L = predictLog(distancesOf(Features), Pipeline);
  if (!L)
    return std::nullopt;
  return std::exp(*L);
}

std::vector<size_t> TuningPolicy::rank(const KernelFeatures &Features,
                                       ArrayRef<std::string> Pipelines) const {
  const std::vector<double> Distance = distancesOf(Features);
  // Greedy: best predicted first; a pipeline no training kernel measured
  // goes before all (nothing says it is bad, and the specialised passes
  // are where the large wins were); ties keep the round-robin order.
  std::vector<double> Score(Pipelines.size());
  for (size_t I = 0; I < Pipelines.size(); ++I) {
    std::optional<double> L = predictLog(Distance, Pipelines[I]);
    Score[I] = L ? *L : std::numeric_limits<double>::infinity();
  }
  return interleavedOrder(Score);
}

std::string pipelineFamily(StringRef Pipeline) {
  std::string Out;
  int Depth = 0;
  for (char C : Pipeline) {
    if (C == '{')
      ++Depth;
    else if (C == '}' && Depth > 0)
      --Depth;
    else if (Depth == 0)
      Out.push_back(C);
  }
  return Out;
}

std::vector<size_t> interleavedOrder(const std::vector<double> &Score) {
  std::vector<size_t> Greedy(Score.size());
  std::iota(Greedy.begin(), Greedy.end(), 0);
  std::stable_sort(Greedy.begin(), Greedy.end(),
                   [&](size_t A, size_t B) { return Score[A] > Score[B]; });
  std::vector<size_t> Out;
  std::vector<bool> Taken(Score.size(), false);
  for (size_t I = 0; I < Score.size(); ++I)
    for (size_t Pick : {Greedy[I], I})
      if (!Taken[Pick]) {
        Taken[Pick] = true;
        Out.push_back(Pick);
      }
  return Out;
}

std::string TuningPolicy::describe() const {
  return formatv("learned {0}-NN, training set {1} ({2} kernels)",
                 PolicyNeighbours, PolicyVersion, NumKernels)
      .str();
}

} // namespace cuda_opt
