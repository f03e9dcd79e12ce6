//===- RowMapping.cpp - The row index of a 2-D kernel --------------------===//
//
// Part of cuda-opt.
//
// A transform built on this recogniser changes which thread computes which
// rows (and how many threads there are along y), and nothing else. That is
// safe when a row's work depends on the thread only through the row index:
// the kernel may not read threadIdx.y, blockIdx.y or gridDim.y anywhere else
// (also not in the device functions it calls), synchronise, use shared
// memory, warp intrinsics or inline assembly; what runs once per thread
// before the row index must be pure and must not be modified by the work
// (it would then carry from one row to the next); and what runs for rows the
// old grid never had (the code before the row comparison) may not read
// memory. x, z, blockDim.y and the like keep their values and may be used
// freely.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/RowMapping.h"
#include "GuardShape.h"
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

static std::string where(const ASTContext &Ctx, SourceLocation Loc) {
  return describeLocation(Ctx.getSourceManager(), Loc);
}

//===----------------------------------------------------------------------===//
// CUDA built-in variables
//===----------------------------------------------------------------------===//

namespace {
/// `blockIdx.y` and friends: the variable's name and the axis (0 for .x).
struct BuiltinRef {
  StringRef Var;
  unsigned Axis = 0;
  explicit operator bool() const { return !Var.empty(); }
};
} // namespace

/// `blockIdx.y` as clang models it: a property reference on a builtin
/// variable with the CUDA headers, a plain member with simpler headers.
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
    if (!ME->getMemberDecl()->getDeclName().isIdentifier())
      return {};
    Field = ME->getMemberDecl()->getName();
  } else {
    return {};
  }
  Base = Base->IgnoreParenImpCasts();
  if (const auto *OVE = dyn_cast<OpaqueValueExpr>(Base))
    if (OVE->getSourceExpr())
      Base = OVE->getSourceExpr()->IgnoreParenImpCasts();
  const auto *DRE = dyn_cast<DeclRefExpr>(Base);
  if (!DRE || !DRE->getDecl()->getDeclName().isIdentifier())
    return {};
  StringRef Var = DRE->getDecl()->getName();
  if (Var != "threadIdx" && Var != "blockIdx" && Var != "blockDim" &&
      Var != "gridDim")
    return {};
  if (Field.size() != 1 || Field[0] < 'x' || Field[0] > 'z')
    return {};
  return {Var, unsigned(Field[0] - 'x')};
}

/// `blockIdx.y * blockDim.y + threadIdx.y` in any operand order.
static bool isRowIndex(const Expr *E) {
  const auto *Add = dyn_cast<BinaryOperator>(E->IgnoreParenCasts());
  if (!Add || Add->getOpcode() != BO_Add)
    return false;
  auto Is = [](const Expr *X, StringRef Var) {
    BuiltinRef R = matchBuiltin(X->IgnoreParenCasts());
    return R && R.Var == Var && R.Axis == 1;
  };
  auto IsBlockOffset = [&](const Expr *X) {
    const auto *Mul = dyn_cast<BinaryOperator>(X->IgnoreParenCasts());
    if (!Mul || Mul->getOpcode() != BO_Mul)
      return false;
    return (Is(Mul->getLHS(), "blockIdx") && Is(Mul->getRHS(), "blockDim")) ||
           (Is(Mul->getLHS(), "blockDim") && Is(Mul->getRHS(), "blockIdx"));
  };
  return (Is(Add->getRHS(), "threadIdx") && IsBlockOffset(Add->getLHS())) ||
         (Is(Add->getLHS(), "threadIdx") && IsBlockOffset(Add->getRHS()));
}

/// The builtins whose value differs between the threads that share a row
/// loop, or whose meaning changes with the new grid.
static bool isRowBuiltin(BuiltinRef R) {
  return R && R.Axis == 1 &&
         (R.Var == "threadIdx" || R.Var == "blockIdx" || R.Var == "gridDim");
}

static bool isCallTo(const CallExpr *CE, StringRef Prefix) {
  const FunctionDecl *FD = CE->getDirectCallee();
  return FD && FD->getDeclName().isIdentifier() &&
         FD->getName().starts_with(Prefix);
}

