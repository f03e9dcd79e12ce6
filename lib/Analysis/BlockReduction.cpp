//===- BlockReduction.cpp - Kernels that reduce into one target ----------===//
//
// Part of cuda-opt.
//
// The recogniser is narrow on purpose: a rewrite that changes which thread
// folds which element into which partial is only legal when the kernel's
// only effect outside a thread is the reduction itself, the target is one
// address for the whole grid, and (for the tree) the tree really reduces
// the whole block. Everything else is refused with the reason.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/BlockReduction.h"
#include "cuda-opt/Analysis/IndexExprBuilder.h"
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

static std::string where(const ASTContext &Ctx, SourceLocation Loc) {
  return describeLocation(Ctx.getSourceManager(), Loc);
}

static std::string text(const ASTContext &Ctx, const Stmt *S) {
  return sourceText(Ctx, S->getSourceRange());
}

static const Expr *strip(const Expr *E) {
  return E ? E->IgnoreParenImpCasts() : nullptr;
}

static const VarDecl *varOf(const Expr *E) {
  const auto *DRE = dyn_cast_or_null<DeclRefExpr>(strip(E));
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

/// The references to \p V in \p S.
static unsigned countUses(const Stmt *S, const VarDecl *V) {
  class Uses : public RecursiveASTVisitor<Uses> {
  public:
    explicit Uses(const VarDecl *V) : V(V) {}
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      N += D->getDecl() == V;
      return true;
    }
    const VarDecl *V;
    unsigned N = 0;
  } U(V);
  U.TraverseStmt(const_cast<Stmt *>(S));
  return U.N;
}

//===----------------------------------------------------------------------===//
// CUDA built-in indices
//===----------------------------------------------------------------------===//

/// \p E is the built-in \p Name (`threadIdx`, `blockDim`, ...) along
/// \p Field, as the index analysis matches it.
static bool isBuiltin(const Expr *E, StringRef Name, char Field = 'x') {
  SymbolKind Kind;
  unsigned Dim = 0;
  if (!IndexExprBuilder::matchBuiltin(E->IgnoreParenCasts(), Kind, Dim))
    return false;
  StringRef N = Kind == SymbolKind::ThreadIdx  ? "threadIdx"
                : Kind == SymbolKind::BlockIdx ? "blockIdx"
                : Kind == SymbolKind::BlockDim ? "blockDim"
                                               : "gridDim";
  return N == Name && Dim == unsigned(Field - 'x');
}

bool isThreadIdxX(const Expr *E) { return isBuiltin(E, "threadIdx"); }

static bool isProductOf(const Expr *E, StringRef A, StringRef B) {
  const auto *Mul = dyn_cast<BinaryOperator>(E->IgnoreParenCasts());
  if (!Mul || Mul->getOpcode() != BO_Mul)
    return false;
  return (isBuiltin(Mul->getLHS(), A) && isBuiltin(Mul->getRHS(), B)) ||
         (isBuiltin(Mul->getLHS(), B) && isBuiltin(Mul->getRHS(), A));
}

bool isGlobalIndexX(const Expr *E) {
  const auto *Add = dyn_cast<BinaryOperator>(E->IgnoreParenCasts());
  if (!Add || Add->getOpcode() != BO_Add)
    return false;
  return (isThreadIdxX(Add->getRHS()) &&
          isProductOf(Add->getLHS(), "blockIdx", "blockDim")) ||
         (isThreadIdxX(Add->getLHS()) &&
          isProductOf(Add->getRHS(), "blockIdx", "blockDim"));
}

bool isGridStrideX(const Expr *E) {
  return isProductOf(E, "blockDim", "gridDim");
}

bool readsBuiltinIndex(const Stmt *S) {
  class Finder : public RecursiveASTVisitor<Finder> {
  public:
    bool VisitDeclRefExpr(DeclRefExpr *DRE) {
      StringRef N = DRE->getDecl()->getDeclName().isIdentifier()
                        ? DRE->getDecl()->getName()
                        : "";
      if (N == "threadIdx" || N == "blockIdx" || N == "blockDim" ||
          N == "gridDim")
        Found = true;
      return !Found;
    }
    bool Found = false;
  } F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Found;
}

//===----------------------------------------------------------------------===//
// Effects other threads can see
//===----------------------------------------------------------------------===//

namespace {
class EffectFinder : public RecursiveASTVisitor<EffectFinder> {
public:
  EffectFinder(ASTContext &Ctx, ArrayRef<const CallExpr *> Allowed,
               unsigned Depth)
      : Ctx(Ctx), Allowed(Allowed), Depth(Depth) {}

  bool TraverseLambdaExpr(LambdaExpr *) { return true; }

