//===- Sm90Kernel12.cu - instances of configuration 12 ----------*- CUDA -*-===//
//
// One file per configuration so the build compiles them in parallel. A
// swapped narrow configuration (Sm90Configs.h): B K-major only.
//
//===----------------------------------------------------------------------===//

#include "Sm90Launch.cuh"

namespace cudaopt::gemm {

cudaError_t launchSm90Config12(const cudaoptGemmProblem &P,
                               const cudaoptGemmPlan &Plan, void *Workspace,
                               size_t WorkspaceBytes, cudaStream_t Stream) {
  return launchSm90SwapConfig<64, 16, 1, 16>(P, Plan, Workspace, WorkspaceBytes,
                                           Stream);
}

int maxActiveClustersSm90Config12(int ClusterSize) {
  return maxActiveClustersSm90<64, 16, 1, 16>(ClusterSize);
}

} // namespace cudaopt::gemm
