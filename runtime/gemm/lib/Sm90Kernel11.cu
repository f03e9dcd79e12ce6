//===- Sm90Kernel11.cu - instances of configuration 11 ----------*- CUDA -*-===//
//
// One file per configuration so the build compiles them in parallel. A
// swapped narrow configuration (Sm90Configs.h): B K-major only.
//
//===----------------------------------------------------------------------===//

#include "Sm90Launch.cuh"

namespace cudaopt::gemm {

cudaError_t launchSm90Config11(const cudaoptGemmProblem &P,
                               const cudaoptGemmPlan &Plan, void *Workspace,
                               size_t WorkspaceBytes, cudaStream_t Stream) {
  return launchSm90SwapConfig<128, 16, 1, 12>(P, Plan, Workspace, WorkspaceBytes,
                                           Stream);
}

int maxActiveClustersSm90Config11(int ClusterSize) {
  return maxActiveClustersSm90<128, 16, 1, 12>(ClusterSize);
}

} // namespace cudaopt::gemm