  /// A write to \p LHS that only this thread sees: a local variable.
  bool isLocal(const Expr *LHS) {
    const VarDecl *V = varOf(LHS);
    return V && V->hasLocalStorage() && !V->hasAttr<CUDASharedAttr>() &&
           !V->getType()->isReferenceType();
  }
  void found(const Twine &What, SourceLocation L) {
    if (Effect.empty())
      Effect = (What + " at " + where(Ctx, L)).str();
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp() && !isLocal(BO->getLHS()))
      found("writes '" + text(Ctx, BO->getLHS()) + "'", BO->getBeginLoc());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->isIncrementDecrementOp() && !isLocal(UO->getSubExpr()))
      found("writes '" + text(Ctx, UO->getSubExpr()) + "'", UO->getBeginLoc());
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    if (llvm::is_contained(Allowed, CE))
      return true;
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD) {
      found("makes an indirect call", CE->getBeginLoc());
      return true;
    }
    if (isa<CXXOperatorCallExpr>(CE)) {
      if (const auto *MD = dyn_cast<CXXMethodDecl>(FD); MD && !MD->isConst())
        found("calls the non-const operator '" + FD->getNameAsString() + "'",
              CE->getBeginLoc());
      return true;
    }
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD);
        MD && !MD->isConst() && !MD->isStatic()) {
      found("calls '" + FD->getNameAsString() + "'", CE->getBeginLoc());
      return true;
    }
    std::string Name = FD->getNameAsString();
    if (StringRef(Name).starts_with("atomic")) {
      found("performs " + Name, CE->getBeginLoc());
      return true;
    }
    const SourceManager &SM = Ctx.getSourceManager();
    bool Toolkit =
        !SM.isWrittenInMainFile(SM.getExpansionLoc(FD->getLocation()));
    if (Toolkit) {
      // Math and load intrinsics: a result, no effect. Anything that returns
      // nothing or takes a pointer (printf, memcpy, __threadfence) is an
      // effect, except the read-only cache loads.
      bool Load = StringRef(Name).starts_with("__ld");
      bool PointerArg = false;
      for (const Expr *A : CE->arguments())
        if (A->getType()->isPointerType())
          PointerArg = true;
      if (FD->getReturnType()->isVoidType() || (PointerArg && !Load))
        found("calls '" + Name + "'", CE->getBeginLoc());
      return true;
    }
    const FunctionDecl *Def = FD->getDefinition();
    if (!Def || !Def->getBody() || Depth > 3) {
      found("calls '" + Name + "', whose body is not analysed",
            CE->getBeginLoc());
      return true;
    }
    EffectFinder Inner(Ctx, {}, Depth + 1);
    Inner.TraverseStmt(Def->getBody());
    if (!Inner.Effect.empty())
      found("calls '" + Name + "', which " + Inner.Effect, CE->getBeginLoc());
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    if (VD->hasAttr<CUDASharedAttr>() || VD->isStaticLocal())
      found("declares the block-wide variable '" + VD->getNameAsString() +
                "'",
            VD->getLocation());
    return true;
  }

  ASTContext &Ctx;
  ArrayRef<const CallExpr *> Allowed;
  unsigned Depth;
  std::string Effect;
};

/// Every call in a statement.
class CallCollector : public RecursiveASTVisitor<CallCollector> {
public:
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitCallExpr(CallExpr *CE) {
    Calls.push_back(CE);
    return true;
  }
  SmallVector<const CallExpr *, 8> Calls;
};
} // namespace

std::string findOtherEffect(ASTContext &Ctx, const Stmt *S,
                            ArrayRef<const CallExpr *> Allowed) {
  EffectFinder F(Ctx, Allowed, 0);
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.Effect;
}

//===----------------------------------------------------------------------===//
// The update of the target
//===----------------------------------------------------------------------===//

/// The single atomic update in \p Stmts, its target proven grid-uniform and
/// its old value unused.
static Expected<AtomicUpdate> theUpdate(ASTContext &Ctx, const KernelInfo &K,
                                        ArrayRef<const Stmt *> Stmts) {
  CallCollector C;
  for (const Stmt *S : Stmts)
    C.TraverseStmt(const_cast<Stmt *>(S));
  std::optional<AtomicUpdate> Found;
  for (const CallExpr *CE : C.Calls) {
    bool IsAtomic = false;
    Expected<AtomicUpdate> U = matchAtomicUpdate(Ctx, CE, IsAtomic);
    if (!IsAtomic) {
      consumeError(U.takeError());
      continue;
    }
    if (!U)
      return refuse("the atomic operation at " +
                    where(Ctx, CE->getBeginLoc()) + " cannot be folded: " +
                    toString(U.takeError()));
    if (Found)
      return refuse("kernel '" + K.name() + "' updates memory atomically at " +
                    where(Ctx, Found->Call->getBeginLoc()) + " and at " +
                    where(Ctx, CE->getBeginLoc()) +
                    "; block-reduce folds a single reduction");
    Found = *U;
  }
  if (!Found)
    return refuse("kernel '" + K.name() +
                  "' has no atomic update to fold (atomicAdd, atomicMax, ... "
                  "or a compare-and-swap helper)");
  AtomicUpdate U = *Found;
  if (!isResultUnused(Ctx, U.Call))
    return refuse("the old value returned by the atomic update at " +
                  where(Ctx, U.Call->getBeginLoc()) +
                  " is used, so the updates cannot be folded together");
  std::string Why;
  if (!isGridUniform(Ctx, U.Address, K.Decl, Why))
    return refuse(
        "the atomic update at " + where(Ctx, U.Call->getBeginLoc()) +
        " targets '" + text(Ctx, U.Address) + "', which " + Why +
        ", so it is not one address for the whole grid and the blocks' "
        "partial results cannot be folded together");
  if (!identityText(Ctx, U.Op, U.ElementType))
    return refuse("block-reduce has no identity for the " +
                  combineOpName(U.Op).str() + " of '" +
                  U.ElementType.getAsString() + "'");
  return U;
}

