//===- Timing.h - Time the verified variants --------------------*- C++ -*-===//
//
// Part of cuda-opt's runtime: the worker's timing phase. Every verified
// variant runs interleaved with the baseline, one launch per round each,
// with the L2 flushed and the GPU kept busy across the launch's host-side
// cost before each, timed with CUDA events (median of the job's runs after
// its warm-up rounds); cuBLAS on the same problem, if the job names one,
// in the same rounds. Only this phase holds the GPU lock exclusively.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_MEASURE_TIMING_H
#define CUDA_OPT_RUNTIME_MEASURE_TIMING_H

#include "Job.h"

namespace co_runtime {

class WorkerContext;

/// Times the job's verified variants (and its cuBLAS reference) into their
/// Times. Ends the "timing-setup" phase before it takes the GPU lock
/// exclusively. Returns the bytes of the L2 flush (0 without one).
size_t timeVariants(WorkerContext &Ctx, Job &Jb);

/// Writes the result's "variants" (verdict, timing summary, speedup over
/// the baseline) and "reference".
void recordTimings(WorkerContext &Ctx, const Job &Jb);

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_MEASURE_TIMING_H