static bool inSystemHeader(const ASTContext &Ctx, const Decl *D) {
  return Ctx.getSourceManager().isInSystemHeader(D->getLocation());
}

namespace {
/// Finds what makes a row's work depend on more than the row index, in the
/// kernel and in the device functions it calls (outside system headers).
class RowHazards : public RecursiveASTVisitor<RowHazards> {
public:
  RowHazards(const ASTContext &Ctx, const Stmt *Skip) : Ctx(Ctx), Skip(Skip) {}

  void scan(const FunctionDecl *Kernel) {
    Seen.insert(Kernel->getCanonicalDecl());
    TraverseStmt(Kernel->getBody());
    Skip = nullptr;
    while (!Pending.empty()) {
      const FunctionDecl *FD = Pending.pop_back_val();
      Function = FD;
      TraverseStmt(FD->getBody());
    }
  }

  bool TraverseStmt(Stmt *S) {
    if (S && S == Skip)
      return true;
    return RecursiveASTVisitor::TraverseStmt(S);
  }
  bool VisitMemberExpr(MemberExpr *E) { return noteBuiltin(E); }
  bool VisitMSPropertyRefExpr(MSPropertyRefExpr *E) { return noteBuiltin(E); }
  bool VisitCallExpr(CallExpr *CE) {
    static const char *const Collective[] = {
        "__syncthreads", "__syncwarp",   "__shfl",  "__ballot",  "__any",
        "__all",         "__activemask", "__match", "__reduce_", "__barrier"};
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!Sync.isValid()) {
      for (const char *P : Collective)
        if (isCallTo(CE, P)) {
          Sync = CE->getBeginLoc();
          SyncName = FD->getName().str();
        }
      if (FD && !Sync.isValid() &&
          FD->getQualifiedNameAsString().find("cooperative_groups") !=
              std::string::npos) {
        Sync = CE->getBeginLoc();
        SyncName = FD->getQualifiedNameAsString();
      }
    }
    const FunctionDecl *Def = nullptr;
    if (FD && FD->hasBody(Def) && !inSystemHeader(Ctx, Def) &&
        Seen.insert(Def->getCanonicalDecl()).second)
      Pending.push_back(Def);
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    if (!Shared && VD->hasAttr<CUDASharedAttr>())
      Shared = VD;
    return true;
  }
  bool VisitAsmStmt(AsmStmt *S) {
    if (!Asm.isValid())
      Asm = S->getBeginLoc();
    return true;
  }

  /// The first row builtin read outside the row index, and where.
  SourceLocation RowBuiltin;
  std::string RowBuiltinName;
  /// The device function it was read in; null for the kernel itself.
  const FunctionDecl *RowBuiltinIn = nullptr;
  SourceLocation Sync;
  std::string SyncName;
  const VarDecl *Shared = nullptr;
  SourceLocation Asm;

private:
  bool noteBuiltin(Expr *E) {
    BuiltinRef R = matchBuiltin(E);
    if (!RowBuiltin.isValid() && isRowBuiltin(R)) {
      RowBuiltin = E->getBeginLoc();
      RowBuiltinName = (R.Var + ".y").str();
      RowBuiltinIn = Function;
    }
    return true;
  }

  const ASTContext &Ctx;
  const Stmt *Skip;
  const FunctionDecl *Function = nullptr;
  SmallPtrSet<const Decl *, 8> Seen;
  SmallVector<const FunctionDecl *, 4> Pending;
};

/// What a statement may do besides computing a value.
enum EffectKind : unsigned {
  /// Assignments, increments, new/delete, throw.
  WritesState = 1,
  /// Calls, except to constexpr or const/pure functions.
  CallsOut = 2,
  /// Array subscripts, dereferences and `->`.
  ReadsMemory = 4,
};

/// Finds the first effect of the given kinds in a statement.
class EffectFinder : public RecursiveASTVisitor<EffectFinder> {
public:
  explicit EffectFinder(unsigned Kinds) : Kinds(Kinds) {}

