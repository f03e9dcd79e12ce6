//===- Table.h - the tuned dispatch table -----------------------*- C++ -*-===//

#ifndef CUDAOPT_GEMM_TABLE_H
#define CUDAOPT_GEMM_TABLE_H

#include "Internal.h"

namespace cudaopt::gemm {

struct TableEntry {
  int M, N, K, Type, LayoutB;
  cudaoptGemmPlan Plan;
};

/// The tuned plan for P's exact shape, type and layout, or null.
const cudaoptGemmPlan *lookupTuned(const cudaoptGemmProblem &P);
const char *tableVersion();

} // namespace cudaopt::gemm

#endif // CUDAOPT_GEMM_TABLE_H
