//===- ThreadMapping.cpp - How a kernel maps threads to elements ---------===//
//
// Part of cuda-opt.
//
// The recogniser is deliberately narrow: every transform built on it changes
// which thread computes which element, which is only safe when an element's
// work depends on nothing but its index. So the per-element work may not look
// at threadIdx/blockIdx/blockDim/gridDim, synchronise, use shared memory or
// warp intrinsics, or change the index; anything else is refused with the
// reason.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/ThreadMapping.h"
#include "GuardShape.h"
#include "cuda-opt/Analysis/LaunchConfig.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <array>

using namespace clang;
using namespace llvm;

namespace cuda_opt {

static Error fail(const Twine &Reason) {
  return createStringError(inconvertibleErrorCode(), Reason);
}

static std::string where(const ASTContext &Ctx, SourceLocation Loc) {
  return describeLocation(Ctx.getSourceManager(), Loc);
}

//===----------------------------------------------------------------------===//
// CUDA built-in variables
//===----------------------------------------------------------------------===//

namespace {
enum class Builtin { None, ThreadIdx, BlockIdx, BlockDim, GridDim };

/// A use of `blockIdx.x` and friends: which variable and which axis.
struct BuiltinRef {
  Builtin Var = Builtin::None;
  unsigned Axis = 0;
};
} // namespace

static Builtin builtinOf(const VarDecl *VD) {
  if (!VD)
    return Builtin::None;
  return StringSwitch<Builtin>(VD->getName())
      .Case("threadIdx", Builtin::ThreadIdx)
      .Case("blockIdx", Builtin::BlockIdx)
      .Case("blockDim", Builtin::BlockDim)
      .Case("gridDim", Builtin::GridDim)
      .Default(Builtin::None);
}

static StringRef builtinName(Builtin B) {
  switch (B) {
  case Builtin::ThreadIdx:
    return "threadIdx";
  case Builtin::BlockIdx:
    return "blockIdx";
  case Builtin::BlockDim:
    return "blockDim";
  case Builtin::GridDim:
    return "gridDim";
  case Builtin::None:
    break;
  }
  return "";
}

/// `blockIdx.x` as clang models it (a property reference on a builtin
/// variable, or a plain member for other CUDA headers).
static BuiltinRef matchBuiltin(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(E))
    E = PO->getSyntacticForm()->IgnoreParenImpCasts();
  const Expr *Base = nullptr;
  StringRef Field;
  if (const auto *PR = dyn_cast<MSPropertyRefExpr>(E)) {
    Base = PR->getBaseExpr();
    Field = PR->getPropertyDecl()->getName();
  } else if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    Base = ME->getBase();
    Field = ME->getMemberDecl()->getName();
  } else {
    return {};
  }
  Base = Base->IgnoreParenImpCasts();
  if (const auto *OVE = dyn_cast<OpaqueValueExpr>(Base))
    Base = OVE->getSourceExpr()->IgnoreParenImpCasts();
  const auto *DRE = dyn_cast<DeclRefExpr>(Base);
  if (!DRE)
    return {};
  Builtin B = builtinOf(dyn_cast<VarDecl>(DRE->getDecl()));
  if (B == Builtin::None || Field.size() != 1 || Field[0] < 'x' ||
      Field[0] > 'z')
    return {};
  return {B, unsigned(Field[0] - 'x')};
}

static bool isCallTo(const CallExpr *CE, StringRef Prefix) {
  const FunctionDecl *FD = CE->getDirectCallee();
  return FD && FD->getDeclName().isIdentifier() &&
         FD->getName().starts_with(Prefix);
}

namespace {
/// Finds what makes per-element work depend on more than its index.
class HazardFinder : public RecursiveASTVisitor<HazardFinder> {
public:
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    Builtin B = builtinOf(dyn_cast<VarDecl>(DRE->getDecl()));
    if (B != Builtin::None && !BuiltinUse.isValid()) {
      BuiltinUse = DRE->getBeginLoc();
      BuiltinUsed = B;
    }
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    static const char *const Collective[] = {
        "__syncthreads", "__syncwarp",   "__shfl",  "__ballot",  "__any",
        "__all",         "__activemask", "__match", "__reduce_", "__barrier"};
    if (Sync.isValid())
      return true;
    for (const char *P : Collective)
      if (isCallTo(CE, P)) {
        Sync = CE->getBeginLoc();
        SyncName = CE->getDirectCallee()->getName().str();
      }
    if (const FunctionDecl *FD = CE->getDirectCallee())
      if (!Sync.isValid() && FD->getQualifiedNameAsString().find(
                                 "cooperative_groups") != std::string::npos) {
        Sync = CE->getBeginLoc();
        SyncName = FD->getQualifiedNameAsString();
      }
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    if (!Shared && VD->hasAttr<CUDASharedAttr>())
      Shared = VD;
    return true;
  }

