//===- Registry.cpp - the table of compiled sm_90a configurations ---------===//

#include "Internal.h"
#include "Sm90Configs.h"

namespace cudaopt::gemm {

#define CUDAOPT_DECLARE(Id, BM, BN, NC, ST, EFF)                               \
  cudaError_t launchSm90Config##Id(const cudaoptGemmProblem &,                 \
                                   const cudaoptGemmPlan &, void *, size_t,    \
                                   cudaStream_t);                              \
  int maxActiveClustersSm90Config##Id(int);
CUDAOPT_GEMM_SM90_CONFIGS(CUDAOPT_DECLARE)
CUDAOPT_GEMM_SM90_WIDE_CONFIGS(CUDAOPT_DECLARE)
CUDAOPT_GEMM_SM90_SWAP_CONFIGS(CUDAOPT_DECLARE)
#undef CUDAOPT_DECLARE

namespace {
// clang-format off
#define CUDAOPT_ENTRY(Id, BM, BN, NC, ST, EFF)                                 \
  {Id, BM, BN, NC, ST, EFF, launchSm90Config##Id,                              \
   #BM "x" #BN "x64_c" #NC "_s" #ST, maxActiveClustersSm90Config##Id},
#define CUDAOPT_SWAP_ENTRY(Id, BM, BN, NC, ST, EFF)                            \
  {Id, BM, BN, NC, ST, EFF, launchSm90Config##Id,                              \
   "swap" #BM "x" #BN "x64_c" #NC "_s" #ST, maxActiveClustersSm90Config##Id},
// clang-format on
const KernelInfo Kernels[] = {
    CUDAOPT_GEMM_SM90_CONFIGS(CUDAOPT_ENTRY)
    // Not sm_90a tile configurations: BM x BN is the output tile of a CTA,
    // Consumers/Stages/Efficiency are unused (Model.cpp models them by
    // bandwidth and round trips).
    {MmaSync16KernelId, 16, 64, 0, 0, 0.0, launchMmaSync, "mma16x64_sync",
     nullptr},
    {MmaSync64KernelId, 64, 64, 0, 0, 0.0, launchMmaSync, "mma64x64_sync",
     nullptr},
    // Added after the mma.sync kernels, so every earlier id kept its meaning.
    CUDAOPT_GEMM_SM90_WIDE_CONFIGS(CUDAOPT_ENTRY)
    // The swapped narrow tiles, named "swap..." (C^T = B^T A^T).
    CUDAOPT_GEMM_SM90_SWAP_CONFIGS(CUDAOPT_SWAP_ENTRY)};
#undef CUDAOPT_ENTRY
#undef CUDAOPT_SWAP_ENTRY
} // namespace

static_assert(FirstSwapKernelId == FirstWideKernelId + 2 &&
                  sizeof(Kernels) / sizeof(Kernels[0]) == FirstSwapKernelId + 3,
              "ids: configurations 0-6, the mma.sync kernels, the wide tiles, "
              "the swapped narrow tiles");

int numKernels() { return sizeof(Kernels) / sizeof(Kernels[0]); }

const KernelInfo *kernelInfo(int Id) {
  if (Id < 0 || Id >= numKernels() || Kernels[Id].Id != Id)
    return nullptr;
  return &Kernels[Id];
}

} // namespace cudaopt::gemm
