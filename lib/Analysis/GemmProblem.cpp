//===- GemmProblem.cpp - Render a cudaoptGemmProblem initialiser ---------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/GemmProblem.h"
#include "cuda-opt/Analysis/KernelFinder.h"

using namespace clang;

namespace cuda_opt {

std::string convertedText(ASTContext &Ctx, const Expr *E, QualType To) {
  std::string Text = sourceText(Ctx, E->getSourceRange());
  const Expr *Src = E->IgnoreParenImpCasts();
  QualType From = Src->getType().getCanonicalType().getUnqualifiedType();
  To = To.getCanonicalType();
  bool Fits = Ctx.hasSameType(From, To);
  // A signed integer no wider than the target, or an integer constant.
  if (To->isIntegerType() && From->isSignedIntegerType() &&
      Ctx.getIntWidth(From) <= Ctx.getIntWidth(To))
    Fits = true;
  if (To->isIntegerType() && Src->isIntegerConstantExpr(Ctx))
    Fits = true;
  // A floating-point constant narrows only when it is out of range.
  if (To->isFloatingType() && From->isFloatingType() && Src->isEvaluatable(Ctx))
    Fits = true;
  if (Fits)
    return Text;
  return "static_cast<" + To.getAsString() + ">(" + Text + ")";
}

std::string renderProblemInit(const GemmProblem &P) {
  // Field order of cudaoptGemmProblem in gemm.h, with LLVM-style argument
  // comments so the rewrite reads like the struct.
  return "{/*M=*/" + P.M + ", /*N=*/" + P.N + ", /*K=*/" + P.K + ", " + P.Type +
         ", " + P.LayoutB + ", /*A=*/" + P.A + ", /*Lda=*/" + P.Lda +
         ", /*B=*/" + P.B + ", /*Ldb=*/" + P.Ldb + ", /*C=*/" + P.C +
         ", /*Ldc=*/" + P.Ldc + ", /*Alpha=*/" + P.Alpha + ", /*Beta=*/" +
         P.Beta +
         (P.Batch.empty() && !P.Reassociate && !P.LibraryAlgo
              ? std::string()
              : ", /*Batch=*/" + (P.Batch.empty() ? "1" : P.Batch) +
                    ", /*StrideA=*/" + (P.Batch.empty() ? "0" : P.StrideA) +
                    ", /*StrideB=*/" + (P.Batch.empty() ? "0" : P.StrideB) +
                    ", /*StrideC=*/" + (P.Batch.empty() ? "0" : P.StrideC)) +
         (P.Reassociate || P.LibraryAlgo
              ? std::string(", /*Reassociate=*/") + (P.Reassociate ? "1" : "0")
              : std::string()) +
         (P.LibraryAlgo ? ", /*LibraryAlgo=*/" + std::to_string(P.LibraryAlgo)
                        : std::string()) +
         "}";
}

} // namespace cuda_opt