  SourceLocation BuiltinUse;
  Builtin BuiltinUsed = Builtin::None;
  SourceLocation Sync;
  std::string SyncName;
  const VarDecl *Shared = nullptr;
};
} // namespace

//===----------------------------------------------------------------------===//
// The kernel side
//===----------------------------------------------------------------------===//

bool refersTo(const Expr *E, const VarDecl *V) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return DRE && DRE->getDecl() == V;
}

/// `blockIdx.a * blockDim.a + threadIdx.a` in any operand order.
static bool isGlobalIndex(const Expr *E, unsigned Axis) {
  const auto *Add = dyn_cast<BinaryOperator>(E->IgnoreParenCasts());
  if (!Add || Add->getOpcode() != BO_Add)
    return false;
  auto IsThread = [&](const Expr *X) {
    BuiltinRef R = matchBuiltin(X->IgnoreParenCasts());
    return R.Var == Builtin::ThreadIdx && R.Axis == Axis;
  };
  auto IsBlockOffset = [&](const Expr *X) {
    const auto *Mul = dyn_cast<BinaryOperator>(X->IgnoreParenCasts());
    if (!Mul || Mul->getOpcode() != BO_Mul)
      return false;
    BuiltinRef L = matchBuiltin(Mul->getLHS()->IgnoreParenCasts());
    BuiltinRef R = matchBuiltin(Mul->getRHS()->IgnoreParenCasts());
    if (L.Axis != Axis || R.Axis != Axis)
      return false;
    return (L.Var == Builtin::BlockIdx && R.Var == Builtin::BlockDim) ||
           (L.Var == Builtin::BlockDim && R.Var == Builtin::BlockIdx);
  };
  return (IsThread(Add->getRHS()) && IsBlockOffset(Add->getLHS())) ||
         (IsThread(Add->getLHS()) && IsBlockOffset(Add->getRHS()));
}

static bool usesBuiltin(const Stmt *S) {
  HazardFinder F;
  F.TraverseStmt(const_cast<Stmt *>(S));
  return F.BuiltinUse.isValid();
}

/// The index variable declared by \p S when it is a single integer local
/// whose initialiser mentions a CUDA built-in, or null.
static const VarDecl *indexCandidate(const Stmt *S) {
  const auto *DS = dyn_cast<DeclStmt>(S);
  if (!DS || !DS->isSingleDecl())
    return nullptr;
  const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!VD || !VD->getType()->isIntegerType() || !VD->getInit() ||
      !usesBuiltin(VD->getInit()))
    return nullptr;
  return VD;
}

namespace {
/// One comparison of the guard, normalised to `Index < Bound` form.
struct Comparison {
  const VarDecl *Index = nullptr;
  const Expr *Bound = nullptr;
  /// True for `i < n` / `i <= n`; false for `i >= n` / `i > n`.
  bool InRange = false;
  bool Inclusive = false;
};
} // namespace

static std::optional<Comparison> matchComparison(const Expr *E,
                                                 ArrayRef<MappedIndex> Dims) {
  const auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  if (!BO || !BO->isRelationalOp())
    return std::nullopt;
  for (const MappedIndex &D : Dims) {
    BinaryOperatorKind Op = BO->getOpcode();
    const Expr *Other = nullptr;
    if (refersTo(BO->getLHS(), D.Var)) {
      Other = BO->getRHS();
    } else if (refersTo(BO->getRHS(), D.Var)) {
      Other = BO->getLHS();
      Op = BinaryOperator::reverseComparisonOp(Op);
    } else {
      continue;
    }
    Comparison C;
    C.Index = D.Var;
    C.Bound = Other;
    // i < n and i <= n keep the element; i >= n and i > n drop it.
    C.InRange = Op == BO_LT || Op == BO_LE;
    C.Inclusive = Op == BO_LE || Op == BO_GT;
    return C;
  }
  return std::nullopt;
}

