//===- Verify.h - Check every variant against the baseline ------*- C++ -*-===//
//
// Part of cuda-opt's runtime: the worker's verification phase. For each seed
// every buffer gets its initial contents (generated, or captured and redrawn
// within its range), the baseline runs and its outputs are kept, then every
// variant runs on identical inputs with outputs poisoned and guard bands
// around every buffer, and is checked on the GPU (DeviceCheck.h): guard
// bands intact, inputs unchanged, outputs equal to the baseline's within
// tolerance. A variant that fails keeps its first reason.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_MEASURE_VERIFY_H
#define CUDA_OPT_RUNTIME_MEASURE_VERIFY_H

#include "Job.h"

namespace co_runtime {

class WorkerContext;

/// Verifies every variant on every seed of the job; the baseline failing is
/// fatal. Verdicts go into the result as they are reached
/// ("verify_failures"), and the baseline's replay check ("replay_warnings").
/// A variant not started before the job's time limit is marked skipped.
void verifyVariants(WorkerContext &Ctx, Job &Jb);

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_MEASURE_VERIFY_H
