//===- Sm90Kernel1.cu - instances of configuration 1 -----------*- CUDA -*-===//
//
// One file per configuration so the build compiles them in parallel.
//
//===----------------------------------------------------------------------===//

#include "Sm90Launch.cuh"

namespace cudaopt::gemm {

cudaError_t launchSm90Config1(const cudaoptGemmProblem &P,
                              const cudaoptGemmPlan &Plan, void *Workspace,
                              size_t WorkspaceBytes, cudaStream_t Stream) {
  return launchSm90Config<256, 128, 2, 4>(P, Plan, Workspace, WorkspaceBytes,
                                          Stream);
}

int maxActiveClustersSm90Config1(int ClusterSize) {
  return maxActiveClustersSm90<256, 128, 2, 4>(ClusterSize);
}

} // namespace cudaopt::gemm