SourceLocation stmtEnd(const ASTContext &Ctx, const Stmt *S) {
  SourceLocation End = S->getEndLoc();
  if (isa<CompoundStmt>(S) || End.isMacroID())
    return End;
  std::optional<Token> Next =
      Lexer::findNextToken(End, Ctx.getSourceManager(), Ctx.getLangOpts());
  if (Next && Next->is(tok::semi))
    return Next->getLocation();
  return End;
}

SourceRange bodyRange(const ASTContext &Ctx, const ThreadMapping &M) {
  return SourceRange(M.Body.front()->getBeginLoc(),
                     stmtEnd(Ctx, M.Body.back()));
}

bool inMacro(SourceRange R) {
  return R.getBegin().isMacroID() || R.getEnd().isMacroID();
}

/// The guard: fills Bound/Inclusive of every dimension and the form.
static Error matchGuard(const ASTContext &Ctx, const KernelInfo &K,
                        const IfStmt *If, ThreadMapping &M,
                        GuardConditions Extra) {
  std::string Shape =
      M.rank() == 1
          ? "'if (" + M.x().Var->getNameAsString() + " < n)' or 'if (" +
                M.x().Var->getNameAsString() + " >= n) return;'"
          : std::string("'if (x < w && y < h)' or 'if (x >= w || y >= h) "
                        "return;'");
  auto NotGuard = [&]() {
    return fail("the statement at " + where(Ctx, If->getBeginLoc()) +
                " is not a bounds guard of the form " + Shape);
  };
  if (If->getElse() || If->getInit() || If->getConditionVariable() ||
      If->isConstexpr())
    return NotGuard();
  bool EarlyReturn = isBareReturn(If->getThen());
  SmallVector<const Expr *, 2> Leaves;
  flattenLogical(If->getCond(), EarlyReturn ? BO_LOr : BO_LAnd, Leaves);
  M.Conditions.clear();
  if (Extra == GuardConditions::Allow && !EarlyReturn && M.rank() == 1 &&
      Leaves.size() > 1) {
    // `i < n && c1 && ...`: the bound first, so that the conditions (which
    // may read element i) only run for elements in range, as written.
    for (const Expr *C : llvm::drop_begin(Leaves)) {
      if (C->HasSideEffects(Ctx))
        return fail("the guard at " + where(Ctx, If->getBeginLoc()) +
                    " has a condition with side effects");
      M.Conditions.push_back(C);
    }
    Leaves.resize(1);
  }
  if (Leaves.size() != M.rank())
    return NotGuard();
  for (MappedIndex &D : M.Dims)
    D.Bound = nullptr;
  for (const Expr *Leaf : Leaves) {
    std::optional<Comparison> C = matchComparison(Leaf, M.Dims);
    if (!C || C->InRange == EarlyReturn)
      return NotGuard();
    for (MappedIndex &D : M.Dims) {
      if (D.Var != C->Index)
        continue;
      if (D.Bound)
        return NotGuard();
      D.Bound = C->Bound;
      D.Inclusive = C->Inclusive;
    }
  }
  M.Guard = If;
  M.EarlyReturn = EarlyReturn;
  return Error::success();
}

namespace {
/// Every local variable an expression reads.
class VarCollector : public RecursiveASTVisitor<VarCollector> {
public:
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      Vars.push_back(VD);
    return true;
  }
  SmallVector<const VarDecl *, 4> Vars;
};
} // namespace

/// True when host variable \p V keeps its value throughout \p Caller.
static bool isStableIn(const VarDecl *V, const FunctionDecl *Caller) {
  if (!V->hasLocalStorage())
    return V->getType().isConstQualified();
  // A const local that is not a reference cannot change.
  if (V->getType().isConstQualified() && !V->getType()->isReferenceType())
    return true;
  if (!Caller || !Caller->getBody())
    return false;
  return isNeverModifiedAfterInit(V, Caller->getBody(), V->getASTContext());
}

