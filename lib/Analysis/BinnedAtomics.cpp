//===- BinnedAtomics.cpp - Atomics into a small array of counters --------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/BinnedAtomics.h"
#include "cuda-opt/Analysis/BlockReduction.h"
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

static std::string where(const ASTContext &Ctx, SourceLocation Loc) {
  return describeLocation(Ctx.getSourceManager(), Loc);
}

static const ParmVarDecl *paramOf(const Expr *E) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
}

/// `&p[idx]` or `p + idx` with p a pointer parameter: p and idx.
static std::pair<const ParmVarDecl *, const Expr *>
splitAddress(const Expr *A) {
  A = A->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(A);
      UO && UO->getOpcode() == UO_AddrOf)
    if (const auto *AS =
            dyn_cast<ArraySubscriptExpr>(UO->getSubExpr()->IgnoreParens()))
      if (const ParmVarDecl *P = paramOf(AS->getBase()))
        return {P, AS->getIdx()};
  if (const auto *BO = dyn_cast<BinaryOperator>(A);
      BO && BO->getOpcode() == BO_Add) {
    if (const ParmVarDecl *P = paramOf(BO->getLHS());
        P && P->getType()->isPointerType())
      return {P, BO->getRHS()};
    if (const ParmVarDecl *P = paramOf(BO->getRHS());
        P && P->getType()->isPointerType())
      return {P, BO->getLHS()};
  }
  return {nullptr, nullptr};
}

Expected<BinnedAtomics> analyzeBinnedAtomics(ASTContext &Ctx,
                                             const KernelInfo &K,
                                             int64_t MaxBins) {
  std::string Name = K.name();
  if (K.Decl->isDependentContext())
    return refuse("kernel '" + Name + "' is a template; privatize-atomics "
                  "needs the counters' type");
  Expected<ThreadMapping> M =
      analyzeLoopableMapping(Ctx, K, "privatize-atomics",
                             GuardConditions::Allow);
  if (!M)
    return M.takeError();
  return analyzeBinnedAtomicsIn(Ctx, K, std::move(*M), MaxBins);
}

