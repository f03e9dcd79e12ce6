//===- Sm90Kernel5.cu - instances of configuration 5 -----------*- CUDA -*-===//
//
// One file per configuration so the build compiles them in parallel.
//
//===----------------------------------------------------------------------===//

#include "Sm90Launch.cuh"

namespace cudaopt::gemm {

cudaError_t launchSm90Config5(const cudaoptGemmProblem &P,
                              const cudaoptGemmPlan &Plan, void *Workspace,
                              size_t WorkspaceBytes, cudaStream_t Stream) {
  return launchSm90Config<128, 64, 2, 8>(P, Plan, Workspace, WorkspaceBytes,
                                         Stream);
}

int maxActiveClustersSm90Config5(int ClusterSize) {
  return maxActiveClustersSm90<128, 64, 2, 8>(ClusterSize);
}

} // namespace cudaopt::gemm