Expected<ThreadMapping> analyzeThreadMapping(ASTContext &Ctx,
                                             const KernelInfo &K,
                                             GuardConditions Extra) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(K.Decl->getBody());
  if (!Body)
    return fail("kernel '" + K.name() + "' has no body");
  if (inMacro(Body->getSourceRange()))
    return fail("kernel '" + K.name() +
                "' is written inside a macro; cuda-opt does not edit macro "
                "expansions");

  HazardFinder Whole;
  Whole.TraverseStmt(const_cast<CompoundStmt *>(Body));
  if (Whole.Shared)
    return fail("kernel '" + K.name() + "' uses __shared__ memory ('" +
                Whole.Shared->getNameAsString() + "' at " +
                where(Ctx, Whole.Shared->getLocation()) +
                "), so its threads do not work independently");
  if (Whole.Sync.isValid())
    return fail("kernel '" + K.name() + "' calls " + Whole.SyncName + " at " +
                where(Ctx, Whole.Sync) +
                ", so its threads do not work independently");

  ThreadMapping M;
  auto It = Body->body_begin(), End = Body->body_end();
  // Declarations before the index are fine when they are pure: they run once
  // per thread, and the number of threads changes.
  for (; It != End; ++It) {
    const Stmt *S = *It;
    if (isa<NullStmt>(S))
      continue;
    if (indexCandidate(S))
      break;
    const auto *DS = dyn_cast<DeclStmt>(S);
    bool Pure = DS != nullptr;
    if (DS)
      for (const Decl *D : DS->decls()) {
        const auto *VD = dyn_cast<VarDecl>(D);
        if (!VD || !VD->hasLocalStorage() ||
            (VD->getInit() && VD->getInit()->HasSideEffects(Ctx)))
          Pure = false;
      }
    if (!Pure)
      return fail("the statement at " + where(Ctx, S->getBeginLoc()) +
                  " comes before the global index is computed and is not a "
                  "plain declaration; expected 'int i = blockIdx.x * "
                  "blockDim.x + threadIdx.x;' first");
    if (usesBuiltin(S))
      return fail("kernel '" + K.name() +
                  "' reads a thread or block index "
                  "at " +
                  where(Ctx, S->getBeginLoc()) +
                  " outside 'blockIdx.x * blockDim.x + threadIdx.x'");
  }
  if (It == End)
    return fail("kernel '" + K.name() +
                "' does not compute a global index 'int i = blockIdx.x * "
                "blockDim.x + threadIdx.x;'");

  // The index declarations: x, then optionally y; or y, then x (`int row =
  // ...y; int col = ...x;`). Dims are kept in axis order.
  unsigned Order[2] = {0, 1};
  if (const VarDecl *First = indexCandidate(*It))
    if (isGlobalIndex(First->getInit(), 1) && std::next(It) != End)
      if (const VarDecl *Second = indexCandidate(*std::next(It)))
        if (isGlobalIndex(Second->getInit(), 0)) {
          Order[0] = 1;
          Order[1] = 0;
        }
  SourceLocation FirstIndex = (*It)->getBeginLoc();
  for (unsigned N = 0; N < 2 && It != End; ++N, ++It) {
    unsigned Axis = Order[N];
    const VarDecl *V = indexCandidate(*It);
    if (!V)
      break;
    if (!isGlobalIndex(V->getInit(), Axis)) {
      if (N == 1)
        break;
      return fail("index '" + V->getNameAsString() + "' at " +
                  where(Ctx, V->getLocation()) + " is computed as '" +
                  sourceText(Ctx, V->getInit()->getSourceRange()) +
                  "', not as blockIdx.x * blockDim.x + threadIdx.x");
    }
    if (inMacro((*It)->getSourceRange()))
      return fail("index '" + V->getNameAsString() +
                  "' is declared inside a macro; cuda-opt does not edit "
                  "macro expansions");
    if (!isNeverModifiedAfterInit(V, Body, Ctx))
      return fail("kernel '" + K.name() + "' modifies its index '" +
                  V->getNameAsString() + "'");
    MappedIndex D;
    D.Var = V;
    D.Decl = cast<DeclStmt>(*It);
    D.Axis = Axis;
    M.Dims.push_back(D);
  }
  if (M.Dims.size() == 2 && M.Dims[0].Axis == 1)
    std::swap(M.Dims[0], M.Dims[1]);

  while (It != End && isa<NullStmt>(*It))
    ++It;
  if (It == End)
    return fail("kernel '" + K.name() + "' has no bounds guard 'if (" +
                M.x().Var->getNameAsString() + " < n)' after its index");
  const auto *If = dyn_cast<IfStmt>(*It);
  if (!If)
    return fail("the statement at " + where(Ctx, (*It)->getBeginLoc()) +
                " follows the index but is not a bounds guard 'if (" +
                M.x().Var->getNameAsString() + " < n)'");
  if (inMacro(If->getSourceRange()))
    return fail("kernel '" + K.name() +
                "': the bounds guard is written inside a macro; cuda-opt "
                "does not edit macro expansions");
  if (Error E = matchGuard(Ctx, K, If, M, Extra))
    return std::move(E);
  ++It;

  if (const Stmt *Stray =
          collectGuardedWork(If, M.EarlyReturn, ArrayRef(It, End), M.Body))
    return fail("the statement at " + where(Ctx, Stray->getBeginLoc()) +
                " after the bounds guard runs once per thread, so it "
                "would run a different number of times");
  if (M.Body.empty())
    return fail("kernel '" + K.name() + "' does nothing after its guard");
  if (const Stmt *S = firstMacroStatement(M.Body))
    return fail("the statement at " + where(Ctx, S->getBeginLoc()) +
                " is a macro expansion; cuda-opt does not edit macro "
                "expansions");

  // The per-element work depends only on the index.
  for (const Stmt *S : M.Body) {
    HazardFinder F;
    F.TraverseStmt(const_cast<Stmt *>(S));
    if (F.BuiltinUse.isValid())
      return fail("kernel '" + K.name() + "' reads " +
                  builtinName(F.BuiltinUsed) + " at " +
                  where(Ctx, F.BuiltinUse) +
                  " inside its per-element work; only the index may depend "
                  "on the thread");
  }

  // The bounds stay the same for the whole kernel.
  for (const MappedIndex &D : M.Dims) {
    std::string BoundText = sourceText(Ctx, D.Bound->getSourceRange());
    if (D.Bound->HasSideEffects(Ctx) || usesBuiltin(D.Bound))
      return fail("the bound '" + BoundText +
                  "' of the guard is not a plain value");
    VarCollector C;
    C.TraverseStmt(const_cast<Expr *>(D.Bound));
    for (const VarDecl *V : C.Vars) {
      for (const MappedIndex &Other : M.Dims)
        if (V == Other.Var)
          return fail("the bound '" + BoundText +
                      "' of the guard depends on an index");
      if (V->hasLocalStorage() && !isNeverModifiedAfterInit(V, Body, Ctx))
        return fail("the bound '" + BoundText + "' of the guard uses '" +
                    V->getNameAsString() + "', which the kernel modifies");
    }
  }

  SourceLocation RegionEnd =
      stmtEnd(Ctx, M.EarlyReturn ? M.Body.back() : If->getThen());
  M.Region = SourceRange(FirstIndex, RegionEnd);
  return M;
}

