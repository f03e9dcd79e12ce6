//===- Sm90Kernel3.cu - instances of configuration 3 -----------*- CUDA -*-===//
//
// One file per configuration so the build compiles them in parallel.
//
//===----------------------------------------------------------------------===//

#include "Sm90Launch.cuh"

namespace cudaopt::gemm {

cudaError_t launchSm90Config3(const cudaoptGemmProblem &P,
                              const cudaoptGemmPlan &Plan, void *Workspace,
                              size_t WorkspaceBytes, cudaStream_t Stream) {
  return launchSm90Config<64, 256, 1, 5>(P, Plan, Workspace, WorkspaceBytes,
                                         Stream);
}

int maxActiveClustersSm90Config3(int ClusterSize) {
  return maxActiveClustersSm90<64, 256, 1, 5>(ClusterSize);
}

} // namespace cudaopt::gemm
