//===- ModelReplay.cpp - the cost model's first plan, without a GPU -------===//
//
// Reads "M N K" lines on stdin and prints, per line, the plan the cost model
// ranks first (fp16, B col-major, beta = 0, 132 SMs) in gemm-bench's plan
// name form. Without a GPU the cluster occupancy query fails and the model
// assumes ~90% of the SMs' worth of clusters fit. model_regret.py replays
// it against a benchmark run's measured candidates.
//
//===----------------------------------------------------------------------===//

#include "Model.h"

#include <cstdio>

using namespace cudaopt::gemm;

int main() {
  int M, N, K;
  while (std::scanf("%d %d %d", &M, &N, &K) == 3) {
    cudaoptGemmProblem P{};
    P.M = M;
    P.N = N;
    P.K = K;
    cudaoptGemmPlan Plan;
    if (rankPlans(P, 132, &Plan, 1) < 1) {
      std::printf("none\n");
      continue;
    }
    std::printf("%s/g%d/r%d/k%d%s%s\n", kernelInfo(Plan.Kernel)->Name,
                Plan.Group, Plan.RasterN, Plan.Splits, Plan.DualAcc ? "/d" : "",
                Plan.SplitCluster && Plan.Splits > 1 ? "/c" : "");
  }
  return 0;
}
