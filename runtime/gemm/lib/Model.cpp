//===- Model.cpp - cost model ranking the GEMM kernel family --------------===//
//
// A roofline with wave quantisation: each CTA runs ceil(units / SMs) units
// back to back; a unit costs its share of K at the configuration's assumed
// tensor-core efficiency plus an epilogue that streams the tile out. Split-K
// adds the fp32 partial-sum traffic. It only has to order candidates well
// enough that measuring the first few finds the best; the tuner measures.
//
//===----------------------------------------------------------------------===//

#include "Model.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace cudaopt::gemm {
namespace {

constexpr double PeakFlops = 989e12; // dense fp16/bf16, datasheet
constexpr double HbmBytesPerSec = 3.3e12;
constexpr double LaunchSeconds = 3e-6;
constexpr int SplitChoices[] = {1, 2, 3, 4, 6, 8, 12, 16};

long long ceilDiv(long long A, long long B) { return (A + B - 1) / B; }

} // namespace

double modelSeconds(const cudaoptGemmProblem &P, const cudaoptGemmPlan &Plan,
                    int Sms) {
  const KernelInfo *K = kernelInfo(Plan.Kernel);
  if (!K)
    return 1e9;
  long long Tiles = ceilDiv(P.M, K->BM) * ceilDiv(P.N, K->BN);
  long long KBlocks = ceilDiv(P.K, 64);
  long long Splits = std::min<long long>(std::max(Plan.Splits, 1), KBlocks);
  long long PerSplit = ceilDiv(KBlocks, Splits);
  Splits = ceilDiv(KBlocks, PerSplit);
  long long Units = Tiles * Splits;
  long long Waves = ceilDiv(Units, Sms);
  double SmFlops = PeakFlops / 132.0 * K->Efficiency;
  double SmBytes = HbmBytesPerSec / Sms;
  double Main = 2.0 * K->BM * K->BN * 64.0 * PerSplit / SmFlops;
  double OutBytes = 2.0 * K->BM * K->BN * (P.Beta != 0.0f ? 2 : 1);
  if (Splits > 1)
    OutBytes += 3.0 * 4.0 * K->BM * K->BN; // atomics + last split's reads
  double Epilogue = OutBytes / SmBytes + 0.5e-6;
  // The first K block of a CTA's first unit waits for a full load.
  double Fill = (K->BM + K->BN) * 64.0 * 2 / SmBytes + 1e-6;
  double Compute = Waves * (Main + Epilogue) + Fill + LaunchSeconds;
  double Bytes = 2.0 * (double(P.M) * P.K + double(P.N) * P.K +
                        double(P.M) * P.N);
  double Memory = Bytes / HbmBytesPerSec + LaunchSeconds;
  return std::max(Compute, Memory);
}

int rankPlans(const cudaoptGemmProblem &P, int Sms, cudaoptGemmPlan *Plans,
              int MaxPlans) {
  struct Scored {
    double Seconds;
    cudaoptGemmPlan Plan;
  };
  std::vector<Scored> All;
  long long KBlocks = ceilDiv(P.K, 64);
  for (int Id = 0; Id < numKernels(); ++Id) {
    const KernelInfo *K = kernelInfo(Id);
    long long Tiles = ceilDiv(P.M, K->BM) * ceilDiv(P.N, K->BN);
    for (int Splits : SplitChoices) {
      if (Splits > 1 && (Splits > KBlocks / 2 || Tiles >= Sms))
        continue;
      cudaoptGemmPlan Plan{Id, 8, 0, Splits};
      All.push_back({modelSeconds(P, Plan, Sms), Plan});
    }
  }
  std::stable_sort(All.begin(), All.end(), [](const Scored &A, const Scored &B) {
    return A.Seconds < B.Seconds;
  });
  int N = std::min<int>(MaxPlans, All.size());
  for (int I = 0; I < N; ++I)
    Plans[I] = All[I].Plan;
  return N;
}

} // namespace cudaopt::gemm