Expected<BinnedAtomics> analyzeBinnedAtomicsIn(ASTContext &Ctx,
                                               const KernelInfo &K,
                                               ThreadMapping Mapping,
                                               int64_t MaxBins) {
  std::string Name = K.name();
  std::optional<ThreadMapping> M(std::move(Mapping));
  class Calls : public RecursiveASTVisitor<Calls> {
  public:
    bool VisitCallExpr(CallExpr *CE) {
      All.push_back(CE);
      return true;
    }
    SmallVector<const CallExpr *, 8> All;
  } C;
  for (const Stmt *S : M->Body)
    C.TraverseStmt(const_cast<Stmt *>(S));
  BinnedAtomics B;
  B.Mapping = std::move(*M);
  SmallVector<const CallExpr *, 4> Allowed;
  for (const CallExpr *CE : C.All) {
    bool IsAtomic = false;
    Expected<AtomicUpdate> U = matchAtomicUpdate(Ctx, CE, IsAtomic);
    if (!IsAtomic) {
      consumeError(U.takeError());
      continue;
    }
    std::string At = where(Ctx, CE->getBeginLoc());
    if (!U)
      return refuse("the atomic operation at " + At + " cannot be "
                    "privatized: " + toString(U.takeError()));
    auto [P, Idx] = splitAddress(U->Address);
    if (!P)
      return refuse("the atomic update at " + At + " targets '" +
                    sourceText(Ctx, U->Address->getSourceRange()) +
                    "', not an element 'bins[idx]' of a pointer parameter");
    if (B.Array && P != B.Array)
      return refuse("kernel '" + Name + "' updates two arrays atomically ('" +
                    B.Array->getNameAsString() + "' and '" +
                    P->getNameAsString() + "'); privatize-atomics handles one");
    if (!B.Updates.empty() && U->Op != B.Op)
      return refuse("kernel '" + Name + "' updates '" + P->getNameAsString() +
                    "' with both a " + combineOpName(B.Op).str() + " and a " +
                    combineOpName(U->Op).str());
    if (readsBuiltinIndex(Idx))
      return refuse("the index '" + sourceText(Ctx, Idx->getSourceRange()) +
                    "' at " + At + " reads a thread or block index");
    std::string IdxText = sourceText(Ctx, Idx->getSourceRange());
    std::optional<ValueRange> R =
        valueRangeOf(Ctx, Idx, K.Decl->getBody());
    std::optional<ParamBound> PB;
    if (!R || R->Hi >= MaxBins)
      PB = paramBoundOf(Ctx, Idx, K.Decl->getBody());
    if (PB) {
      // The bin count is a launch argument: checked against the private
      // copy's capacity when the kernel runs.
      if (PB->Lo < 0)
        return refuse("the index '" + IdxText + "' at " + At +
                      " may be negative (" +
                      (PB->Lo == INT64_MIN
                           ? std::string("nothing proves it is at least 0; "
                                         "add '" + IdxText +
                                         " >= 0' to its guard")
                           : "it can be " + Twine(PB->Lo).str()) +
                      ")");
      if ((B.BinsParam && B.BinsParam != PB->Param) ||
          (!B.BinsParam && !B.Updates.empty()))
        return refuse("the atomic updates of kernel '" + Name +
                      "' have different bounds; privatize-atomics needs one");
      B.BinsParam = PB->Param;
    } else {
      if (!R)
        return refuse("the index '" + IdxText + "' of the atomic update at " +
                      At +
                      " has no proven bound (an 8-bit load, 'x % K', 'x & M' "
                      "or an enclosing 'if (b < K)' with K a constant or an "
                      "unmodified integer parameter would give one), so the "
                      "array cannot be copied to shared memory");
      if (R->Lo < 0)
        return refuse("the index '" + IdxText + "' at " + At +
                      " may be negative (it can be " + Twine(R->Lo).str() +
                      ")");
      if (R->Hi >= MaxBins)
        return refuse("the index '" + IdxText + "' at " + At +
                      " can reach " + Twine(R->Hi).str() +
                      "; privatize-atomics keeps at most " +
                      Twine(MaxBins).str() +
                      " counters per copy in shared memory");
      if (B.BinsParam)
        return refuse("the atomic updates of kernel '" + Name +
                      "' have different bounds; privatize-atomics needs one");
      B.Bins = std::max(B.Bins, R->Hi + 1);
    }
    B.Array = P;
    B.Op = U->Op;
    B.Type = U->ElementType;
    B.Updates.push_back(*U);
    B.Indices.push_back(Idx);
    Allowed.push_back(CE);
  }
  if (B.Updates.empty())
    return refuse("kernel '" + Name + "' makes no atomic update of an array "
                  "element");
  for (const AtomicUpdate &U : B.Updates) {
    if (!isResultUnused(Ctx, U.Call))
      return refuse("the old value returned by the atomic update at " +
                    where(Ctx, U.Call->getBeginLoc()) +
                    " is used; a private copy would return another value");
  }
  // The array is touched only by these updates, and nothing else leaves the
  // thread.
  class Uses : public RecursiveASTVisitor<Uses> {
  public:
    explicit Uses(const ParmVarDecl *P) : P(P) {}
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      if (D->getDecl() == P)
        Refs.push_back(D);
      return true;
    }
    const ParmVarDecl *P;
    SmallVector<const DeclRefExpr *, 4> Refs;
  } All(B.Array);
  All.TraverseStmt(K.Decl->getBody());
  if (All.Refs.size() != B.Updates.size())
    for (const DeclRefExpr *D : All.Refs) {
      bool InUpdate = false;
      for (const AtomicUpdate &U : B.Updates)
        InUpdate |= U.Address->getSourceRange().fullyContains(D->getSourceRange());
      if (!InUpdate)
        return refuse("kernel '" + Name + "' also uses '" +
                      B.Array->getNameAsString() + "' at " +
                      where(Ctx, D->getBeginLoc()) +
                      " outside its atomic updates");
    }
  for (const Stmt *S : B.Mapping.Body) {
    std::string Effect = findOtherEffect(Ctx, S, Allowed);
    if (!Effect.empty())
      return refuse("kernel '" + Name + "' " + Effect +
                    "; privatize-atomics needs the atomic updates to be the "
                    "kernel's only effect outside the thread");
  }
  if (!identityText(Ctx, B.Op, B.Type))
    return refuse("privatize-atomics has no identity for the " +
                  combineOpName(B.Op).str() + " of '" + B.Type.getAsString() +
                  "'");
  return B;
}

} // namespace cuda_opt
