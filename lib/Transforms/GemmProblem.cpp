//===- GemmProblem.cpp - Render a cudaoptGemmProblem initialiser ---------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Transforms/GemmProblem.h"

namespace cuda_opt {

std::string renderProblemInit(const GemmProblem &P) {
  // Field order of cudaoptGemmProblem in gemm.h.
  return "{" + P.M + ", " + P.N + ", " + P.K + ", " + P.Type + ", " +
         P.LayoutB + ", " + P.A + ", " + P.Lda + ", " + P.B + ", " + P.Ldb +
         ", " + P.C + ", " + P.Ldc + ", " + P.Alpha + ", " + P.Beta + "}";
}

} // namespace cuda_opt