//===----------------------------------------------------------------------===//
// The launch side
//===----------------------------------------------------------------------===//

/// Look through the implicit nodes clang puts around a launch argument.
const Expr *stripLaunchArgImplicit(const Expr *E) {
  while (true) {
    const Expr *Prev = E;
    E = E->IgnoreParenImpCasts();
    if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
      E = EWC->getSubExpr();
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
      E = MT->getSubExpr();
    if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
      E = BT->getSubExpr();
    // The implicit dim3(unsigned) conversion of `<<<n / 256, 256>>>`, and
    // implicit copies of a dim3 variable.
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
      if (!isa<CXXTemporaryObjectExpr>(CE) &&
          CE->getParenOrBraceRange().isInvalid() && CE->getNumArgs() >= 1 &&
          (CE->getNumArgs() == 1 || isa<CXXDefaultArgExpr>(CE->getArg(1))))
        E = CE->getArg(0);
    if (E == Prev)
      return E;
  }
}

/// A local variable of \p Caller that is initialised and never written.
static const VarDecl *stableLocal(const Expr *E, const FunctionDecl *Caller,
                                  ASTContext &Ctx) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  if (!DRE)
    return nullptr;
  const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
  if (!VD || isa<ParmVarDecl>(VD) || !VD->getInit())
    return nullptr;
  return isStableIn(VD, Caller) ? VD : nullptr;
}

