//===- TemporalBlockSchedule.h - How temporal-block splits a time loop -*- C++ -*-===//
//
// Part of cuda-opt. temporal-block runs a time loop of T sweeps as launches
// of S sweeps each plus sweeps one at a time with the original kernel. The
// number of launches keeps the parity of the swaps (an even count when S
// is even), so that the result stays in the allocation that holds it. The
// transform and the tuner (which counts each kernel's launches per run of
// the region) use this one schedule and this one name for the new kernel.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TRANSFORMS_TEMPORALBLOCKSCHEDULE_H
#define CUDA_OPT_TRANSFORMS_TEMPORALBLOCKSCHEDULE_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include <cstdint>
#include <string>

namespace cuda_opt {

/// The name of the kernel temporal-block adds for \p K: K's name with
/// "_tb", then "_" until no function of the file has it.
std::string temporalBlockKernelName(clang::ASTContext &Ctx,
                                    const KernelInfo &K);

struct SweepSchedule {
  int64_t Launches = 0; ///< Launches of the S-sweep kernel.
  int64_t Singles = 0;  ///< Sweeps left to the original kernel.
};

/// The schedule of \p Trips sweeps with \p Sweeps per launch.
inline SweepSchedule temporalBlockSchedule(int64_t Trips, int64_t Sweeps) {
  SweepSchedule S;
  if (Trips <= 0 || Sweeps <= 0)
    return S;
  S.Launches = Trips / Sweeps;
  if (Sweeps % 2 == 0 && S.Launches % 2 == 1)
    --S.Launches;
  S.Singles = Trips - S.Launches * Sweeps;
  return S;
}

} // namespace cuda_opt

#endif // CUDA_OPT_TRANSFORMS_TEMPORALBLOCKSCHEDULE_H
