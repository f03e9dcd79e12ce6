//===- Sm90Kernel6.cu - instances of configuration 6 -----------*- CUDA -*-===//
//
// One file per configuration so the build compiles them in parallel.
//
//===----------------------------------------------------------------------===//

#include "Sm90Launch.cuh"

namespace cudaopt::gemm {

cudaError_t launchSm90Config6(const cudaoptGemmProblem &P,
                              const cudaoptGemmPlan &Plan, void *Workspace,
                              size_t WorkspaceBytes, cudaStream_t Stream) {
  return launchSm90Config<64, 64, 1, 12>(P, Plan, Workspace, WorkspaceBytes,
                                         Stream);
}

int maxActiveClustersSm90Config6(int ClusterSize) {
  return maxActiveClustersSm90<64, 64, 1, 12>(ClusterSize);
}

} // namespace cudaopt::gemm