/// The update is re-issued once per block after the per-element work, so
/// every local its address reads must be declared before \p Begin.
static Error addressInScopeAfter(ASTContext &Ctx, const AtomicUpdate &U,
                                 SourceLocation Begin) {
  class Locals : public RecursiveASTVisitor<Locals> {
  public:
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl());
          V && V->hasLocalStorage() && !isa<ParmVarDecl>(V))
        Vars.push_back(V);
      return true;
    }
    SmallVector<const VarDecl *, 4> Vars;
  } L;
  L.TraverseStmt(const_cast<Expr *>(U.Address));
  const SourceManager &SM = Ctx.getSourceManager();
  for (const VarDecl *V : L.Vars)
    if (!SM.isBeforeInTranslationUnit(V->getLocation(), Begin))
      return refuse("the target '" + text(Ctx, U.Address) + "' of the update at " +
                    where(Ctx, U.Call->getBeginLoc()) + " uses '" +
                    V->getNameAsString() +
                    "', which is declared inside the per-element work");
  return Error::success();
}

//===----------------------------------------------------------------------===//
// The per-element and grid-stride shapes
//===----------------------------------------------------------------------===//

/// The single statement whose only effect is the update, and the common
/// checks of the per-element work.
static Error checkElementWork(ASTContext &Ctx, const KernelInfo &K,
                              ArrayRef<const Stmt *> Work,
                              const AtomicUpdate &U) {
  for (const Stmt *S : Work) {
    std::string Effect = findOtherEffect(Ctx, S, {U.Call});
    if (!Effect.empty())
      return refuse("kernel '" + K.name() + "' " + Effect +
                    "; block-reduce needs the atomic update to be the "
                    "kernel's only effect outside the thread");
  }
  return Error::success();
}

static Expected<BlockReduction> analyzeElementAtomic(ASTContext &Ctx,
                                                     const KernelInfo &K) {
  const auto *Body = cast<CompoundStmt>(K.Decl->getBody());
  Expected<AtomicUpdate> U = theUpdate(Ctx, K, {Body});
  if (!U)
    return U.takeError();
  Expected<ThreadMapping> M = analyzeLoopableMapping(Ctx, K, "block-reduce",
                             GuardConditions::Allow);
  if (!M)
    return M.takeError();
  if (Error E = checkElementWork(Ctx, K, M->Body, *U))
    return std::move(E);
  if (Error E = addressInScopeAfter(Ctx, *U, M->Region.getBegin()))
    return std::move(E);
  Expected<SmallVector<LaunchShape, 4>> L = analyzeLaunches(Ctx, K, *M);
  if (!L)
    return L.takeError();
  BlockReduction R;
  R.Form = BlockReduction::Shape::ElementAtomic;
  R.Op = U->Op;
  R.Type = U->ElementType;
  R.Update = *U;
  R.Mapping = std::move(*M);
  R.Identity = *identityText(Ctx, U->Op, U->ElementType);
  R.Launches = std::move(*L);
  return R;
}

/// `for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i +=
/// blockDim.x * gridDim.x)`: the loop variable and its bound.
static bool matchGridStrideLoop(const ForStmt *For, MappedIndex &I) {
  const auto *DS = dyn_cast_or_null<DeclStmt>(For->getInit());
  if (!DS || !DS->isSingleDecl())
    return false;
  const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!V || !V->getType()->isIntegerType() || !V->getInit() ||
      !isGlobalIndexX(V->getInit()))
    return false;
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(strip(For->getCond()));
  if (!Cond || Cond->getOpcode() != BO_LT || varOf(Cond->getLHS()) != V)
    return false;
  const auto *Inc = dyn_cast_or_null<CompoundAssignOperator>(For->getInc());
  if (!Inc || Inc->getOpcode() != BO_AddAssign ||
      varOf(Inc->getLHS()) != V || !isGridStrideX(Inc->getRHS()))
    return false;
  I.Var = V;
  I.Decl = DS;
  I.Bound = Cond->getRHS();
  return true;
}

