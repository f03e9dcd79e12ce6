//===- Stats.h - Summaries of repeated timings ----------------------------===//
//
// Part of cuda-opt's runtime.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_MEASURE_STATS_H
#define CUDA_OPT_RUNTIME_MEASURE_STATS_H

#include <algorithm>
#include <vector>

namespace co_runtime {

struct TimingStats {
  double MedianMs = 0, MinMs = 0, MaxMs = 0, P10Ms = 0, P90Ms = 0;
  int Runs = 0;
};

inline TimingStats summarize(std::vector<double> Ms) {
  TimingStats S;
  if (Ms.empty())
    return S;
  std::sort(Ms.begin(), Ms.end());
  auto Q = [&](double F) {
    double Pos = F * (Ms.size() - 1);
    size_t Lo = static_cast<size_t>(Pos);
    size_t Hi = std::min(Lo + 1, Ms.size() - 1);
    return Ms[Lo] + (Ms[Hi] - Ms[Lo]) * (Pos - Lo);
  };
  S.MedianMs = Q(0.5);
  S.P10Ms = Q(0.1);
  S.P90Ms = Q(0.9);
  S.MinMs = Ms.front();
  S.MaxMs = Ms.back();
  S.Runs = static_cast<int>(Ms.size());
  return S;
}

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_MEASURE_STATS_H
