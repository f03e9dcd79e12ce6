//===- Sm90Kernel13.cu - instances of configuration 13 ----------*- CUDA -*-===//
//
// One file per configuration so the build compiles them in parallel. A
// swapped narrow configuration (Sm90Configs.h): B K-major only.
//
//===----------------------------------------------------------------------===//

#include "Sm90Launch.cuh"

namespace cudaopt::gemm {

cudaError_t launchSm90Config13(const cudaoptGemmProblem &P,
                               const cudaoptGemmPlan &Plan, void *Workspace,
                               size_t WorkspaceBytes, cudaStream_t Stream) {
  return launchSm90SwapConfig<128, 32, 1, 11>(P, Plan, Workspace, WorkspaceBytes,
                                           Stream);
}

int maxActiveClustersSm90Config13(int ClusterSize) {
  return maxActiveClustersSm90<128, 32, 1, 11>(ClusterSize);
}

} // namespace cudaopt::gemm