static Expected<BlockReduction> analyzeGridStride(ASTContext &Ctx,
                                                  const KernelInfo &K,
                                                  const ForStmt *For) {
  const auto *Body = cast<CompoundStmt>(K.Decl->getBody());
  MappedIndex I;
  matchGridStrideLoop(For, I);
  for (const Stmt *S : Body->body()) {
    if (S == For || isa<NullStmt>(S))
      continue;
    const auto *DS = dyn_cast<DeclStmt>(S);
    bool Pure = DS && !readsBuiltinIndex(S);
    if (DS)
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D);
            !VD || !VD->hasLocalStorage() || VD->hasAttr<CUDASharedAttr>() ||
            (VD->getInit() &&
             !findOtherEffect(Ctx, VD->getInit(), {}).empty()))
          Pure = false;
    if (!Pure)
      return refuse("the statement at " + where(Ctx, S->getBeginLoc()) +
                    " sits beside the grid-stride loop; block-reduce expects "
                    "the loop to be the kernel's only work");
  }
  Expected<AtomicUpdate> U = theUpdate(Ctx, K, {For->getBody()});
  if (!U)
    return U.takeError();
  if (Error E = checkElementWork(Ctx, K, {For->getBody()}, *U))
    return std::move(E);
  if (readsBuiltinIndex(For->getBody()))
    return refuse("the body of the grid-stride loop at " +
                  where(Ctx, For->getBeginLoc()) +
                  " reads a thread or block index; only the loop index may "
                  "depend on the thread");
  if (Error E = addressInScopeAfter(Ctx, *U, For->getBeginLoc()))
    return std::move(E);
  {
    class Returns : public RecursiveASTVisitor<Returns> {
    public:
      bool TraverseLambdaExpr(LambdaExpr *) { return true; }
      bool VisitReturnStmt(ReturnStmt *RS) {
        if (!First)
          First = RS;
        return true;
      }
      const ReturnStmt *First = nullptr;
    } Ret;
    Ret.TraverseStmt(const_cast<Stmt *>(For->getBody()));
    if (Ret.First)
      return refuse("the grid-stride loop returns at " +
                    where(Ctx, Ret.First->getBeginLoc()) +
                    ", which would skip the block's combined update");
  }
  if (!isNeverModifiedAfterInit(I.Var, For->getBody(), Ctx))
    return refuse("the grid-stride loop at " + where(Ctx, For->getBeginLoc()) +
                  " changes its index '" + I.Var->getNameAsString() +
                  "' in its body");
  // The reduction runs in every thread of a 1-D block: the launches must be
  // here to show the blocks are 1-D.
  if (K.Launches.empty())
    return refuse("kernel '" + K.name() +
                  "' is not launched in this file, so cuda-opt cannot check "
                  "that its blocks are one-dimensional");
  for (const LaunchSite &L : K.Launches) {
    const Expr *B = launchBlockExpr(L);
    const Expr *S = B ? stripLaunchArgImplicit(B) : nullptr;
    if (S && S->getType()->isIntegerType())
      continue;
    std::optional<Dim3> D = B ? evaluateDim3(B, Ctx) : std::nullopt;
    if (!D || (*D)[1] != 1 || (*D)[2] != 1)
      return refuse("the block of the launch at " +
                    where(Ctx, L.Call->getBeginLoc()) +
                    " is not known to be one-dimensional");
  }
  BlockReduction R;
  R.Form = BlockReduction::Shape::GridStride;
  R.Op = U->Op;
  R.Type = U->ElementType;
  R.Update = *U;
  R.Mapping.Dims.push_back(I);
  R.Mapping.Body.push_back(For->getBody());
  R.Mapping.Region = For->getSourceRange();
  R.Loop = For;
  R.Identity = *identityText(Ctx, U->Op, U->ElementType);
  return R;
}

//===----------------------------------------------------------------------===//
// The shared-memory tree
//===----------------------------------------------------------------------===//

static bool isSync(const Stmt *S) {
  const auto *CE = dyn_cast_or_null<CallExpr>(S);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  return FD && FD->getDeclName().isIdentifier() &&
         FD->getName() == "__syncthreads" && CE->getNumArgs() == 0;
}

/// The statements of a block, or the statement itself.
static SmallVector<const Stmt *, 4> stmtsOf(const Stmt *S) {
  SmallVector<const Stmt *, 4> Out;
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    for (const Stmt *C : CS->body())
      if (!isa<NullStmt>(C))
        Out.push_back(C);
    return Out;
  }
  Out.push_back(S);
  return Out;
}

/// `threadIdx.x` or a local initialised to it and never changed.
static bool isTid(ASTContext &Ctx, const Expr *E, const Stmt *Scope) {
  if (isThreadIdxX(E))
    return true;
  const VarDecl *V = varOf(E);
  return V && V->hasLocalStorage() && V->getInit() &&
         isThreadIdxX(V->getInit()) && isNeverModifiedAfterInit(V, Scope, Ctx);
}

/// `sh[tid]`.
static bool isSlot(ASTContext &Ctx, const Expr *E, const VarDecl *Sh,
                   const Stmt *Scope) {
  const auto *AS = dyn_cast<ArraySubscriptExpr>(strip(E));
  return AS && varOf(AS->getBase()) == Sh && isTid(Ctx, AS->getIdx(), Scope);
}

/// `sh[tid + s]`.
static bool isPartnerSlot(ASTContext &Ctx, const Expr *E, const VarDecl *Sh,
                          const VarDecl *S, const Stmt *Scope) {
  const auto *AS = dyn_cast<ArraySubscriptExpr>(strip(E));
  if (!AS || varOf(AS->getBase()) != Sh)
    return false;
  const auto *Add = dyn_cast<BinaryOperator>(strip(AS->getIdx()));
  return Add && Add->getOpcode() == BO_Add &&
         ((isTid(Ctx, Add->getLHS(), Scope) && varOf(Add->getRHS()) == S) ||
          (isTid(Ctx, Add->getRHS(), Scope) && varOf(Add->getLHS()) == S));
}

