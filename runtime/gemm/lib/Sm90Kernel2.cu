//===- Sm90Kernel2.cu - instances of configuration 2 -----------*- CUDA -*-===//
//
// One file per configuration so the build compiles them in parallel.
//
//===----------------------------------------------------------------------===//

#include "Sm90Launch.cuh"

namespace cudaopt::gemm {

cudaError_t launchSm90Config2(const cudaoptGemmProblem &P,
                              const cudaoptGemmPlan &Plan, void *Workspace,
                              size_t WorkspaceBytes, cudaStream_t Stream) {
  return launchSm90Config<128, 128, 2, 6>(P, Plan, Workspace, WorkspaceBytes,
                                          Stream);
}

int maxActiveClustersSm90Config2(int ClusterSize) {
  return maxActiveClustersSm90<128, 128, 2, 6>(ClusterSize);
}

} // namespace cudaopt::gemm
