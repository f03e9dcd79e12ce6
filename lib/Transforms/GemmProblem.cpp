//===- GemmProblem.cpp - Render a cudaoptGemmProblem initialiser ---------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Transforms/GemmProblem.h"

namespace cuda_opt {

std::string renderProblemInit(const GemmProblem &P) {
  // Field order of cudaoptGemmProblem in gemm.h, with LLVM-style argument
  // comments so the rewrite reads like the struct.
  return "{/*M=*/" + P.M + ", /*N=*/" + P.N + ", /*K=*/" + P.K + ", " + P.Type +
         ", " + P.LayoutB + ", /*A=*/" + P.A + ", /*Lda=*/" + P.Lda +
         ", /*B=*/" + P.B + ", /*Ldb=*/" + P.Ldb + ", /*C=*/" + P.C +
         ", /*Ldc=*/" + P.Ldc + ", /*Alpha=*/" + P.Alpha + ", /*Beta=*/" +
         P.Beta + "}";
}

} // namespace cuda_opt