/// The x, y, z extents of a grid or block argument, following local dim3 and
/// integer variables to their initialisers. Missing extents are null (1).
static std::optional<std::array<const Expr *, 3>>
extentsOf(const Expr *E, const FunctionDecl *Caller, ASTContext &Ctx,
          unsigned Depth = 0) {
  if (Depth > 4)
    return std::nullopt;
  E = stripLaunchArgImplicit(E);
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
    return extentsOf(FC->getSubExpr(), Caller, Ctx, Depth + 1);
  if (E->getType()->isIntegerType())
    return std::array<const Expr *, 3>{E, nullptr, nullptr};
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    if (CE->getNumArgs() == 1 && !CE->getArg(0)->getType()->isIntegerType())
      return extentsOf(CE->getArg(0), Caller, Ctx, Depth + 1);
    std::array<const Expr *, 3> X{nullptr, nullptr, nullptr};
    for (unsigned I = 0; I < CE->getNumArgs() && I < 3; ++I)
      if (!isa<CXXDefaultArgExpr>(CE->getArg(I)))
        X[I] = CE->getArg(I);
    return X;
  }
  if (const VarDecl *VD = stableLocal(E, Caller, Ctx))
    return extentsOf(VD->getInit(), Caller, Ctx, Depth + 1);
  return std::nullopt;
}

static std::optional<int64_t> constantOf(const Expr *E,
                                         const FunctionDecl *Caller,
                                         ASTContext &Ctx, unsigned Depth = 0) {
  if (!E || E->isValueDependent() || Depth > 4)
    return std::nullopt;
  Expr::EvalResult R;
  if (E->EvaluateAsInt(R, Ctx))
    return R.Val.getInt().getExtValue();
  if (const VarDecl *VD = stableLocal(E, Caller, Ctx))
    return constantOf(VD->getInit(), Caller, Ctx, Depth + 1);
  return std::nullopt;
}

/// Source text without blanks and outer parentheses, for comparing
/// expressions as written.
static std::string normalizedText(const ASTContext &Ctx, const Expr *E) {
  std::string T = sourceText(Ctx, E->IgnoreParenImpCasts()->getSourceRange());
  T.erase(std::remove_if(T.begin(), T.end(),
                         [](char C) { return isspace((unsigned char)C); }),
          T.end());
  return T;
}

/// Whether two expressions of one launch surely have the same value.
static bool sameValue(const Expr *A, const Expr *B, const FunctionDecl *Caller,
                      ASTContext &Ctx) {
  if (!A || !B)
    return false;
  std::optional<int64_t> VA = constantOf(A, Caller, Ctx);
  std::optional<int64_t> VB = constantOf(B, Caller, Ctx);
  if (VA && VB)
    return *VA == *VB;
  if (normalizedText(Ctx, A) == normalizedText(Ctx, B))
    return true;
  // `int m = n; k<<<(n + 255) / 256, 256>>>(m)`.
  if (const VarDecl *V = stableLocal(A, Caller, Ctx))
    return sameValue(V->getInit(), B, Caller, Ctx);
  if (const VarDecl *V = stableLocal(B, Caller, Ctx))
    return sameValue(A, V->getInit(), Caller, Ctx);
  return false;
}

/// `Block - 1`, or a constant one less than the block size.
static bool isBlockMinusOne(const Expr *E, const Expr *Block,
                            const FunctionDecl *Caller, ASTContext &Ctx) {
  std::optional<int64_t> V = constantOf(E, Caller, Ctx);
  std::optional<int64_t> B = constantOf(Block, Caller, Ctx);
  if (V && B)
    return *V == *B - 1;
  const auto *Sub = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
  if (!Sub || Sub->getOpcode() != BO_Sub)
    return false;
  std::optional<int64_t> One = constantOf(Sub->getRHS(), Caller, Ctx);
  return One && *One == 1 && sameValue(Sub->getLHS(), Block, Caller, Ctx);
}

