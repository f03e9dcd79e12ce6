//===- Sm90Kernel9.cu - instances of configuration 9 -----------*- CUDA -*-===//
//
// One file per configuration so the build compiles them in parallel.
//
//===----------------------------------------------------------------------===//

#include "Sm90Launch.cuh"

namespace cudaopt::gemm {

cudaError_t launchSm90Config9(const cudaoptGemmProblem &P,
                              const cudaoptGemmPlan &Plan, void *Workspace,
                              size_t WorkspaceBytes, cudaStream_t Stream) {
  return launchSm90Config<128, 192, 2, 4>(P, Plan, Workspace, WorkspaceBytes,
                                          Stream);
}

int maxActiveClustersSm90Config9(int ClusterSize) {
  return maxActiveClustersSm90<128, 192, 2, 4>(ClusterSize);
}

} // namespace cudaopt::gemm