  // A builtin like blockIdx.z is a property whose semantic form calls a
  // header function; look at the syntactic form only.
  bool TraversePseudoObjectExpr(PseudoObjectExpr *E) {
    return TraverseStmt(E->getSyntacticForm());
  }
  bool TraverseLambdaExpr(LambdaExpr *E) { return found(E, CallsOut); }
  bool VisitBinaryOperator(BinaryOperator *E) {
    return E->isAssignmentOp() ? found(E, WritesState) : true;
  }
  bool VisitUnaryOperator(UnaryOperator *E) {
    if (E->isIncrementDecrementOp())
      return found(E, WritesState);
    return E->getOpcode() == UO_Deref ? found(E, ReadsMemory) : true;
  }
  bool VisitCXXNewExpr(CXXNewExpr *E) { return found(E, WritesState); }
  bool VisitCXXDeleteExpr(CXXDeleteExpr *E) { return found(E, WritesState); }
  bool VisitCXXThrowExpr(CXXThrowExpr *E) { return found(E, WritesState); }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    return found(E, ReadsMemory);
  }
  bool VisitMemberExpr(MemberExpr *E) {
    return E->isArrow() ? found(E, ReadsMemory) : true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (FD && (FD->isConstexpr() || FD->hasAttr<ConstAttr>() ||
               FD->hasAttr<PureAttr>()))
      return true;
    return found(CE, CallsOut);
  }

  const Expr *At = nullptr;
  unsigned Kind = 0;

private:
  bool found(const Expr *E, EffectKind K) {
    if (!(Kinds & K))
      return true;
    At = E;
    Kind = K;
    return false;
  }
  unsigned Kinds;
};
} // namespace

/// The first effect of \p Kinds in \p S, as "reads memory at L" and the
/// like, or "" when there is none.
static std::string effectOf(const ASTContext &Ctx, const Stmt *S,
                            unsigned Kinds) {
  EffectFinder F(Kinds);
  F.TraverseStmt(const_cast<Stmt *>(S));
  if (!F.At)
    return "";
  std::string At = where(Ctx, F.At->getBeginLoc());
  switch (F.Kind) {
  case WritesState:
    return "writes at " + At;
  case CallsOut:
    return "calls a function at " + At;
  default:
    return "reads memory at " + At;
  }
}

