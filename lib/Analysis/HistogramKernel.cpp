//===- HistogramKernel.cpp - Kernels that compute a histogram -------------===//
//
// Part of cuda-opt. See HistogramKernel.h.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/HistogramKernel.h"
#include "cuda-opt/Analysis/BlockReduction.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

namespace {

std::string where(const ASTContext &Ctx, SourceLocation Loc) {
  return describeLocation(Ctx.getSourceManager(), Loc);
}

/// Whether \p Target runs inside a loop of \p S, and the first call of a
/// warp- or block-level primitive in \p S (which a bin function run by one
/// thread of CUB's could not call).
class Walk : public RecursiveASTVisitor<Walk> {
public:
  explicit Walk(const CallExpr *Target) : Target(Target) {}
  bool TraverseForStmt(ForStmt *S) { return loop(S); }
  bool TraverseWhileStmt(WhileStmt *S) { return loop(S); }
  bool TraverseDoStmt(DoStmt *S) { return loop(S); }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) { return loop(S); }
  bool VisitCallExpr(CallExpr *CE) {
    if (CE == Target && Depth > 0)
      InLoop = true;
    if (const FunctionDecl *FD = CE->getDirectCallee()) {
      StringRef N = FD->getName();
      for (StringRef P : {"__shfl", "__ballot", "__any", "__all", "__activemask",
                          "__reduce_", "__match", "__syncwarp", "__syncthreads",
                          "clock", "__nanosleep"})
        if (N.starts_with(P) && !Collective)
          Collective = CE;
    }
    return true;
  }
  const CallExpr *Target;
  unsigned Depth = 0;
  bool InLoop = false;
  const CallExpr *Collective = nullptr;

private:
  template <typename T> bool loop(T *S) {
    ++Depth;
    RecursiveASTVisitor::TraverseStmt(S);
    --Depth;
    return true;
  }
};

/// The statement that is \p Call (or `(void)Call`) in \p Stmts.
class StatementOf : public RecursiveASTVisitor<StatementOf> {
public:
  explicit StatementOf(const CallExpr *Call) : Call(Call) {}
  bool VisitStmt(Stmt *S) {
    if (isa<Expr>(S))
      return true;
    for (const Stmt *C : S->children())
      if (const auto *E = dyn_cast_or_null<Expr>(C))
        if (E->IgnoreParenCasts() == Call && !Found)
          Found = E;
    return true;
  }
  const CallExpr *Call;
  const Expr *Found = nullptr;
};

} // namespace

