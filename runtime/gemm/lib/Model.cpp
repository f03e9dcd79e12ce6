//===- Model.cpp - cost model ranking the GEMM kernel family --------------===//
//
// A roofline with wave quantisation: each CTA runs ceil(units / SMs) units
// back to back; a unit costs its share of K at the configuration's assumed
// tensor-core efficiency plus part of an epilogue that streams the tile
// out. Memory time counts each operand once, at the HBM rate or at what the
// active SMs can pull (one SM streams ~45 GB/s through TMA: measured on
// 64x4096x4096 with 32 tiles). Split-K adds the fp32 partial-tile traffic. It
// only has to order candidates well enough that measuring the first few finds
// the best; the tuner measures.
//
//===----------------------------------------------------------------------===//

#include "Model.h"
#include "Sm90Params.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace cudaopt::gemm {
namespace {

constexpr double PeakFlops = 989e12; // dense fp16/bf16, datasheet
constexpr double HbmBytesPerSec = 3.3e12;
constexpr double LaunchSeconds = 2e-6;
constexpr double SmLoadBytesPerSec = 45e9; // one SM's TMA stream (measured)
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
  long long Active = std::min<long long>(Units, Sms);
  double SmFlops = PeakFlops / 132.0 * K->Efficiency;
  // Compute: whole waves of units; the epilogue overlaps the next unit's
  // loads but not its math.
  double Main = 2.0 * K->BM * K->BN * 64.0 * PerSplit / SmFlops;
  double Epilogue = 2.0 * K->BM * K->BN / (HbmBytesPerSec / Sms) * 0.5;
  double Fill = 1.5e-6; // first TMA round trip of a CTA
  double Compute = Waves * (Main + Epilogue) + Fill;
  // Memory: each operand once from HBM (L2 catches the re-reads), pulled
  // by the active SMs at most SmLoadBytesPerSec each.
  double Bytes = 2.0 * (double(P.M) * P.K + double(P.N) * P.K +
                        double(P.M) * P.N * (P.Beta != 0.0f ? 2 : 1));
  double Rate = std::min(HbmBytesPerSec, Active * SmLoadBytesPerSec);
  double Memory = Bytes / Rate + Fill;
  // Overlap is imperfect; the smaller term also breaks ties between plans
  // that are equally memory-bound (less wasted tile work wins).
  double Seconds = std::max(Compute, Memory) + 0.1 * std::min(Compute, Memory) +
                   LaunchSeconds;
  if (Splits > 1) // partial tiles written and read back once, one more sync
    Seconds += 2.0 * Splits * 4.0 * P.M * P.N / HbmBytesPerSec + 1e-6;
  return Seconds;
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
      if (Splits > 1 && (Splits > KBlocks / 2 || Tiles >= Sms ||
                         !splitKAllowed(K->BM, K->BN)))
        continue;
      cudaoptGemmPlan Plan{Id, 8, 0, Splits};
      All.push_back({modelSeconds(P, Plan, Sms), Plan});
    }
  }
  std::stable_sort(
      All.begin(), All.end(),
      [](const Scored &A, const Scored &B) { return A.Seconds < B.Seconds; });
  int N = std::min<int>(MaxPlans, All.size());
  for (int I = 0; I < N; ++I)
    Plans[I] = All[I].Plan;
  return N;
}

} // namespace cudaopt::gemm
