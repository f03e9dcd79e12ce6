//===- Model.h - cost model ranking the GEMM kernel family ------*- C++ -*-===//

#ifndef CUDAOPT_GEMM_MODEL_H
#define CUDAOPT_GEMM_MODEL_H

#include "Internal.h"

namespace cudaopt::gemm {

/// Predicted seconds for running P with Plan on a device with Sms SMs.
double modelSeconds(const cudaoptGemmProblem &P, const cudaoptGemmPlan &Plan,
                    int Sms);

/// Runnable plans ranked by modelSeconds, best first.
int rankPlans(const cudaoptGemmProblem &P, int Sms, cudaoptGemmPlan *Plans,
              int MaxPlans);

} // namespace cudaopt::gemm

#endif // CUDAOPT_GEMM_MODEL_H
