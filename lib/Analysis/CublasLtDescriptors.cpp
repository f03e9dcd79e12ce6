//===- CublasLtDescriptors.cpp - Constant cuBLASLt descriptors -----------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/CublasLtDescriptors.h"
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/CublasGemmCall.h"
#include "cuda-opt/Analysis/GemmProblem.h"
#include "cuda-opt/Support/Refusal.h"
#include "clang/Basic/SourceManager.h"

#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// The calls in a function body whose first argument names one variable.
class DescriptorCalls : public RecursiveASTVisitor<DescriptorCalls> {
public:
  explicit DescriptorCalls(const VarDecl *V) : V(V) {}
  bool VisitCallExpr(CallExpr *CE) {
    if (CE->getNumArgs() == 0 || namedVar(CE->getArg(0)) != V)
      return true;
    if (const FunctionDecl *FD = CE->getDirectCallee())
      if (FD->getIdentifier())
        Calls.push_back({FD->getName(), CE});
    return true;
  }
  const VarDecl *V;
  SmallVector<std::pair<StringRef, const CallExpr *>, 4> Calls;
};

std::string enumeratorName(const Expr *E) {
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return DRE->getDecl()->getNameAsString();
  return "an attribute that is not a named constant";
}

Expected<SmallVector<std::pair<StringRef, const CallExpr *>, 4>>
callsOn(const FunctionDecl *Caller, const Expr *Arg, StringRef What) {
  const VarDecl *V = namedVar(Arg);
  if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V))
    return refuse("the " + What +
                  " is not a local variable of the calling function, so "
                  "its settings are not visible");
  DescriptorCalls Calls(V);
  Calls.TraverseStmt(Caller->getBody());
  return std::move(Calls.Calls);
}

} // namespace

Expected<LtMatmulDesc> findLtMatmulDesc(ASTContext &Ctx,
                                        const FunctionDecl *Caller,
                                        const Expr *Desc) {
  auto Calls = callsOn(Caller, Desc, "matmul descriptor");
  if (!Calls)
    return Calls.takeError();
  LtMatmulDesc D;
  unsigned Creates = 0;
  for (auto [Name, CE] : *Calls) {
    if (Name == "cublasLtMatmulDescDestroy")
      continue;
    if (Name == "cublasLtMatmulDescCreate" && CE->getNumArgs() == 3) {
      std::optional<int64_t> Compute = constantArg(Ctx, CE->getArg(1));
      std::optional<int64_t> Scale = constantArg(Ctx, CE->getArg(2));
      if (!Compute || !Scale)
        return refuse("the matmul descriptor's compute and scale types are "
                      "not compile-time constants");
      D.Compute = *Compute;
      D.Scale = *Scale;
      ++Creates;
      continue;
    }
    if (Name == "cublasLtMatmulDescSetAttribute" && CE->getNumArgs() == 4) {
      std::string Attr = enumeratorName(CE->getArg(1));
      // The value is passed by address: `&opA` with opA a constant.
      std::optional<int64_t> Value = constantArg(Ctx, CE->getArg(2));
      bool IsTrans = Attr == "CUBLASLT_MATMUL_DESC_TRANSA" ||
                     Attr == "CUBLASLT_MATMUL_DESC_TRANSB";
      if (IsTrans && !Value)
        return refuse(Attr + " is not set from a compile-time constant");
      if (Attr == "CUBLASLT_MATMUL_DESC_TRANSA")
        D.TransA = *Value;
      else if (Attr == "CUBLASLT_MATMUL_DESC_TRANSB")
        D.TransB = *Value;
      else if (Attr == "CUBLASLT_MATMUL_DESC_EPILOGUE" && Value == 1)
        continue; // CUBLASLT_EPILOGUE_DEFAULT
      else
        return refuse("the matmul descriptor sets " + Attr +
                      ", which cudaoptGemm does not model");
      continue;
    }
    return refuse("the matmul descriptor is passed to " + Name +
                  ", whose effect is not modelled");
  }
  if (Creates != 1)
    return refuse("the matmul descriptor is not created exactly once with "
                  "cublasLtMatmulDescCreate in the calling function");
  return D;
}

Expected<LtMatrixLayout> findLtMatrixLayout(ASTContext &Ctx,
                                            const FunctionDecl *Caller,
                                            const Expr *Layout) {
  std::string Name = sourceText(Ctx, Layout->getSourceRange());
  auto Calls = callsOn(Caller, Layout, "layout '" + Name + "'");
  if (!Calls)
    return Calls.takeError();
  LtMatrixLayout L;
  unsigned Creates = 0;
  for (auto [Fn, CE] : *Calls) {
    if (Fn == "cublasLtMatrixLayoutDestroy")
      continue;
    if (Fn == "cublasLtMatrixLayoutCreate" && CE->getNumArgs() == 5) {
      std::optional<int64_t> Type = constantArg(Ctx, CE->getArg(1));
      if (!Type)
        return refuse("the type of layout '" + Name +
                      "' is not a compile-time constant");
      L.Type = *Type;
      // Rows and columns become M, N or K (int), Ld a leading dimension.
      L.Rows = convertedText(Ctx, CE->getArg(2), Ctx.IntTy);
      L.Cols = convertedText(Ctx, CE->getArg(3), Ctx.IntTy);
      L.Ld = convertedText(Ctx, CE->getArg(4), Ctx.LongLongTy);
      for (unsigned I = 2; I < 5; ++I)
        if (CE->getArg(I)->HasSideEffects(Ctx))
          return refuse("a size of layout '" + Name + "' has side effects");
      ++Creates;
      continue;
    }
    if (Fn == "cublasLtMatrixLayoutSetAttribute")
      return refuse("layout '" + Name + "' sets " +
                    enumeratorName(CE->getArg(1)) +
                    " (row-major order, batching or an offset), which is not "
                    "mapped; only default column-major layouts are");
    return refuse("layout '" + Name + "' is passed to " + Fn +
                  ", whose effect is not modelled");
  }
  if (Creates != 1)
    return refuse("layout '" + Name +
                  "' is not created exactly once with "
                  "cublasLtMatrixLayoutCreate in the calling function");
  return L;
}

} // namespace cuda_opt