namespace {
/// The variables an expression reads.
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

/// The integer local declared by \p S whose initialiser is the row index,
/// or null.
static const VarDecl *rowIndexDecl(const Stmt *S) {
  const auto *DS = dyn_cast<DeclStmt>(S);
  if (!DS || !DS->isSingleDecl())
    return nullptr;
  const auto *VD = dyn_cast<VarDecl>(DS->getSingleDecl());
  if (!VD || !VD->getType()->isIntegerType() || !VD->getInit() ||
      !isRowIndex(VD->getInit()))
    return nullptr;
  return VD;
}

Expected<RowMapping> analyzeRowMapping(ASTContext &Ctx, const KernelInfo &K,
                                       StringRef Pass) {
  std::string Name = "kernel '" + K.name() + "'";
  const auto *Body = dyn_cast_or_null<CompoundStmt>(K.Decl->getBody());
  if (!Body)
    return refuse(Name + " has no body");
  if (inMacro(Body->getSourceRange()))
    return refuse(Name + " is written inside a macro; cuda-opt does not edit "
                         "macro expansions");

  // The row index: a top-level declaration.
  auto It = Body->body_begin(), End = Body->body_end();
  const VarDecl *Y = nullptr;
  auto YIt = It;
  for (auto I = It; I != End && !Y; ++I)
    if ((Y = rowIndexDecl(*I)))
      YIt = I;

  RowHazards H(Ctx, Y ? Y->getInit() : nullptr);
  H.scan(K.Decl);
  if (!Y) {
    if (!H.RowBuiltin.isValid())
      return refuse(Name +
                    " maps threads in 1-D (it never reads threadIdx.y "
                    "or blockIdx.y); " +
                    Pass +
                    "{axis=y} needs a row index 'int y = blockIdx.y * "
                    "blockDim.y + threadIdx.y;' (axis=x coarsens 1-D "
                    "kernels)");
    return refuse(Name + " reads " + H.RowBuiltinName + " at " +
                  where(Ctx, H.RowBuiltin) +
                  " but declares no row index 'int y = blockIdx.y * "
                  "blockDim.y + threadIdx.y;' at the top of its body");
  }
  if (H.Shared)
    return refuse(Name + " uses __shared__ memory ('" +
                  H.Shared->getNameAsString() + "' at " +
                  where(Ctx, H.Shared->getLocation()) +
                  "), so its threads do not work independently");
  if (H.Sync.isValid())
    return refuse(Name + " calls " + H.SyncName + " at " + where(Ctx, H.Sync) +
                  ", so its threads do not work independently");
  if (H.Asm.isValid())
    return refuse(Name + " has inline assembly at " + where(Ctx, H.Asm) +
                  ", which may read the thread's position");
  if (H.RowBuiltin.isValid())
    return refuse(Name + " reads " + H.RowBuiltinName + " at " +
                  where(Ctx, H.RowBuiltin) +
                  (H.RowBuiltinIn
                       ? " (in '" + H.RowBuiltinIn->getNameAsString() + "')"
                       : std::string()) +
                  " outside its row index '" + Y->getNameAsString() +
                  "'; a row's work may depend on the thread only through "
                  "the row index");
  if (!isNeverModifiedAfterInit(Y, Body, Ctx))
    return refuse(Name + " modifies its row index '" + Y->getNameAsString() +
                  "'");

  RowMapping M;
  M.Y.Var = Y;
  M.Y.Decl = cast<DeclStmt>(*YIt);
  M.Y.Axis = 1;
  if (inMacro(M.Y.Decl->getSourceRange()))
    return refuse("row index '" + Y->getNameAsString() +
                  "' is declared inside a macro; cuda-opt does not edit "
                  "macro expansions");

  // Before the row index: pure declarations, which stay outside the row
  // loop and so run once per thread. The work may not write them, or a
  // value would carry from one row to the next.
  for (; It != YIt; ++It) {
    const Stmt *S = *It;
    if (isa<NullStmt>(S))
      continue;
    const auto *DS = dyn_cast<DeclStmt>(S);
    if (!DS)
      return refuse("the statement at " + where(Ctx, S->getBeginLoc()) +
                    " comes before the row index '" + Y->getNameAsString() +
                    "' and is not a plain declaration, so it would run once "
                    "per thread instead of once per row");
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD || !VD->hasLocalStorage())
        return refuse("the declaration at " + where(Ctx, D->getLocation()) +
                      " comes before the row index '" + Y->getNameAsString() +
                      "' and is not a plain local");
      if (VD->getInit())
        if (std::string Effect =
                effectOf(Ctx, VD->getInit(), WritesState | CallsOut);
            !Effect.empty())
          return refuse("the declaration of '" + VD->getNameAsString() +
                        "' comes before the row index '" +
                        Y->getNameAsString() + "' and " + Effect +
                        ", so it would run once per thread instead of once "
                        "per row");
      if (!isNeverModifiedAfterInit(VD, Body, Ctx))
        return refuse("'" + VD->getNameAsString() +
                      "' is declared before "
                      "the row index '" +
                      Y->getNameAsString() +
                      "' and modified later, so with several rows per thread "
                      "its value would carry from one row to the next");
    }
  }
  ++It;

  // Between the row index and the guard: pure declarations that read no
  // memory. They move into the row loop and also run for the rows the new
  // grid adds past the old one, before the guard drops them.
  for (; It != End; ++It) {
    const Stmt *S = *It;
    if (isa<NullStmt>(S))
      continue;
    const auto *DS = dyn_cast<DeclStmt>(S);
    if (!DS)
      break;
    M.Between.push_back(S);
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD || !VD->hasLocalStorage())
        return refuse("the declaration at " + where(Ctx, D->getLocation()) +
                      " before the bounds guard is not a plain local");
      if (!VD->getInit())
        continue;
      if (std::string Effect = effectOf(Ctx, VD->getInit(),
                                        WritesState | CallsOut | ReadsMemory);
          !Effect.empty())
        return refuse("the declaration of '" + VD->getNameAsString() +
                      "' before the bounds guard " + Effect +
                      "; it would also run for the rows past the bound that "
                      "the new grid adds");
    }
  }
  if (It == End)
    return refuse(Name + " has no bounds guard 'if (... " +
                  Y->getNameAsString() + " < h ...)' after its row index");
  const auto *If = dyn_cast<IfStmt>(*It);
  if (!If)
    return refuse("the statement at " + where(Ctx, (*It)->getBeginLoc()) +
                  " follows the row index but is not a bounds guard 'if (x "
                  "< w && " +
                  Y->getNameAsString() + " < h)'");
  if (inMacro(If->getSourceRange()))
    return refuse(Name + ": the bounds guard is written inside a macro; "
                         "cuda-opt does not edit macro expansions");

  // The guard: one leaf compares the row index with its bound; the leaves
  // before it also run for rows past the bound, so they may not read
  // memory; the ones after it run for exactly the rows they ran for before.
  auto NotGuard = [&]() {
    return refuse("the statement at " + where(Ctx, If->getBeginLoc()) +
                  " is not a bounds guard of the form 'if (x < w && " +
                  Y->getNameAsString() + " < h)' or 'if (x >= w || " +
                  Y->getNameAsString() + " >= h) return;'");
  };
  if (If->getElse() || If->getInit() || If->getConditionVariable() ||
      If->isConstexpr())
    return NotGuard();
  M.EarlyReturn = isBareReturn(If->getThen());
  SmallVector<const Expr *, 4> Leaves;
  flattenLogical(If->getCond(), M.EarlyReturn ? BO_LOr : BO_LAnd, Leaves);
  bool Found = false;
  for (const Expr *Leaf : Leaves) {
    M.Leaves.push_back(Leaf);
    const auto *BO = dyn_cast<BinaryOperator>(Leaf->IgnoreParenImpCasts());
    if (!Found && BO && BO->isRelationalOp()) {
      BinaryOperatorKind Op = BO->getOpcode();
      const Expr *Other = nullptr;
      if (refersTo(BO->getLHS(), Y)) {
        Other = BO->getRHS();
      } else if (refersTo(BO->getRHS(), Y)) {
        Other = BO->getLHS();
        Op = BinaryOperator::reverseComparisonOp(Op);
      }
      // `y < h` keeps the row; `y >= h` (early return) drops it.
      bool InRange = Op == BO_LT || Op == BO_LE;
      if (Other && InRange != M.EarlyReturn) {
        M.Y.Bound = Other;
        M.Y.Inclusive = Op == BO_LE || Op == BO_GT;
        M.RowLeaf = M.Leaves.size() - 1;
        Found = true;
        continue;
      }
    }
    if (Found)
      continue;
    if (std::string Effect =
            effectOf(Ctx, Leaf, WritesState | CallsOut | ReadsMemory);
        !Effect.empty())
      return refuse("the guard at " + where(Ctx, If->getBeginLoc()) + " " +
                    Effect + " before it tests the row bound '" +
                    Y->getNameAsString() +
                    " < h'; that would also run for the rows past the bound "
                    "that the new grid adds");
  }
  if (!Found)
    return refuse(
        "the guard at " + where(Ctx, If->getBeginLoc()) +
        " does not test the row index '" + Y->getNameAsString() +
        "' against a bound ('" + Y->getNameAsString() + " < h' among its " +
        (M.EarlyReturn ? "'||' alternatives" : "'&&' conditions") + ")");
  M.Guard = If;

  // Which declarations and conditions are the same for all of a thread's
  // rows: those that read neither the row index nor what is computed from
  // it, nor anything the kernel writes.
  SmallPtrSet<const VarDecl *, 4> PerRow{Y};
  auto ReadsPerRow = [&](const Stmt *S) {
    VarCollector Reads;
    Reads.TraverseStmt(const_cast<Stmt *>(S));
    for (const VarDecl *V : Reads.Vars)
      if (PerRow.contains(V) ||
          (V->hasLocalStorage() && !isNeverModifiedAfterInit(V, Body, Ctx)))
        return true;
    return false;
  };
  for (const Stmt *S : M.Between) {
    bool Invariant = true;
    for (const Decl *D : cast<DeclStmt>(S)->decls()) {
      const auto *VD = cast<VarDecl>(D);
      if ((VD->getInit() && ReadsPerRow(VD->getInit())) ||
          !isNeverModifiedAfterInit(VD, Body, Ctx))
        Invariant = false;
    }
    if (!Invariant)
      for (const Decl *D : cast<DeclStmt>(S)->decls())
        PerRow.insert(cast<VarDecl>(D));
    M.BetweenInvariant.push_back(Invariant);
  }
  for (unsigned I = 0; I < M.Leaves.size(); ++I) {
    bool Invariant =
        I != M.RowLeaf &&
        effectOf(Ctx, M.Leaves[I], WritesState | CallsOut | ReadsMemory)
            .empty();
    M.RowInvariant.push_back(Invariant && !ReadsPerRow(M.Leaves[I]));
  }

  // The bound stays the same for the whole kernel.
  std::string BoundText = sourceText(Ctx, M.Y.Bound->getSourceRange());
  if (!effectOf(Ctx, M.Y.Bound, WritesState | CallsOut | ReadsMemory).empty())
    return refuse("the row bound '" + BoundText +
                  "' of the guard is not a plain value");
  VarCollector C;
  C.TraverseStmt(const_cast<Expr *>(M.Y.Bound));
  for (const VarDecl *V : C.Vars)
    if (V->hasLocalStorage() && !isa<ParmVarDecl>(V))
      return refuse("the row bound '" + BoundText +
                    "' of the guard uses the "
                    "local '" +
                    V->getNameAsString() +
                    "'; it must be a parameter or a constant");
    else if (V->hasLocalStorage() && !isNeverModifiedAfterInit(V, Body, Ctx))
      return refuse("the row bound '" + BoundText + "' of the guard uses '" +
                    V->getNameAsString() + "', which the kernel modifies");

  ++It;
  if (const Stmt *Stray =
          collectGuardedWork(If, M.EarlyReturn, ArrayRef(It, End), M.Body))
    return refuse("the statement at " + where(Ctx, Stray->getBeginLoc()) +
                  " after the bounds guard runs once per thread; with "
                  "several rows per thread it would run once per row");
  if (M.Body.empty())
    return refuse(Name + " does nothing after its guard");
  if (const Stmt *S = firstMacroStatement(M.Body))
    return refuse("the statement at " + where(Ctx, S->getBeginLoc()) +
                  " is a macro expansion; cuda-opt does not edit macro "
                  "expansions");

  // Returns become `continue` of the row loop: the guard's own, and those
  // in the work outside nested loops.
  SmallVector<const Stmt *, 4> Moved{If};
  if (M.EarlyReturn)
    Moved.append(M.Body.begin(), M.Body.end());
  if (Error E = loopableReturns(Ctx, Moved).takeError())
    return std::move(E);

  // Every launch's grid.y is a ceil-div of the row bound by block.y, so the
  // old grid covered every row below the bound, and a grid of ceil(grid.y /
  // F) blocks of F-row threads covers at least as many.
  ThreadMapping Rows;
  Rows.Dims.push_back(M.Y);
  if (Error E = analyzeLaunches(Ctx, K, Rows, UnmappedAxes::Any).takeError())
    return refuse(Pass +
                  "{axis=y} needs grid.y of every launch to be a "
                  "ceil-div of the row bound '" +
                  BoundText + "' by block.y: " + toString(std::move(E)));

  SourceLocation RegionEnd =
      stmtEnd(Ctx, M.EarlyReturn ? M.Body.back() : If->getThen());
  M.Region = SourceRange(M.Y.Decl->getBeginLoc(), RegionEnd);
  return M;
}

} // namespace cuda_opt
