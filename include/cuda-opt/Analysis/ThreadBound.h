//===- ThreadBound.h - Does code depend on the thread it runs on? -*- C++ -*-===//
//
// Part of cuda-opt. Rewrites that move a kernel's per-element work to
// another thread (tile-transpose, temporal-block) need that work, and the
// functions it calls, not to look at which thread runs it: no builtin
// indices, no __shared__ memory, no barriers or warp intrinsics, no calls
// whose bodies cuda-opt cannot see.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_THREADBOUND_H
#define CUDA_OPT_ANALYSIS_THREADBOUND_H

#include "clang/AST/Stmt.h"
#include <string>

namespace cuda_opt {

/// What \p S (and what it calls, four calls deep) does that ties it to its
/// thread, phrased to follow a subject ("reads threadIdx", "calls 'f',
/// which uses __shared__ memory"); empty when nothing does.
std::string threadBoundUse(const clang::Stmt *S);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_THREADBOUND_H