/// The combine of one tree step `sh[tid] OP= sh[tid + s]`,
/// `sh[tid] = sh[tid] OP sh[tid + s]` or `sh[tid] = f(sh[tid], sh[tid + s])`.
static std::optional<CombineOp> treeStep(ASTContext &Ctx, const Stmt *St,
                                         const VarDecl *Sh, const VarDecl *S,
                                         const Stmt *Scope) {
  const auto *BO = dyn_cast_or_null<BinaryOperator>(St);
  if (!BO || !isSlot(Ctx, BO->getLHS(), Sh, Scope))
    return std::nullopt;
  auto OpOf = [](BinaryOperatorKind K) -> std::optional<CombineOp> {
    switch (K) {
    case BO_Add: case BO_AddAssign: return CombineOp::Sum;
    case BO_Mul: case BO_MulAssign: return CombineOp::Product;
    case BO_And: case BO_AndAssign: return CombineOp::And;
    case BO_Or: case BO_OrAssign: return CombineOp::Or;
    case BO_Xor: case BO_XorAssign: return CombineOp::Xor;
    default: return std::nullopt;
    }
  };
  if (BO->isCompoundAssignmentOp())
    return isPartnerSlot(Ctx, BO->getRHS(), Sh, S, Scope)
               ? OpOf(BO->getOpcode())
               : std::nullopt;
  if (BO->getOpcode() != BO_Assign)
    return std::nullopt;
  const Expr *R = strip(BO->getRHS());
  const Expr *A = nullptr, *B = nullptr;
  std::optional<CombineOp> Op;
  if (const auto *Bin = dyn_cast<BinaryOperator>(R)) {
    Op = OpOf(Bin->getOpcode());
    A = Bin->getLHS();
    B = Bin->getRHS();
  } else if (const auto *CE = dyn_cast<CallExpr>(R);
             CE && CE->getNumArgs() == 2 && CE->getDirectCallee()) {
    StringRef N = CE->getDirectCallee()->getName();
    if (N == "fmaxf" || N == "fmax" || N == "max")
      Op = CombineOp::Max;
    else if (N == "fminf" || N == "fmin" || N == "min")
      Op = CombineOp::Min;
    A = CE->getArg(0);
    B = CE->getArg(1);
  }
  if (!Op)
    return std::nullopt;
  if ((isSlot(Ctx, A, Sh, Scope) && isPartnerSlot(Ctx, B, Sh, S, Scope)) ||
      (isSlot(Ctx, B, Sh, Scope) && isPartnerSlot(Ctx, A, Sh, S, Scope)))
    return Op;
  return std::nullopt;
}

/// Whether constant \p V (of type \p T) is an identity of \p Op: exactly, or
/// the extreme finite value a program uses for max/min (-FLT_MAX).
static bool isIdentityValue(ASTContext &Ctx, CombineOp Op, QualType T,
                            const Expr *V) {
  if (T->isRealFloatingType()) {
    llvm::APFloat F(0.0);
    if (!V->EvaluateAsFloat(F, Ctx)) {
      Expr::EvalResult R;
      if (!V->EvaluateAsInt(R, Ctx))
        return false;
      F = llvm::APFloat(double(R.Val.getInt().getExtValue()));
    }
    bool Double = T->isSpecificBuiltinType(BuiltinType::Double);
    bool LosesInfo = false;
    F.convert(Double ? APFloat::IEEEdouble() : APFloat::IEEEsingle(),
              APFloat::rmNearestTiesToEven, &LosesInfo);
    const fltSemantics &Sem =
        Double ? APFloat::IEEEdouble() : APFloat::IEEEsingle();
    switch (Op) {
    case CombineOp::Sum: return F.isZero();
    case CombineOp::Product: return F.isExactlyValue(1.0);
    case CombineOp::Max:
      return (F.isInfinity() && F.isNegative()) ||
             F.bitwiseIsEqual(APFloat::getLargest(Sem, /*Negative=*/true));
    case CombineOp::Min:
      return (F.isInfinity() && !F.isNegative()) ||
             F.bitwiseIsEqual(APFloat::getLargest(Sem, /*Negative=*/false));
    default: return false;
    }
  }
  Expr::EvalResult R;
  if (!V->EvaluateAsInt(R, Ctx))
    return false;
  unsigned Bits = Ctx.getTypeSize(T);
  bool Signed = T->isSignedIntegerType();
  APSInt X = R.Val.getInt().extOrTrunc(Bits);
  X.setIsSigned(Signed);
  switch (Op) {
  case CombineOp::Sum:
  case CombineOp::Or:
  case CombineOp::Xor: return X.isZero();
  case CombineOp::Product: return X.isOne();
  case CombineOp::And: return X.isAllOnes();
  case CombineOp::Max: return Signed ? X.isMinSignedValue() : X.isZero();
  case CombineOp::Min: return Signed ? X.isMaxSignedValue() : X.isAllOnes();
  }
  return false;
}