/// The work size `W` of a grid extent written `(W + B - 1) / B`.
static const Expr *matchCeilDiv(const Expr *Grid, const Expr *Block,
                                const FunctionDecl *Caller, ASTContext &Ctx,
                                unsigned Depth = 0) {
  if (!Grid || !Block || Depth > 4)
    return nullptr;
  if (const VarDecl *V = stableLocal(Grid, Caller, Ctx))
    return matchCeilDiv(V->getInit(), Block, Caller, Ctx, Depth + 1);
  const auto *Div = dyn_cast<BinaryOperator>(Grid->IgnoreParenCasts());
  if (!Div || Div->getOpcode() != BO_Div ||
      !sameValue(Div->getRHS(), Block, Caller, Ctx))
    return nullptr;
  const auto *Num = dyn_cast<BinaryOperator>(Div->getLHS()->IgnoreParenCasts());
  if (!Num)
    return nullptr;
  if (Num->getOpcode() == BO_Add) {
    if (isBlockMinusOne(Num->getRHS(), Block, Caller, Ctx))
      return Num->getLHS();
    if (isBlockMinusOne(Num->getLHS(), Block, Caller, Ctx))
      return Num->getRHS();
    return nullptr;
  }
  // `W + B - 1` parses as `(W + B) - 1`.
  if (Num->getOpcode() != BO_Sub)
    return nullptr;
  std::optional<int64_t> One = constantOf(Num->getRHS(), Caller, Ctx);
  const auto *Sum = dyn_cast<BinaryOperator>(Num->getLHS()->IgnoreParenCasts());
  if (!One || *One != 1 || !Sum || Sum->getOpcode() != BO_Add)
    return nullptr;
  if (sameValue(Sum->getRHS(), Block, Caller, Ctx))
    return Sum->getLHS();
  if (sameValue(Sum->getLHS(), Block, Caller, Ctx))
    return Sum->getRHS();
  return nullptr;
}

static bool isOne(const Expr *E, const FunctionDecl *Caller, ASTContext &Ctx) {
  if (!E)
    return true;
  std::optional<int64_t> V = constantOf(E, Caller, Ctx);
  return V && *V == 1;
}

/// The kernel's bound as the launch passes it, when it can be named: the
/// argument for a parameter bound, the bound itself when it names no
/// parameter.
static const Expr *boundAtLaunch(const Expr *Bound, const LaunchSite &L) {
  const Expr *B = Bound->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(B))
    if (const auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl())) {
      unsigned Idx = P->getFunctionScopeIndex();
      return Idx < L.Call->getNumArgs() ? L.Call->getArg(Idx) : nullptr;
    }
  VarCollector C;
  C.TraverseStmt(const_cast<Expr *>(Bound));
  for (const VarDecl *V : C.Vars)
    if (isa<ParmVarDecl>(V) || V->hasLocalStorage())
      return nullptr;
  return Bound;
}

Expected<SmallVector<LaunchShape, 4>>
analyzeLaunches(ASTContext &Ctx, const KernelInfo &K, const ThreadMapping &M,
                UnmappedAxes Others) {
  if (K.Launches.empty())
    return fail("kernel '" + K.name() +
                "' is not launched in this file, so cuda-opt cannot check "
                "that its grid covers the work");
  SmallVector<LaunchShape, 4> Shapes;
  for (const LaunchSite &L : K.Launches) {
    std::string At = where(Ctx, L.Call->getBeginLoc());
    const Expr *Grid = launchGridExpr(L);
    const Expr *Block = launchBlockExpr(L);
    if (!Grid || !Block)
      return fail("the launch at " + At + " has no launch configuration");
    if (inMacro(L.Call->getSourceRange()) || inMacro(Grid->getSourceRange()) ||
        inMacro(Block->getSourceRange()))
      return fail("the launch at " + At +
                  " is written inside a macro; cuda-opt does not edit macro "
                  "expansions");
    std::string GridText = sourceText(Ctx, Grid->getSourceRange());
    auto GridX = extentsOf(Grid, L.Caller, Ctx);
    auto BlockX = extentsOf(Block, L.Caller, Ctx);
    if (!GridX || !BlockX)
      return fail("the grid or block of the launch at " + At +
                  " is not written in the calling function, so the work "
                  "size it covers cannot be recovered");
    for (unsigned D = M.rank(); D < 3 && Others == UnmappedAxes::MustBeOne;
         ++D)
      if (!isOne((*GridX)[D], L.Caller, Ctx) ||
          !isOne((*BlockX)[D], L.Caller, Ctx))
        return fail("the launch at " + At + " uses a " + Twine(D + 1).str() +
                    "-D grid or block but kernel '" + K.name() +
                    "' maps only " + (M.rank() == 1 ? "x" : "x and y"));
    LaunchShape S;
    S.Site = &L;
    for (const MappedIndex &D : M.Dims) {
      const Expr *G = (*GridX)[D.Axis];
      const Expr *B = (*BlockX)[D.Axis];
      const Expr *Work = matchCeilDiv(G, B, L.Caller, Ctx);
      if (!Work)
        return fail("the grid of the launch at " + At + " is '" + GridText +
                    "', not a ceil-div of the work size by the block size "
                    "like '(n + 255) / 256', so the work size cannot be "
                    "recovered");
      const Expr *Passed = boundAtLaunch(D.Bound, L);
      std::string BoundText = sourceText(Ctx, D.Bound->getSourceRange());
      if (!Passed)
        return fail("cannot tell which value kernel '" + K.name() +
                    "' gets for its bound '" + BoundText +
                    "' at the launch "
                    "at " +
                    At);
      if (D.Inclusive || !sameValue(Work, Passed, L.Caller, Ctx))
        return fail("the grid of the launch at " + At + " is sized for '" +
                    sourceText(Ctx, Work->getSourceRange()) +
                    "' elements but the kernel's bound '" + BoundText +
                    (D.Inclusive
                         ? "' is inclusive"
                         : "' is passed '" +
                               sourceText(Ctx, Passed->getSourceRange()) +
                               "'") +
                    ", so cuda-opt cannot show that the grid covers exactly "
                    "the work");
      // The work size is what the grid was computed from; it must still
      // hold at the launch (block-size re-evaluates it there).
      VarCollector Reads;
      Reads.TraverseStmt(const_cast<Expr *>(Work));
      for (const VarDecl *V : Reads.Vars)
        if (V->hasLocalStorage() && !isStableIn(V, L.Caller))
          return fail(
              "the work size '" + sourceText(Ctx, Work->getSourceRange()) +
              "' of the launch at " + At + " reads '" + V->getNameAsString() +
              "', which changes in the calling function");
      S.Work.push_back(Work);
      S.Block.push_back(B);
      S.BlockValue.push_back(constantOf(B, L.Caller, Ctx));
    }
    Shapes.push_back(std::move(S));
  }
  return Shapes;
}

