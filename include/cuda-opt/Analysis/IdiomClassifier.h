//===- IdiomClassifier.h - Recognise what a kernel computes -----*- C++ -*-===//
//
// Part of cuda-opt. Names the algorithm a kernel implements (gemm, gemv,
// reduction, scan, transpose, stencil, elementwise) from the facts of its
// kernel model, with a short evidence string saying which facts matched.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_IDIOMCLASSIFIER_H
#define CUDA_OPT_ANALYSIS_IDIOMCLASSIFIER_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace cuda_opt {

struct KernelModel;

enum class Idiom {
  Unknown,
  Gemm,
  Gemv,
  Reduction,
  Elementwise,
  Stencil,
  Transpose,
  Scan,
};

llvm::StringRef idiomName(Idiom I);

struct IdiomInfo {
  Idiom Kind = Idiom::Unknown;
  /// Why: the facts that matched, or why nothing did.
  std::string Evidence;
};

/// Classify a kernel from its model (everything but the idiom filled in).
IdiomInfo classifyIdiom(const KernelModel &M);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_IDIOMCLASSIFIER_H