static Expected<BlockReduction> analyzeTree(ASTContext &Ctx,
                                            const KernelInfo &K) {
  const auto *Body = cast<CompoundStmt>(K.Decl->getBody());
  std::string Name = K.name();
  auto NotTree = [&](const Stmt *S, const Twine &Why) {
    return refuse("kernel '" + Name + "' uses shared memory or " +
                  "__syncthreads but is not the classic block tree "
                  "(fill, __syncthreads, 'for (s = blockDim.x / 2; s > 0; s "
                  ">>= 1)' halving loop, one atomic update by thread 0): " +
                  Why + (S ? " at " + where(Ctx, S->getBeginLoc()) : ""));
  };
  SmallVector<const Stmt *, 8> Stmts;
  for (const Stmt *S : Body->body())
    if (!isa<NullStmt>(S))
      Stmts.push_back(S);

  // Leading declarations: the shared array, the index, pure locals.
  BlockReduction R;
  R.Form = BlockReduction::Shape::SharedTree;
  const VarDecl *Sh = nullptr;
  MappedIndex I;
  size_t Pos = 0;
  for (; Pos < Stmts.size(); ++Pos) {
    const auto *DS = dyn_cast<DeclStmt>(Stmts[Pos]);
    if (!DS)
      break;
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD)
        return NotTree(DS, "a declaration that is not a variable");
      if (VD->hasAttr<CUDASharedAttr>()) {
        if (Sh)
          return NotTree(DS, "a second shared array");
        if (!DS->isSingleDecl())
          return NotTree(DS, "the shared array is declared with others");
        const auto *AT = Ctx.getAsConstantArrayType(VD->getType());
        if (!AT || !isShuffleType(Ctx, AT->getElementType()))
          return NotTree(DS, "the shared variable is not an array of int, "
                             "unsigned, long long, float or double");
        Sh = VD;
        R.Removed.push_back(DS);
        continue;
      }
      if (VD->getInit() && isGlobalIndexX(VD->getInit()) &&
          VD->getType()->isIntegerType() && !I.Var) {
        if (!DS->isSingleDecl())
          return NotTree(DS, "the index is declared with other variables");
        if (!isNeverModifiedAfterInit(VD, Body, Ctx))
          return refuse("kernel '" + Name + "' modifies its index '" +
                        VD->getNameAsString() + "'");
        I.Var = VD;
        I.Decl = DS;
        R.Removed.push_back(DS);
        continue;
      }
      if (!VD->hasLocalStorage() ||
          (VD->getInit() && !findOtherEffect(Ctx, VD->getInit(), {}).empty()))
        return NotTree(DS, "a declaration with side effects");
    }
  }
  if (!Sh)
    return NotTree(nullptr, "no __shared__ array is declared first");
  if (!I.Var)
    return NotTree(nullptr, "no index 'int i = blockIdx.x * blockDim.x + "
                            "threadIdx.x;' is declared before the fill");
  if (Stmts.size() - Pos != 4)
    return NotTree(Pos < Stmts.size() ? Stmts[Pos] : nullptr,
                   "expected exactly four statements after the declarations "
                   "(fill, __syncthreads, loop, final update), found " +
                       Twine(Stmts.size() - Pos));
  const Stmt *Fill = Stmts[Pos], *Sync = Stmts[Pos + 1],
             *LoopS = Stmts[Pos + 2], *Final = Stmts[Pos + 3];
  QualType T = Ctx.getAsConstantArrayType(Sh->getType())->getElementType()
                   .getUnqualifiedType();

  // The fill: `sh[tid] = i < n ? e : id;` or the if/else form.
  const Expr *Cond = nullptr, *Elem = nullptr, *Id = nullptr;
  if (const auto *BO = dyn_cast<BinaryOperator>(Fill);
      BO && BO->getOpcode() == BO_Assign && isSlot(Ctx, BO->getLHS(), Sh, Body))
    if (const auto *CO = dyn_cast<ConditionalOperator>(strip(BO->getRHS()))) {
      Cond = CO->getCond();
      Elem = CO->getTrueExpr();
      Id = CO->getFalseExpr();
    }
  if (const auto *If = dyn_cast<IfStmt>(Fill); If && If->getElse()) {
    auto Store = [&](const Stmt *S) -> const Expr * {
      SmallVector<const Stmt *, 4> In = stmtsOf(S);
      const auto *BO = In.size() == 1 ? dyn_cast<BinaryOperator>(In[0]) : nullptr;
      if (BO && BO->getOpcode() == BO_Assign &&
          isSlot(Ctx, BO->getLHS(), Sh, Body))
        return BO->getRHS();
      return nullptr;
    };
    Cond = If->getCond();
    Elem = Store(If->getThen());
    Id = Store(If->getElse());
  }
  if (!Cond || !Elem || !Id)
    return NotTree(Fill, "the shared array is not filled with 'sh[tid] = i < n "
                         "? e(i) : identity'");
  const auto *Guard = dyn_cast<BinaryOperator>(strip(Cond));
  if (!Guard || Guard->getOpcode() != BO_LT || varOf(Guard->getLHS()) != I.Var)
    return NotTree(Fill, "the fill's condition is not 'i < n'");
  I.Bound = Guard->getRHS();
  if (readsBuiltinIndex(I.Bound) || I.Bound->HasSideEffects(Ctx))
    return NotTree(Fill, "the bound of the fill is not a plain value");
  if (readsBuiltinIndex(Elem))
    return refuse("the element '" + text(Ctx, Elem) + "' of kernel '" + Name +
                  "' reads a thread or block index; only the index may "
                  "depend on the thread");
  {
    std::string Effect = findOtherEffect(Ctx, Elem, {});
    if (!Effect.empty())
      return refuse("the element '" + text(Ctx, Elem) + "' of kernel '" +
                    Name + "' " + Effect);
    class ShUse : public RecursiveASTVisitor<ShUse> {
    public:
      bool VisitDeclRefExpr(DeclRefExpr *D) {
        if (const auto *V = dyn_cast<VarDecl>(D->getDecl());
            V && V->hasAttr<CUDASharedAttr>())
          Found = true;
        return true;
      }
      bool Found = false;
    } U;
    U.TraverseStmt(const_cast<Expr *>(Elem));
    if (U.Found)
      return NotTree(Fill, "the element reads shared memory");
  }

  if (!isSync(Sync))
    return NotTree(Sync, "the fill is not followed by __syncthreads()");

  // The halving loop.
  const auto *For = dyn_cast<ForStmt>(LoopS);
  if (!For)
    return NotTree(LoopS, "the third statement is not the halving loop");
  const auto *SInit = dyn_cast_or_null<DeclStmt>(For->getInit());
  const VarDecl *S = SInit && SInit->isSingleDecl()
                         ? dyn_cast<VarDecl>(SInit->getSingleDecl())
                         : nullptr;
  if (!S || !S->getInit())
    return NotTree(For, "the loop does not declare its stride");
  std::optional<int64_t> StartConst;
  {
    const auto *D = dyn_cast<BinaryOperator>(strip(S->getInit()));
    Expr::EvalResult ER;
    bool FromBlock = D && isBuiltin(D->getLHS(), "blockDim") &&
                     D->getRHS()->EvaluateAsInt(ER, Ctx) &&
                     ((D->getOpcode() == BO_Div && ER.Val.getInt() == 2) ||
                      (D->getOpcode() == BO_Shr && ER.Val.getInt() == 1));
    if (!FromBlock) {
      if (!S->getInit()->EvaluateAsInt(ER, Ctx))
        return NotTree(For, "the stride does not start at blockDim.x / 2");
      StartConst = ER.Val.getInt().getExtValue();
    }
  }
  const auto *LC = dyn_cast_or_null<BinaryOperator>(strip(For->getCond()));
  bool CondOk = false;
  if (LC) {
    Expr::EvalResult ER;
    if (varOf(LC->getLHS()) == S && LC->getRHS()->EvaluateAsInt(ER, Ctx))
      CondOk = (LC->getOpcode() == BO_GT && ER.Val.getInt() == 0) ||
               (LC->getOpcode() == BO_GE && ER.Val.getInt() == 1) ||
               (LC->getOpcode() == BO_NE && ER.Val.getInt() == 0);
  }
  if (!CondOk)
    return NotTree(For, "the loop condition is not 's > 0'");
  bool IncOk = false;
  if (const auto *Inc = dyn_cast_or_null<BinaryOperator>(For->getInc());
      Inc && varOf(Inc->getLHS()) == S) {
    Expr::EvalResult ER;
    if (Inc->isCompoundAssignmentOp() && Inc->getRHS()->EvaluateAsInt(ER, Ctx))
      IncOk = (Inc->getOpcode() == BO_ShrAssign && ER.Val.getInt() == 1) ||
              (Inc->getOpcode() == BO_DivAssign && ER.Val.getInt() == 2);
    else if (Inc->getOpcode() == BO_Assign)
      if (const auto *H = dyn_cast<BinaryOperator>(strip(Inc->getRHS()));
          H && varOf(H->getLHS()) == S && H->getRHS()->EvaluateAsInt(ER, Ctx))
        IncOk = (H->getOpcode() == BO_Shr && ER.Val.getInt() == 1) ||
                (H->getOpcode() == BO_Div && ER.Val.getInt() == 2);
  }
  if (!IncOk)
    return NotTree(For, "the loop does not halve its stride");
  SmallVector<const Stmt *, 4> LoopBody = stmtsOf(For->getBody());
  if (LoopBody.size() != 2 || !isSync(LoopBody[1]))
    return NotTree(For, "the loop body is not 'if (tid < s) combine; "
                        "__syncthreads();'");
  const auto *Step = dyn_cast<IfStmt>(LoopBody[0]);
  const auto *StepCond =
      Step ? dyn_cast<BinaryOperator>(strip(Step->getCond())) : nullptr;
  if (!Step || Step->getElse() || !StepCond ||
      StepCond->getOpcode() != BO_LT || !isTid(Ctx, StepCond->getLHS(), Body) ||
      varOf(StepCond->getRHS()) != S)
    return NotTree(LoopBody[0], "the tree step is not guarded by 'tid < s'");
  SmallVector<const Stmt *, 4> StepBody = stmtsOf(Step->getThen());
  std::optional<CombineOp> Op =
      StepBody.size() == 1 ? treeStep(Ctx, StepBody[0], Sh, S, Body)
                           : std::nullopt;
  if (!Op)
    return NotTree(Step->getThen(),
                   "the tree step is not 'sh[tid] OP= sh[tid + s]' or 'sh[tid] "
                   "= f(sh[tid], sh[tid + s])' with f max/min");

  // The final update by thread 0.
  const auto *Last = dyn_cast<IfStmt>(Final);
  const auto *LastCond =
      Last ? dyn_cast<BinaryOperator>(strip(Last->getCond())) : nullptr;
  Expr::EvalResult Zero;
  if (!Last || Last->getElse() || !LastCond ||
      LastCond->getOpcode() != BO_EQ || !isTid(Ctx, LastCond->getLHS(), Body) ||
      !LastCond->getRHS()->EvaluateAsInt(Zero, Ctx) ||
      !Zero.Val.getInt().isZero())
    return NotTree(Final, "the block's result is not used by 'if (tid == 0)'");
  SmallVector<const Stmt *, 4> LastBody = stmtsOf(Last->getThen());
  const auto *Call =
      LastBody.size() == 1 ? dyn_cast<CallExpr>(LastBody[0]) : nullptr;
  if (!Call) {
    if (LastBody.size() == 1 && isa<BinaryOperator>(LastBody[0]))
      return refuse("kernel '" + Name + "' stores one partial result per "
                    "block at " + where(Ctx, LastBody[0]->getBeginLoc()) +
                    "; the host reads one per block, so the grid cannot "
                    "shrink (block-reduce needs an atomic update of one "
                    "target)");
    return NotTree(Final, "thread 0 does not make one atomic update");
  }
  Expected<AtomicUpdate> U = theUpdate(Ctx, K, {Final});
  if (!U)
    return U.takeError();
  const auto *V = dyn_cast<ArraySubscriptExpr>(strip(U->Value));
  Expr::EvalResult VI;
  if (!V || varOf(V->getBase()) != Sh || !V->getIdx()->EvaluateAsInt(VI, Ctx) ||
      !VI.Val.getInt().isZero())
    return NotTree(Final, "thread 0 does not update the target with sh[0]");
  if (U->Op != *Op)
    return refuse("kernel '" + Name + "' combines each block with a " +
                  combineOpName(*Op) + " but folds the blocks into the "
                  "target with a " + combineOpName(U->Op) +
                  ", so the blocks of a shrunk grid cannot be combined first");
  if (U->Address && readsBuiltinIndex(U->Address))
    return refuse("the target of the update at " +
                  where(Ctx, Call->getBeginLoc()) + " depends on the block");
  if (!isIdentityValue(Ctx, *Op, T, Id))
    return refuse("out-of-range threads of kernel '" + Name +
                  "' fill the tree with '" + text(Ctx, Id) +
                  "', which is not an identity of the " +
                  combineOpName(*Op) + "; folding several blocks' elements "
                  "into one would change the result");
  // Every use of the array is in the pattern: the fill, the step, the final.
  {
    unsigned N = countUses(Body, Sh);
    // Fill: 1 (ternary) or 2 (if/else); step: 3 (x = f(x, y)) or 2 (x OP= y);
    // final: 1.
    unsigned FillUses = isa<IfStmt>(Fill) ? 2 : 1;
    unsigned StepUses =
        cast<BinaryOperator>(StepBody[0])->isCompoundAssignmentOp() ? 2 : 3;
    if (N != FillUses + StepUses + 1)
      return NotTree(nullptr, "the shared array '" + Sh->getNameAsString() +
                                  "' is used outside the tree");
  }

  // The index is only read by the fill; the rewrite declares its own.
  {
    if (countUses(Body, I.Var) != countUses(Fill, I.Var))
      return NotTree(nullptr, "the index '" + I.Var->getNameAsString() +
                                  "' is used outside the fill");
  }
  // Declarations only the tree reads (`int tid = threadIdx.x;`) go too.
  for (size_t K = 0; K < Pos; ++K) {
    const auto *DS = cast<DeclStmt>(Stmts[K]);
    const auto *VD = DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl())
                                        : nullptr;
    if (!VD || VD == I.Var || VD == Sh)
      continue;
    unsigned InTree = countUses(DS, VD);
    for (const Stmt *S : {Fill, Sync, LoopS, Final})
      InTree += countUses(S, VD);
    if (countUses(Body, VD) == InTree &&
        (!VD->getInit() || isThreadIdxX(VD->getInit())))
      R.Removed.push_back(DS);
  }
  I.Axis = 0;
  R.Mapping.Dims.push_back(I);
  R.Mapping.Region = SourceRange(Fill->getBeginLoc(), stmtEnd(Ctx, Final));
  Expected<SmallVector<LaunchShape, 4>> L = analyzeLaunches(Ctx, K, R.Mapping);
  if (!L)
    return L.takeError();
  uint64_t Extent =
      Ctx.getAsConstantArrayType(Sh->getType())->getSize().getZExtValue();
  for (const LaunchShape &LS : *L) {
    std::string At = where(Ctx, LS.Site->Call->getBeginLoc());
    std::optional<int64_t> B = LS.BlockValue.front();
    if (!B)
      return refuse("the block size of the launch at " + At +
                    " is not a compile-time constant; the tree reduces the "
                    "whole block only for a power-of-two block size");
    if (*B <= 0 || (*B & (*B - 1)) != 0 || *B > 1024)
      return refuse("the launch at " + At + " uses blocks of " +
                    Twine(*B).str() + " threads; the tree reduces the whole "
                    "block only for a power of two, so the original drops "
                    "elements that the rewrite would keep");
    if (uint64_t(*B) > Extent)
      return refuse("the launch at " + At + " uses blocks of " +
                    Twine(*B).str() + " threads but the shared array '" +
                    Sh->getNameAsString() + "' has " + Twine(Extent).str() +
                    " elements");
    if (StartConst && *StartConst * 2 != *B)
      return refuse("the tree's stride starts at " + Twine(*StartConst).str() +
                    " but the launch at " + At + " uses blocks of " +
                    Twine(*B).str() + " threads");
  }
  R.Op = *Op;
  R.Type = T;
  R.Update = *U;
  R.Element = Elem;
  R.Identity = text(Ctx, Id);
  R.Launches = std::move(*L);
  return R;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

