//===- CandidateSpace.h - Which pipelines the tuner tries -------*- C++ -*-===//
//
// Part of cuda-opt. Declared apart from Tuner.h so that the clang plugin can
// list candidates and rank them with the policy without linking the
// measurement stages (library CudaOptPolicy).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SEARCH_CANDIDATESPACE_H
#define CUDA_OPT_SEARCH_CANDIDATESPACE_H

#include <string>
#include <vector>

namespace cuda_opt {

/// Candidate pipelines for one kernel: each transform over a small grid of
/// its parameters, alone and after restrict-const, capped at \p Budget.
std::vector<std::string> candidatePipelines(unsigned Budget);

} // namespace cuda_opt

#endif // CUDA_OPT_SEARCH_CANDIDATESPACE_H
