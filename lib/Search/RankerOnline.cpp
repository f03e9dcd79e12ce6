//===- RankerOnline.cpp - Re-ranking while a kernel is measured -----------===//
//
// Part of cuda-opt. OnlineRanking (Ranker.h): after each measured
// candidate, the residual (measured minus predicted log speedup) moves the
// remaining candidates that share passes with it, weighted by the Jaccard
// similarity of their pass sets and shrunk towards 0 (one prior
// observation's worth), so one surprising measurement moves its relatives
// part of the way and several move them further. Cheap (a pass over the
// remaining candidates per measurement) and deterministic.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Search/Ranker.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace llvm;

namespace cuda_opt {
namespace {

double jaccard(const std::vector<std::string> &A,
               const std::vector<std::string> &B) {
  size_t Common = 0;
  for (const std::string &S : A)
    Common += std::binary_search(B.begin(), B.end(), S);
  size_t Union = A.size() + B.size() - Common;
  return Union ? double(Common) / Union : 1.0;
}

} // namespace

OnlineRanking::OnlineRanking(const RankerModel &M,
                             const KernelFeatures &Features,
                             StringRef Signature,
                             ArrayRef<std::string> Pipelines)
    : Pipelines(Pipelines.begin(), Pipelines.end()),
      Correction(Pipelines.size(), 0.0), Taken(Pipelines.size(), false) {
  for (const std::string &P : Pipelines)
    Predicted.push_back(M.predictLog(Features, Signature, P));
}

double OnlineRanking::score(size_t I) const {
  // A pipeline with a pass the model never saw goes first: nothing says it
  // is bad (as the k-NN policy does).
  if (!Predicted[I])
    return std::numeric_limits<double>::infinity();
  return *Predicted[I] + Correction[I];
}

std::vector<size_t> OnlineRanking::remainingOrder() const {
  std::vector<size_t> Out;
  for (size_t I = 0; I < Pipelines.size(); ++I)
    if (!Taken[I])
      Out.push_back(I);
  std::stable_sort(Out.begin(), Out.end(),
                   [&](size_t A, size_t B) { return score(A) > score(B); });
  return Out;
}

std::optional<size_t> OnlineRanking::next() {
  std::vector<size_t> R = remainingOrder();
  if (R.empty())
    return std::nullopt;
  Taken[R.front()] = true;
  return R.front();
}

void OnlineRanking::take(size_t I) {
  if (I < Taken.size())
    Taken[I] = true;
}

void OnlineRanking::observeFailure(size_t I) {
  if (I >= Pipelines.size() || !Predicted[I]) {
    take(I);
    return;
  }
  // The race's cutoff (a variant whose fastest run is over 1.25x the
  // original's median stops being timed): a failed variant is no better
  // than one the race stops.
  const double RaceCutoff = -std::log(1.25);
  observe(I, std::min(RaceCutoff, *Predicted[I]));
}

void OnlineRanking::observe(size_t I, double LogSpeedup) {
  if (I >= Pipelines.size() || !Predicted[I]) {
    take(I);
    return;
  }
  Taken[I] = true;
  const std::vector<size_t> Before = remainingOrder();
  Residuals.push_back({I, LogSpeedup - *Predicted[I]});
  std::vector<std::vector<std::string>> Passes;
  for (const auto &[M, R] : Residuals)
    Passes.push_back(rankerPassesOf(Pipelines[M]));
  for (size_t C : Before) {
    const std::vector<std::string> Own = rankerPassesOf(Pipelines[C]);
    double Num = 0, Den = 1.0;
    for (size_t K = 0; K < Residuals.size(); ++K) {
      double W = jaccard(Own, Passes[K]);
      Num += W * Residuals[K].second;
      Den += W;
    }
    Correction[C] = Num / Den;
  }
  if (remainingOrder() != Before)
    ++Reorders;
}

} // namespace cuda_opt
