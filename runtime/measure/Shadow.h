//===- Shadow.h - Run the fp64 shadow of the baseline -----------*- C++ -*-===//
//
// Part of cuda-opt's runtime. Under --fp-model=reassoc the reference of a
// float output is the baseline kernel promoted to double (the job's
// "shadow", lib/Measure/Fp64Shadow.h). Each seed the shadow runs first, on
// double copies of the promoted buffers made from the seed's initial
// contents; a variant's float output then passes when
//
//   max|variant - shadow| <= 2 * max|baseline - shadow| + 2 ulp(max|shadow|)
//
// per output, and per row of an output the analysis proved is written in
// rows (the job's "row_length"), where the maxima are over the row. The
// baseline's error is the largest over Job::OrigRuns runs on the same
// inputs (docs/fp-model.md). A shadow that cannot run (no module, a non-float
// buffer where a float one is promoted, a launch error) is dropped with the
// reason in the result, and the tolerance check applies instead.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_MEASURE_SHADOW_H
#define CUDA_OPT_RUNTIME_MEASURE_SHADOW_H

#include "Job.h"

namespace co_runtime {

class WorkerContext;

/// Loads the shadow's module and checks that its promotions fit the job's
/// arguments; marks it unusable otherwise.
void loadShadow(Job &Jb);

/// Runs the shadow on the current seed's inputs (after prepareSeed) and
/// keeps its float outputs' double results in each argument's Shadow
/// buffer. Leaves the buffers to be reset before the baseline runs.
void runShadow(WorkerContext &Ctx, Job &Jb);

/// After a run of the baseline: its error against the shadow, per output
/// (and per row where the output has rows). The baseline runs several times
/// per seed (Job::OrigRuns): the first run sets the errors, later ones raise
/// them to the largest seen.
void measureBaselineAgainstShadow(WorkerContext &Ctx, Job &Jb, bool FirstRun);

/// Whether some output of this seed is checked against the shadow.
bool checkedAgainstShadow(const Job &Jb);

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_MEASURE_SHADOW_H
