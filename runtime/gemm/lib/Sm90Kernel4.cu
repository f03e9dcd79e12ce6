//===- Sm90Kernel4.cu - instances of configuration 4 -----------*- CUDA -*-===//
//
// One file per configuration so the build compiles them in parallel.
//
//===----------------------------------------------------------------------===//

#include "Sm90Launch.cuh"

namespace cudaopt::gemm {

cudaError_t launchSm90Config4(const cudaoptGemmProblem &P,
                              const cudaoptGemmPlan &Plan, void *Workspace,
                              size_t WorkspaceBytes, cudaStream_t Stream) {
  return launchSm90Config<64, 128, 1, 8>(P, Plan, Workspace, WorkspaceBytes,
                                         Stream);
}

int maxActiveClustersSm90Config4(int ClusterSize) {
  return maxActiveClustersSm90<64, 128, 1, 8>(ClusterSize);
}

} // namespace cudaopt::gemm