Expected<HistogramKernel> matchHistogramKernel(ASTContext &Ctx,
                                               const KernelInfo &K) {
  std::string Name = "kernel '" + K.name() + "'";
  Expected<BinnedAtomics> B = analyzeBinnedAtomics(Ctx, K, int64_t(1) << 30);
  if (!B)
    return B.takeError();
  HistogramKernel H;
  H.Binned = std::move(*B);
  const BinnedAtomics &BA = H.Binned;
  if (BA.Updates.size() != 1)
    return refuse(Name + " updates '" + BA.Array->getNameAsString() + "' at " +
                  Twine(BA.Updates.size()).str() +
                  " places; a histogram counts each element once");
  const AtomicUpdate &U = BA.Updates.front();
  std::string At = where(Ctx, U.Call->getBeginLoc());
  if (BA.Op != CombineOp::Sum || U.Helper)
    return refuse("the atomic update at " + At + " is a " +
                  combineOpName(BA.Op).str() +
                  ", not a count (atomicAdd of an integer)");
  const auto *BT = BA.Type->getAs<BuiltinType>();
  if (!BT || !BT->isInteger() || BA.Type->isBooleanType() ||
      (Ctx.getTypeSize(BA.Type) != 32 && Ctx.getTypeSize(BA.Type) != 64))
    return refuse("the counters of '" + BA.Array->getNameAsString() +
                  "' are '" + BA.Type.getAsString() +
                  "'; CUB counts in 32- or 64-bit integers (a floating-point "
                  "sum would be a weighted histogram, which CUB does not have)");
  H.Bin = BA.Indices.front();
  H.Negated = U.Subtracts;
  if (!U.IncrementsByOne) {
    const Expr *W = U.Value->IgnoreParenImpCasts();
    Expr::EvalResult R;
    if (U.Value->EvaluateAsInt(R, Ctx)) {
      if (!(R.Val.getInt() == 1))
        H.Weight = U.Value;
    } else if (const auto *D = dyn_cast<DeclRefExpr>(W);
               D && isa<ParmVarDecl>(D->getDecl()) &&
               D->getType()->isIntegerType()) {
      std::string Why;
      if (!isGridUniform(Ctx, U.Value, K.Decl, Why))
        return refuse("the weight '" + sourceText(Ctx, U.Value->getSourceRange()) +
                      "' at " + At + " " + Why);
      H.Weight = U.Value;
    } else {
      return refuse("the atomic update at " + At + " adds '" +
                    sourceText(Ctx, U.Value->getSourceRange()) +
                    "', a weight per element; CUB's histogram counts "
                    "samples (a constant or a scalar parameter as the "
                    "weight would do)");
    }
  }

  // The element count.
  const MappedIndex &X = BA.Mapping.x();
  H.Inclusive = X.Inclusive;
  const Expr *Bound = X.Bound->IgnoreParenImpCasts();
  Expr::EvalResult BV;
  if (const auto *D = dyn_cast<DeclRefExpr>(Bound);
      D && isa<ParmVarDecl>(D->getDecl()))
    H.CountParam = cast<ParmVarDecl>(D->getDecl());
  else if (X.Bound->EvaluateAsInt(BV, Ctx) &&
           BV.Val.getInt().isRepresentableByInt64())
    H.BoundValue = BV.Val.getInt().getExtValue();
  else
    return refuse(Name + " counts the elements below '" +
                  sourceText(Ctx, X.Bound->getSourceRange()) +
                  "', not a parameter or a constant");

  // The bin is a function of the element: no thread or block index, nothing
  // a thread of another grid could not compute, one update per element.
  Walk Wk(U.Call);
  for (const Stmt *S : BA.Mapping.Body)
    Wk.TraverseStmt(const_cast<Stmt *>(S));
  for (const Expr *C : BA.Mapping.Conditions)
    Wk.TraverseStmt(const_cast<Expr *>(C));
  if (Wk.InLoop)
    return refuse("the atomic update at " + At + " is inside a loop: an "
                  "element may count into several bins");
  if (Wk.Collective)
    return refuse(Name + " calls '" +
                  Wk.Collective->getDirectCallee()->getNameAsString() +
                  "' at " + where(Ctx, Wk.Collective->getBeginLoc()) +
                  "; the bin must be a function of the element alone");
  for (const Stmt *S : BA.Mapping.Body)
    if (readsBuiltinIndex(S))
      return refuse(Name + " reads a thread or block index in its "
                    "per-element work at " + where(Ctx, S->getBeginLoc()) +
                    "; the bin must be a function of the element alone");
  for (const Expr *C : BA.Mapping.Conditions)
    if (readsBuiltinIndex(C))
      return refuse(Name + " reads a thread or block index in its guard; "
                    "the bin must be a function of the element alone");
  StatementOf SO(U.Call);
  for (const Stmt *S : BA.Mapping.Body) {
    if (const auto *E = dyn_cast<Expr>(S); E && E->IgnoreParenCasts() == U.Call)
      SO.Found = E;
    SO.TraverseStmt(const_cast<Stmt *>(S));
  }
  if (!SO.Found)
    return refuse("the atomic update at " + At + " is not a statement of its "
                  "own");
  H.UpdateStmt = SO.Found;

  // Samples CUB can read directly: `bins[data[i]]` with 8- or 16-bit
  // unsigned data (every value a bin of the proven range) and nothing else.
  if (BA.Mapping.Conditions.empty() && BA.Mapping.Body.size() == 1 &&
      BA.Mapping.Body.front() == SO.Found && !BA.BinsParam)
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(H.Bin->IgnoreParenImpCasts()))
      if (const auto *Base =
              dyn_cast<DeclRefExpr>(AS->getBase()->IgnoreParenImpCasts()))
        if (const auto *P = dyn_cast<ParmVarDecl>(Base->getDecl()))
          if (refersTo(AS->getIdx(), X.Var)) {
            QualType E = AS->getType();
            if (E->isUnsignedIntegerType() && !E->isBooleanType() &&
                Ctx.getTypeSize(E) <= 16 &&
                BA.Bins == (int64_t(1) << Ctx.getTypeSize(E)))
              H.Samples = P;
          }
  return H;
}

} // namespace cuda_opt
