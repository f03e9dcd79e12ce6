//===- HistogramKernel.cpp - Kernels that compute a histogram -------------===//
//
// Part of cuda-opt. See HistogramKernel.h.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/HistogramKernel.h"
#include "cuda-opt/Analysis/BlockReduction.h"
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

namespace {

std::string where(const ASTContext &Ctx, SourceLocation Loc) {
  return describeLocation(Ctx.getSourceManager(), Loc);
}

/// The first call in \p S of a warp- or block-level primitive (which a bin
/// function run by one thread of CUB's could not call).
class Collectives : public RecursiveASTVisitor<Collectives> {
public:
  bool VisitCallExpr(CallExpr *CE) {
    if (const FunctionDecl *FD = CE->getDirectCallee()) {
      StringRef N = FD->getName();
      for (StringRef P : {"__shfl", "__ballot", "__any", "__all", "__activemask",
                          "__reduce_", "__match", "__syncwarp", "__syncthreads",
                          "clock", "__nanosleep"})
        if (N.starts_with(P) && !First)
          First = CE;
    }
    return true;
  }
  const CallExpr *First = nullptr;
};

/// The first reference in a statement to a local variable of the kernel
/// declared outside \p Inside (none of the kernel's parameters, nor the
/// index \p Index): the bin function copies the per-element work only.
class OuterLocals : public RecursiveASTVisitor<OuterLocals> {
public:
  OuterLocals(const SourceManager &SM, ArrayRef<const Stmt *> Inside,
              const VarDecl *Index)
      : SM(SM), Inside(Inside), Index(Index) {}
  bool VisitDeclRefExpr(DeclRefExpr *D) {
    const auto *V = dyn_cast<VarDecl>(D->getDecl());
    if (First || !V || V == Index || isa<ParmVarDecl>(V) ||
        !V->isLocalVarDecl())
      return true;
    for (const Stmt *S : Inside)
      if (SM.isPointWithin(V->getLocation(), S->getBeginLoc(),
                           S->getEndLoc()))
        return true;
    First = D;
    return true;
  }
  const SourceManager &SM;
  ArrayRef<const Stmt *> Inside;
  const VarDecl *Index;
  const DeclRefExpr *First = nullptr;
};

/// Whether \p S is inside a loop below \p Top (the kernel's body), other
/// than the grid-stride loop \p Elements (null for one element per thread).
bool inLoop(ASTContext &Ctx, const Stmt *S, const Stmt *Top,
            SourceLocation Elements) {
  DynTypedNodeList Parents = Ctx.getParents(*S);
  while (!Parents.empty()) {
    const Stmt *P = Parents[0].get<Stmt>();
    if (!P || P == Top ||
        (Elements.isValid() && isa<ForStmt>(P) &&
         P->getBeginLoc() == Elements))
      return false;
    if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(P))
      return true;
    Parents = Ctx.getParents(*P);
  }
  return false;
}

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

/// The mapping of a kernel whose body is one grid-stride loop over its
/// elements,
///
///   int idx = blockIdx.x * blockDim.x + threadIdx.x;  // optional locals
///   for (int i = idx; i < n; i += blockDim.x * gridDim.x) { work }
///
/// launched over 1-D grids and blocks (any size: every i in [0, n) is one
/// thread's once); Body is the work. Fails with the reason, or with an
/// empty message when the kernel has no such loop.
Expected<ThreadMapping> gridStrideMapping(ASTContext &Ctx,
                                          const KernelInfo &K) {
  std::string Name = "kernel '" + K.name() + "'";
  const auto *Top = dyn_cast_or_null<CompoundStmt>(K.Decl->getBody());
  if (!Top || Top->body_empty())
    return refuse("");
  const auto *Loop = dyn_cast<ForStmt>(Top->body_back());
  if (!Loop)
    return refuse("");
  DenseMap<const VarDecl *, const Expr *> Locals;
  for (const Stmt *S : Top->body()) {
    if (S == Loop)
      break;
    const auto *DS = dyn_cast<DeclStmt>(S);
    if (!DS)
      return refuse("");
    for (const Decl *D : DS->decls()) {
      const auto *V = dyn_cast<VarDecl>(D);
      if (!V || !V->getInit() ||
          !isNeverModifiedAfterInit(V, K.Decl->getBody(), Ctx))
        return refuse("");
      Locals[V] = V->getInit();
    }
  }
  auto Resolve = [&](const Expr *E) {
    for (unsigned I = 0; I < 4 && E; ++I) {
      const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
      auto It = D ? Locals.find(dyn_cast<VarDecl>(D->getDecl()))
                  : Locals.end();
      if (It == Locals.end())
        break;
      E = It->second;
    }
    return E;
  };
  const auto *Init = dyn_cast_or_null<DeclStmt>(Loop->getInit());
  const auto *I = Init && Init->isSingleDecl()
                      ? dyn_cast<VarDecl>(Init->getSingleDecl())
                      : nullptr;
  if (!I || !I->getInit() || !isGlobalIndexX(Resolve(I->getInit())))
    return refuse("");
  const auto *Cond =
      dyn_cast_or_null<BinaryOperator>(Loop->getCond()->IgnoreParenImpCasts());
  if (!Cond || (Cond->getOpcode() != BO_LT && Cond->getOpcode() != BO_LE) ||
      !refersTo(Cond->getLHS(), I))
    return refuse("");
  const Expr *Step = nullptr;
  if (const auto *A = dyn_cast_or_null<CompoundAssignOperator>(Loop->getInc());
      A && A->getOpcode() == BO_AddAssign && refersTo(A->getLHS(), I))
    Step = A->getRHS();
  if (!Step || !isGridStrideX(Resolve(Step)))
    return refuse("");
  // From here on the kernel is a grid-stride loop: say why it is refused.
  std::string LoopAt = "the grid-stride loop at " +
                       where(Ctx, Loop->getBeginLoc());
  if (!isNeverModifiedAfterInit(I, Loop->getBody(), Ctx))
    return refuse(LoopAt + " changes its index '" + I->getNameAsString() +
                  "' in its body");
  class Exits : public RecursiveASTVisitor<Exits> {
  public:
    bool VisitStmt(Stmt *S) {
      if (!First && isa<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt>(S))
        First = S;
      return true;
    }
    const Stmt *First = nullptr;
  } X;
  X.TraverseStmt(const_cast<Stmt *>(Loop->getBody()));
  if (X.First)
    return refuse(LoopAt + " leaves an iteration early at " +
                  where(Ctx, X.First->getBeginLoc()) +
                  "; the bin function copies whole iterations");
  for (const LaunchSite &L : K.Launches)
    for (const Expr *E : {launchGridExpr(L), launchBlockExpr(L)}) {
      if (!E)
        continue;
      std::optional<Dim3> D = evaluateDim3(E, Ctx);
      bool OneD = D ? (*D)[1] == 1 && (*D)[2] == 1
                    : stripLaunchArgImplicit(E)->getType()->isIntegerType();
      if (!OneD)
        return refuse(LoopAt + " strides over x, and the launch at " +
                      where(Ctx, L.Call->getBeginLoc()) +
                      " may have more blocks or threads along y or z, which "
                      "would count an element twice");
    }
  ThreadMapping M;
  MappedIndex X0;
  X0.Var = I;
  X0.Bound = Cond->getRHS();
  X0.Inclusive = Cond->getOpcode() == BO_LE;
  M.Dims.push_back(X0);
  const Stmt *Body = Loop->getBody();
  if (const auto *CS = dyn_cast<CompoundStmt>(Body)) {
    for (const Stmt *S : CS->body())
      M.Body.push_back(S);
  } else {
    M.Body.push_back(Body);
  }
  if (M.Body.empty())
    return refuse(LoopAt + " does nothing");
  M.Region = Loop->getSourceRange();
  return M;
}

} // namespace

