//===- ProblemSignature.h - The problem a measurement was made on -*- C++
//-*-===//
//
// Part of cuda-opt. A measurement in the tuning database holds for one
// problem: the launch shape and the sizes tune captured (integer arguments,
// buffer lengths). The signature writes them as one canonical string,
//   grid=4096x1x1;block=256x1x1;shmem=0;int:n=1048576;buf:x=1048576
// (launch first, then the named sizes sorted by name), and measures how far
// two signatures are apart, so that `cuda-opt apply` can fall back to the
// nearest recorded problem.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SEARCH_PROBLEMSIGNATURE_H
#define CUDA_OPT_SEARCH_PROBLEMSIGNATURE_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <string>

namespace cuda_opt {

/// The canonical signature of a launch and its sizes.
std::string problemSignature(const std::array<int64_t, 3> &Grid,
                             const std::array<int64_t, 3> &Block, int64_t Shmem,
                             const llvm::StringMap<int64_t> &IntArgs,
                             const llvm::StringMap<int64_t> &BufferElements);

/// How far apart two signatures are: the sum over their numbers (grid and
/// block per dimension, each size by name) of |log2((a + 1) / (b + 1))|,
/// and 64 for each number only one of them has. 0 for equal signatures.
double signatureDistance(llvm::StringRef A, llvm::StringRef B);

} // namespace cuda_opt

#endif // CUDA_OPT_SEARCH_PROBLEMSIGNATURE_H