namespace {
/// Finds `return;` statements and whether they sit in a nested loop.
class ReturnFinder : public RecursiveASTVisitor<ReturnFinder> {
public:
  bool TraverseForStmt(ForStmt *S) {
    return inLoop([&] { return RecursiveASTVisitor::TraverseForStmt(S); });
  }
  bool TraverseWhileStmt(WhileStmt *S) {
    return inLoop([&] { return RecursiveASTVisitor::TraverseWhileStmt(S); });
  }
  bool TraverseDoStmt(DoStmt *S) {
    return inLoop([&] { return RecursiveASTVisitor::TraverseDoStmt(S); });
  }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) {
    return inLoop(
        [&] { return RecursiveASTVisitor::TraverseCXXForRangeStmt(S); });
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitReturnStmt(ReturnStmt *RS) {
    if (LoopDepth > 0 && !Nested)
      Nested = RS;
    else if (LoopDepth == 0)
      Returns.push_back(RS);
    return true;
  }
  template <typename F> bool inLoop(F Fn) {
    ++LoopDepth;
    bool R = Fn();
    --LoopDepth;
    return R;
  }
  unsigned LoopDepth = 0;
  const ReturnStmt *Nested = nullptr;
  SmallVector<const ReturnStmt *, 4> Returns;
};
} // namespace

Expected<SmallVector<const ReturnStmt *, 4>>
loopableReturns(const ASTContext &Ctx, ArrayRef<const Stmt *> Stmts) {
  ReturnFinder F;
  for (const Stmt *S : Stmts)
    F.TraverseStmt(const_cast<Stmt *>(S));
  if (F.Nested)
    return fail("the per-element work returns from inside a loop at " +
                where(Ctx, F.Nested->getBeginLoc()) +
                ", which cannot become 'continue' of the new loop");
  for (const ReturnStmt *RS : F.Returns)
    if (RS->getRetValue())
      return fail("the return at " + where(Ctx, RS->getBeginLoc()) +
                  " returns a value");
  return F.Returns;
}

Expected<ThreadMapping> analyzeLoopableMapping(ASTContext &Ctx,
                                               const KernelInfo &K,
                                               StringRef Pass,
                                               GuardConditions Extra) {
  Expected<ThreadMapping> M = analyzeThreadMapping(Ctx, K, Extra);
  if (!M)
    return M.takeError();
  if (M->rank() != 1)
    return createStringError(inconvertibleErrorCode(),
                             "kernel '" + K.name() + "' maps threads in 2-D; " +
                                 Pass + " handles 1-D kernels only");
  if (Error E = analyzeLaunches(Ctx, K, *M).takeError())
    return std::move(E);
  if (Error E = loopableReturns(Ctx, M->Body).takeError())
    return std::move(E);
  return M;
}

} // namespace cuda_opt