Expected<BlockReduction> analyzeBlockReduction(ASTContext &Ctx,
                                               const KernelInfo &K) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(K.Decl->getBody());
  if (!Body)
    return refuse("kernel '" + K.name() + "' has no body");
  if (inMacro(Body->getSourceRange()))
    return refuse("kernel '" + K.name() +
                  "' is written inside a macro; cuda-opt does not edit macro "
                  "expansions");
  if (K.Decl->isDependentContext())
    return refuse("kernel '" + K.name() + "' is a template; block-reduce "
                  "needs the accumulator's type");
  bool Shared = false, Sync = false;
  class Scan : public RecursiveASTVisitor<Scan> {
  public:
    bool VisitVarDecl(VarDecl *VD) {
      Shared |= VD->hasAttr<CUDASharedAttr>();
      return true;
    }
    bool VisitCallExpr(CallExpr *CE) {
      Sync |= isSync(CE);
      return true;
    }
    bool Shared = false, Sync = false;
  } S;
  S.TraverseStmt(const_cast<CompoundStmt *>(Body));
  Shared = S.Shared;
  Sync = S.Sync;
  if (Shared || Sync)
    return analyzeTree(Ctx, K);
  for (const Stmt *St : Body->body())
    if (const auto *For = dyn_cast<ForStmt>(St)) {
      MappedIndex I;
      if (matchGridStrideLoop(For, I))
        return analyzeGridStride(Ctx, K, For);
    }
  return analyzeElementAtomic(Ctx, K);
}

} // namespace cuda_opt
