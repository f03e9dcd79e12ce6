//===- Sm90Kernel10.cu - instances of configuration 10 ---------*- CUDA -*-===//
//
// One file per configuration so the build compiles them in parallel.
//
//===----------------------------------------------------------------------===//

#include "Sm90Launch.cuh"

namespace cudaopt::gemm {

cudaError_t launchSm90Config10(const cudaoptGemmProblem &P,
                               const cudaoptGemmPlan &Plan, void *Workspace,
                               size_t WorkspaceBytes, cudaStream_t Stream) {
  return launchSm90Config<64, 192, 1, 6>(P, Plan, Workspace, WorkspaceBytes,
                                         Stream);
}

int maxActiveClustersSm90Config10(int ClusterSize) {
  return maxActiveClustersSm90<64, 192, 1, 6>(ClusterSize);
}

} // namespace cudaopt::gemm