Expected<HistogramKernel> matchHistogramKernel(ASTContext &Ctx,
                                               const KernelInfo &K) {
  std::string Name = "kernel '" + K.name() + "'";
  if (const LaunchSite *L = firstLaunchOnStream(K, Ctx))
    return refuse("the launch at " + where(Ctx, L->Call->getBeginLoc()) +
                  " is on a stream; the rewrite counts on the default "
                  "stream");
  bool GridStride = false;
  Expected<BinnedAtomics> B = [&]() -> Expected<BinnedAtomics> {
    if (K.Decl->isDependentContext())
      return analyzeBinnedAtomics(Ctx, K, int64_t(1) << 30);
    Expected<ThreadMapping> GS = gridStrideMapping(Ctx, K);
    if (!GS) {
      std::string Why = toString(GS.takeError());
      if (!Why.empty())
        return refuse(Name + ": " + Why);
      return analyzeBinnedAtomics(Ctx, K, int64_t(1) << 30);
    }
    GridStride = true;
    return analyzeBinnedAtomicsIn(Ctx, K, std::move(*GS), int64_t(1) << 30);
  }();
  if (!B) {
    // The shared analysis speaks of privatize-atomics' copies; say what
    // matters to a histogram.
    std::string Why = toString(B.takeError());
    for (auto [From, To] :
         {std::pair<StringRef, StringRef>{
              ", so the array cannot be copied to shared memory",
              ", so the original may count outside the histogram"},
          {"; privatize-atomics needs the atomic updates to be the kernel's "
           "only effect outside the thread",
           "; a histogram's counts must be the kernel's only effect"},
          {"; a private copy would return another value",
           "; CUB's histogram returns none"},
          {"privatize-atomics", "cub-histogram"}}) {
      size_t At = Why.find(From.str());
      if (At != std::string::npos)
        Why.replace(At, From.size(), To.str());
    }
    return refuse(Why);
  }
  HistogramKernel H;
  H.Binned = std::move(*B);
  H.GridStride = GridStride;
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
  Collectives Wk;
  for (const Stmt *S : BA.Mapping.Body)
    Wk.TraverseStmt(const_cast<Stmt *>(S));
  for (const Expr *C : BA.Mapping.Conditions)
    Wk.TraverseStmt(const_cast<Expr *>(C));
  if (inLoop(Ctx, U.Call, K.Decl->getBody(),
             GridStride ? BA.Mapping.Region.getBegin() : SourceLocation()))
    return refuse("the atomic update at " + At + " is inside a loop: an "
                  "element may count into several bins");
  if (Wk.First)
    return refuse(Name + " calls '" +
                  Wk.First->getDirectCallee()->getNameAsString() + "' at " +
                  where(Ctx, Wk.First->getBeginLoc()) +
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
  {
    OuterLocals OL(Ctx.getSourceManager(), BA.Mapping.Body, X.Var);
    for (const Stmt *S : BA.Mapping.Body)
      OL.TraverseStmt(const_cast<Stmt *>(S));
    for (const Expr *C : BA.Mapping.Conditions)
      OL.TraverseStmt(const_cast<Expr *>(C));
    if (OL.First)
      return refuse(Name + " uses '" +
                    OL.First->getDecl()->getNameAsString() + "' at " +
                    where(Ctx, OL.First->getBeginLoc()) +
                    ", a local set before its per-element work; the bin "
                    "function copies that work only");
  }
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
