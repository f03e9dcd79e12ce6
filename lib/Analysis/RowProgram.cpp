//===- RowProgram.cpp - Kernels that give each thread one row -------------===//
//
// Part of cuda-opt.
//
// The row program is what may be shared between the threads of a group: the
// straight-line statements compute the same values in every thread of the
// group (they read nothing that differs between them), the loops' bounds are
// the same for the whole row, and each loop's iterations are independent
// apart from the recurrences it carries. The checks below establish exactly
// these facts and say which one fails.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/RowProgram.h"
#include "cuda-opt/Analysis/IndexExprBuilder.h"
#include "cuda-opt/Analysis/LaunchAliasing.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

std::string at(const ASTContext &Ctx, const Stmt *S) {
  return describeLocation(Ctx.getSourceManager(), S->getBeginLoc());
}

std::string quoted(const NamedDecl *D) {
  return "'" + D->getNameAsString() + "'";
}

const VarDecl *varOf(const Expr *E) {
  if (!E)
    return nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

/// Whether \p S or a statement inside it is one of \p Kinds.
template <typename... Kinds> bool containsStmt(const Stmt *S) {
  if (!S)
    return false;
  if (isa<Kinds...>(S))
    return true;
  for (const Stmt *C : S->children())
    if (containsStmt<Kinds...>(C))
      return true;
  return false;
}

bool containsLoop(const Stmt *S) {
  return containsStmt<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}

/// A local scalar: what a write to it changes stays in the thread.
bool isLocalScalar(const VarDecl *V) {
  return V && V->hasLocalStorage() && !V->getType()->isReferenceType() &&
         !V->getType()->isArrayType();
}

/// CUDA's 16-bit floating-point value types (cuda_fp16.h, cuda_bf16.h):
/// classes holding one or two 16-bit values, passed and returned by value by
/// the conversion and arithmetic intrinsics (__half2float, __hadd, ...).
bool isHalfValueType(QualType T) {
  T = T.getCanonicalType().getUnqualifiedType();
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->getDeclName().isIdentifier())
    return false;
  StringRef N = RD->getName();
  return N == "__half" || N == "__half2" || N == "__nv_bfloat16" ||
         N == "__nv_bfloat162" || N == "__half_raw" || N == "__nv_bfloat16_raw";
}

/// A value a system function may take or return without touching memory:
/// arithmetic, or a 16-bit float class by value (or by const reference,
/// which only reads the argument).
bool isValueType(QualType T) {
  if (T->isArithmeticType() || isHalfValueType(T))
    return true;
  if (const auto *R = T->getAs<ReferenceType>())
    return R->getPointeeType().isConstQualified() &&
           isHalfValueType(R->getPointeeType());
  return false;
}

/// Declared in a system header (CUDA's, the C++ library's) or a builtin.
bool isSystemDecl(const FunctionDecl *FD) {
  const SourceManager &SM = FD->getASTContext().getSourceManager();
  return FD->getBuiltinID() ||
         SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()));
}

/// `a = b` on a 16-bit float class (a CXXOperatorCallExpr of its trivial
/// or system copy assignment): the left-hand side, else null.
const Expr *halfAssignmentTarget(const CallExpr *CE) {
  const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE);
  if (!OC || OC->getOperator() != OO_Equal || OC->getNumArgs() != 2)
    return nullptr;
  const Expr *LHS = OC->getArg(0);
  if (!isHalfValueType(LHS->getType()))
    return nullptr;
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(OC->getDirectCallee());
  if (!MD || (!MD->isTrivial() && !isSystemDecl(MD)))
    return nullptr;
  return LHS;
}

/// What a call does: nothing but compute a value from its arguments (the
/// math library; a __device__ function of this file that only reads), read
/// memory through pointer arguments, or something else (writes, printf,
/// atomics, anything cuda-opt cannot see into).
enum class CallEffect { Pure, Reads, Other };

CallEffect callEffect(const CallExpr *CE, unsigned Depth = 0);

/// Whether a function body only computes (no writes through pointers or to
/// globals, no calls with effects).
class BodyEffects : public RecursiveASTVisitor<BodyEffects> {
public:
  explicit BodyEffects(unsigned Depth) : Depth(Depth) {}
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp() && !isLocalScalar(varOf(BO->getLHS())))
      Effect = CallEffect::Other;
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->isIncrementDecrementOp() && !isLocalScalar(varOf(UO->getSubExpr())))
      Effect = CallEffect::Other;
    if (UO->getOpcode() == UO_Deref && Effect == CallEffect::Pure)
      Effect = CallEffect::Reads;
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *) {
    if (Effect == CallEffect::Pure)
      Effect = CallEffect::Reads;
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    CallEffect E = callEffect(CE, Depth + 1);
    if (E > Effect)
      Effect = E;
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    if (VD->isStaticLocal() || VD->hasAttr<CUDASharedAttr>())
      Effect = CallEffect::Other;
    return true;
  }
  bool VisitAsmStmt(AsmStmt *) {
    Effect = CallEffect::Other;
    return true;
  }
  unsigned Depth;
  CallEffect Effect = CallEffect::Pure;
};

CallEffect callEffect(const CallExpr *CE, unsigned Depth) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || Depth > 4)
    return CallEffect::Other;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE)) {
    // `__half::operator float()` and friends: a conversion of a 16-bit
    // float value, declared in CUDA's headers.
    if (isa<CXXConversionDecl>(FD) && MC->getNumArgs() == 0 &&
        isHalfValueType(MC->getObjectType()) &&
        FD->getReturnType()->isArithmeticType() && isSystemDecl(FD))
      return CallEffect::Pure;
    return CallEffect::Other;
  }
  StringRef Name =
      FD->getDeclName().isIdentifier() ? FD->getName() : StringRef();
  if (Name.starts_with("__ldg") || Name.starts_with("__ldca") ||
      Name.starts_with("__ldcg") || Name.starts_with("__ldcs") ||
      Name.starts_with("__ldlu") || Name.starts_with("__ldcv"))
    return CallEffect::Reads;
  ASTContext &Ctx = FD->getASTContext();
  // A constant such as INFINITY (__builtin_huge_valf()).
  Expr::EvalResult Constant;
  if (!CE->isValueDependent() && CE->EvaluateAsRValue(Constant, Ctx))
    return CallEffect::Pure;
  if (isSystemDecl(FD)) {
    // The math library and CUDA's 16-bit float intrinsics: values in,
    // a value out. Warp-level intrinsics also take and return values but
    // exchange them between threads.
    if (CE->getNumArgs() == 0 || !isValueType(FD->getReturnType()) ||
        FD->getReturnType()->isReferenceType())
      return CallEffect::Other;
    if (Name.contains("shfl") || Name.contains("sync") ||
        Name.contains("vote") || Name.contains("ballot") ||
        Name.contains("match_") || Name.contains("reduce"))
      return CallEffect::Other;
    for (const ParmVarDecl *P : FD->parameters())
      if (!isValueType(P->getType()))
        return CallEffect::Other;
    return CallEffect::Pure;
  }
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->getBody() || FD->isVariadic() ||
      FD->getReturnType()->isVoidType())
    return CallEffect::Other;
  BodyEffects B(Depth);
  B.TraverseStmt(Def->getBody());
  if (B.Effect == CallEffect::Pure)
    for (const ParmVarDecl *P : FD->parameters())
      if (P->getType()->isPointerType() || P->getType()->isReferenceType())
        B.Effect = CallEffect::Reads;
  return B.Effect;
}

/// What a statement does, for the straight-line steps and for loops.
class EffectScan : public RecursiveASTVisitor<EffectScan> {
public:
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp())
      noteWrite(BO->getLHS(), BO);
    // A plain store does not read the element it writes.
    if (BO->getOpcode() == BO_Assign)
      if (const auto *AS =
              dyn_cast<ArraySubscriptExpr>(BO->getLHS()->IgnoreParens()))
        StoreTargets.insert(AS);
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->isIncrementDecrementOp())
      noteWrite(UO->getSubExpr(), UO);
    if (UO->getOpcode() == UO_Deref)
      ReadsMemory = true;
    if (UO->getOpcode() == UO_AddrOf)
      if (const VarDecl *V = varOf(UO->getSubExpr()))
        if (V->hasLocalStorage())
          AddressTaken.push_back({V, UO});
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *AS) {
    if (!StoreTargets.contains(AS))
      ReadsMemory = true;
    return true;
  }
  bool VisitMemberExpr(MemberExpr *ME) {
    if (ME->isArrow())
      ReadsMemory = true;
    return true;
  }
  bool VisitDeclStmt(DeclStmt *DS) {
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D)) {
        Declared.push_back(VD);
        LocalWrite = LocalWrite ? LocalWrite : DS;
      }
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    if (const Expr *LHS = halfAssignmentTarget(CE)) {
      noteWrite(LHS, CE);
      if (const auto *AS = dyn_cast<ArraySubscriptExpr>(LHS->IgnoreParens()))
        StoreTargets.insert(AS);
      return true;
    }
    switch (callEffect(CE)) {
    case CallEffect::Pure:
      break;
    case CallEffect::Reads:
      ReadsMemory = true;
      break;
    case CallEffect::Other:
      if (!EffectCall)
        EffectCall = CE;
      break;
    }
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *RS) {
    if (!Return)
      Return = RS;
    return true;
  }
  bool VisitGotoStmt(GotoStmt *GS) {
    if (!Goto)
      Goto = GS;
    return true;
  }
  bool VisitAsmStmt(AsmStmt *AS) {
    if (!Goto)
      Goto = AS;
    return true;
  }

  void noteWrite(const Expr *LHS, const Expr *Site) {
    const VarDecl *V = varOf(LHS);
    if (isLocalScalar(V)) {
      LocalWrites.push_back({V, Site});
      LocalWrite = LocalWrite ? LocalWrite : Site;
      return;
    }
    if (V && V->hasLocalStorage() && V->getType()->isArrayType())
      return noteLocalArray(V, Site);
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(LHS->IgnoreParenImpCasts()))
      if (const VarDecl *Base = varOf(AS->getBase()))
        if (Base->hasLocalStorage() && Base->getType()->isArrayType())
          return noteLocalArray(Base, Site);
    MemoryWrite = MemoryWrite ? MemoryWrite : Site;
  }
  void noteLocalArray(const VarDecl *V, const Expr *Site) {
    if (!LocalArrayWrite)
      LocalArrayWrite = Site, LocalArray = V;
  }

  DenseSet<const ArraySubscriptExpr *> StoreTargets;
  bool ReadsMemory = false;
  const Stmt *MemoryWrite = nullptr;
  const Stmt *LocalWrite = nullptr;
  const Stmt *LocalArrayWrite = nullptr;
  const VarDecl *LocalArray = nullptr;
  const CallExpr *EffectCall = nullptr;
  const Stmt *Return = nullptr;
  const Stmt *Goto = nullptr;
  SmallVector<std::pair<const VarDecl *, const Expr *>, 4> LocalWrites;
  SmallVector<std::pair<const VarDecl *, const Expr *>, 2> AddressTaken;
  SmallVector<const VarDecl *, 4> Declared;
};

/// `break` statements that leave the loop being scanned (not a nested loop
/// or switch).
class BreakFinder : public RecursiveASTVisitor<BreakFinder> {
public:
  bool TraverseForStmt(ForStmt *S) { return nested([&] { return RecursiveASTVisitor::TraverseForStmt(S); }); }
  bool TraverseWhileStmt(WhileStmt *S) { return nested([&] { return RecursiveASTVisitor::TraverseWhileStmt(S); }); }
  bool TraverseDoStmt(DoStmt *S) { return nested([&] { return RecursiveASTVisitor::TraverseDoStmt(S); }); }
  bool TraverseSwitchStmt(SwitchStmt *S) { return nested([&] { return RecursiveASTVisitor::TraverseSwitchStmt(S); }); }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) { return nested([&] { return RecursiveASTVisitor::TraverseCXXForRangeStmt(S); }); }
  bool VisitBreakStmt(BreakStmt *BS) {
    if (Depth == 0 && !Break)
      Break = BS;
    return true;
  }
  template <typename F> bool nested(F Fn) {
    ++Depth;
    bool R = Fn();
    --Depth;
    return R;
  }
  unsigned Depth = 0;
  const BreakStmt *Break = nullptr;
};

/// The memory accesses of a loop: every `p[idx]`, whether it is read and/or
/// written, and accesses cuda-opt cannot index (`*p`, `p->f`).
class AccessScan : public RecursiveASTVisitor<AccessScan> {
public:
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp())
      mark(BO->getLHS(), BO->getOpcode() != BO_Assign);
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->isIncrementDecrementOp())
      mark(UO->getSubExpr(), true);
    if (UO->getOpcode() == UO_Deref && !Unindexed)
      Unindexed = UO;
    return true;
  }
  bool VisitMemberExpr(MemberExpr *ME) {
    if (ME->isArrow() && !Unindexed)
      Unindexed = ME;
    return true;
  }
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *AS) {
    All.push_back(AS);
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    if (const Expr *LHS = halfAssignmentTarget(CE))
      mark(LHS, false);
    return true;
  }
  void mark(const Expr *LHS, bool AlsoRead) {
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(LHS->IgnoreParens())) {
      Written.insert(AS);
      if (AlsoRead)
        ReadToo.insert(AS);
    }
  }
  SmallVector<const ArraySubscriptExpr *, 8> All;
  DenseSet<const ArraySubscriptExpr *> Written, ReadToo;
  const Expr *Unindexed = nullptr;
};

/// `p`, a local `q = p + e` or `q = &p[e]` set once: the pointer variable it
/// comes from and the offset.
const VarDecl *rootOf(const Expr *Base, IndexExprBuilder &B, IndexExpr &Offset,
                      unsigned Depth = 0) {
  if (Depth > 4)
    return nullptr;
  const Expr *E = Base->IgnoreParenImpCasts();
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->getOpcode() == BO_Add) {
      const Expr *P = BO->getLHS(), *I = BO->getRHS();
      if (!P->getType()->isPointerType())
        std::swap(P, I);
      if (!P->getType()->isPointerType() || !I->getType()->isIntegerType())
        return nullptr;
      Offset = Offset + B.build(I);
      return rootOf(P, B, Offset, Depth + 1);
    }
    return nullptr;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->getOpcode() != UO_AddrOf)
      return nullptr;
    const auto *AS =
        dyn_cast<ArraySubscriptExpr>(UO->getSubExpr()->IgnoreParens());
    if (!AS)
      return nullptr;
    Offset = Offset + B.build(AS->getIdx());
    return rootOf(AS->getBase(), B, Offset, Depth + 1);
  }
  const VarDecl *V = varOf(E);
  if (!V || !B.writesOf(V).empty())
    return nullptr;
  if (isa<ParmVarDecl>(V))
    return V->getType()->isPointerType() ? V : nullptr;
  if (!V->hasLocalStorage())
    return V->getType()->isArrayType() || V->getType()->isPointerType()
               ? V
               : nullptr;
  if (V->getType()->isPointerType() && V->getInit())
    return rootOf(V->getInit(), B, Offset, Depth + 1);
  return nullptr;
}

} // namespace

/// Why the memory behind \p A and \p B might overlap, or nothing.
std::optional<std::string> rowPointersMayOverlap(ASTContext &Ctx, const KernelInfo &K,
                                          const VarDecl *A, const VarDecl *B) {
  std::string Pair = quoted(A) + " and " + quoted(B);
  if (!A->hasLocalStorage() && !B->hasLocalStorage() &&
      A->getType()->isArrayType() && B->getType()->isArrayType())
    return std::nullopt; // Two global arrays are two objects.
  const auto *PA = dyn_cast<ParmVarDecl>(A), *PB = dyn_cast<ParmVarDecl>(B);
  if (!PA || !PB)
    return Pair + " are not both parameters of the kernel";
  if (PA->getType().isRestrictQualified() && PB->getType().isRestrictQualified())
    return std::nullopt;
  std::string Kernel = "kernel '" + K.name() + "'";
  if (K.isExternC())
    return Kernel + " is extern \"C\" and may be launched with " + Pair +
           " overlapping";
  if (K.Launches.empty())
    return Kernel + " is not launched in this file, so nothing shows that " +
           Pair + " do not overlap (mark them __restrict__ if they never do)";
  if (std::optional<std::string> Use = foreignKernelUse(Ctx, K, true))
    return Kernel + " is referenced at " + *Use +
           ", which may launch it with " + Pair + " overlapping";
  for (const LaunchSite &L : K.Launches)
    if (std::optional<std::string> Why = unprovableLaunch(Ctx, K, L))
      return "nothing shows that " + Pair + " do not overlap: at the launch at " +
             describeLocation(Ctx.getSourceManager(), L.Call->getBeginLoc()) +
             ", " + *Why;
  return std::nullopt;
}

namespace {

class RowAnalysis {
public:
  RowAnalysis(ASTContext &Ctx, const KernelInfo &K, RowProgram &P)
      : Ctx(Ctx), K(K), P(P), B(Ctx, K.Decl, P.Symbols) {}

  Error run();

private:
  Error analyzeLoop(const ForStmt *FS);
  Error checkAccesses(RowLoop &L, const AccessScan &A, const EffectScan &E);

  ASTContext &Ctx;
  const KernelInfo &K;
  RowProgram &P;
  IndexExprBuilder B;
  /// Locals declared in the per-row work.
  DenseSet<const VarDecl *> RowLocals;
};

Error RowAnalysis::analyzeLoop(const ForStmt *FS) {
  std::string LoopAt = "the loop at " + at(Ctx, FS);
  RowLoop L;
  L.Loop = FS;
  // for (T j = a; ...
  const auto *Init = dyn_cast_or_null<DeclStmt>(FS->getInit());
  const VarDecl *J = Init && Init->isSingleDecl()
                         ? dyn_cast<VarDecl>(Init->getSingleDecl())
                         : nullptr;
  if (!J || !J->getType()->isIntegerType() || !J->getInit())
    return refuse(LoopAt +
                  " does not declare an integer counter in its init, like "
                  "'for (int j = 0; j < cols; ++j)'");
  L.Var = J;
  L.Init = J->getInit();
  Expr::EvalResult Start;
  if (L.Init->EvaluateAsInt(Start, Ctx))
    L.ConstStart = Start.Val.getInt().getExtValue();
  // ...; j < C; ...
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(
      FS->getCond() ? FS->getCond()->IgnoreParenImpCasts() : nullptr);
  std::string Shape = LoopAt + " is not counted like 'for (int " +
                      J->getNameAsString() + " = a; " + J->getNameAsString() +
                      " < b; ++" + J->getNameAsString() + ")'";
  if (!Cond)
    return refuse(Shape);
  BinaryOperatorKind Op = Cond->getOpcode();
  if (varOf(Cond->getLHS()) == J && (Op == BO_LT || Op == BO_LE)) {
    L.Bound = Cond->getRHS();
    L.Inclusive = Op == BO_LE;
  } else if (varOf(Cond->getRHS()) == J && (Op == BO_GT || Op == BO_GE)) {
    L.Bound = Cond->getLHS();
    L.Inclusive = Op == BO_GE;
  } else {
    return refuse(Shape);
  }
  // ...; ++j)
  const Expr *Inc = FS->getInc() ? FS->getInc()->IgnoreParenImpCasts() : nullptr;
  bool StepOne = false;
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Inc))
    StepOne = UO->isIncrementOp() && varOf(UO->getSubExpr()) == J;
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Inc)) {
    std::optional<int64_t> One;
    if (BO->getOpcode() == BO_AddAssign && varOf(BO->getLHS()) == J)
      One = B.evaluate(BO->getRHS());
    if (BO->getOpcode() == BO_Assign && varOf(BO->getLHS()) == J)
      if (const auto *Add =
              dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts()))
        if (Add->getOpcode() == BO_Add && varOf(Add->getLHS()) == J)
          One = B.evaluate(Add->getRHS());
    StepOne = One && *One == 1;
  }
  if (!StepOne)
    return refuse(Shape);

  EffectScan E;
  E.TraverseStmt(const_cast<Stmt *>(FS->getBody()));
  for (const auto &[V, Site] : E.LocalWrites)
    if (V == J)
      return refuse(LoopAt + " changes its counter '" + J->getNameAsString() +
                    "' at " + at(Ctx, Site) + " inside its body");
  if (E.Return)
    return refuse(LoopAt + " returns at " + at(Ctx, E.Return) +
                  " from inside the loop; the threads sharing the row could "
                  "not all stop there");
  if (E.Goto)
    return refuse(LoopAt + " has a goto or asm statement at " +
                  at(Ctx, E.Goto));
  L.ContainsContinue = containsStmt<ContinueStmt>(FS->getBody());
  BreakFinder BF;
  BF.TraverseStmt(const_cast<Stmt *>(FS->getBody()));
  if (BF.Break)
    return refuse(LoopAt + " leaves early with 'break' at " +
                  at(Ctx, BF.Break) +
                  ", so which columns it visits depends on the data");
  if (E.EffectCall)
    return refuse(LoopAt + " calls '" +
                  E.EffectCall->getDirectCallee()->getNameAsString() +
                  "' at " + at(Ctx, E.EffectCall) +
                  ", which may have effects (atomics, output, writes "
                  "cuda-opt cannot see) that cannot be spread over threads");
  if (E.LocalArrayWrite)
    return refuse(LoopAt + " writes the local array " + quoted(E.LocalArray) +
                  " at " + at(Ctx, E.LocalArrayWrite) +
                  "; each thread of the row would only hold its own columns");
  for (const auto &[V, Site] : E.AddressTaken)
    return refuse(LoopAt + " takes the address of " + quoted(V) + " at " +
                  at(Ctx, Site) + ", so cuda-opt cannot tell how it changes");

  // The bounds are the same for every iteration and every thread of the row.
  for (const Expr *X : {L.Init, L.Bound}) {
    if (X->HasSideEffects(Ctx))
      return refuse(LoopAt + " has a bound with side effects");
    for (const auto &[V, Site] : E.LocalWrites)
      if (V != J) {
        // Does the bound read V?
        struct Reads : RecursiveASTVisitor<Reads> {
          const VarDecl *V;
          bool Found = false;
          bool VisitDeclRefExpr(DeclRefExpr *D) {
            Found |= D->getDecl() == V;
            return true;
          }
        } R;
        R.V = V;
        R.TraverseStmt(const_cast<Expr *>(X));
        if (R.Found)
          return refuse(LoopAt + " has a bound that reads " + quoted(V) +
                        ", which the loop changes at " + at(Ctx, Site));
      }
  }

  Expected<SmallVector<Recurrence, 4>> Recs =
      analyzeRecurrences(Ctx, FS, J, /*AllowScans=*/true);
  if (!Recs)
    return Recs.takeError();
  L.Recurrences.assign(Recs->begin(), Recs->end());
  if (llvm::any_of(L.Recurrences, [](const Recurrence &R) { return R.Scan; })) {
    // The lanes take a chunk of columns per step and pass the running sum
    // on with shuffles, so every lane of the row must run every step.
    if (L.Recurrences.size() > 1)
      return refuse(LoopAt + " computes a prefix sum and carries other "
                             "scalars; cuda-opt spreads a scan loop over a "
                             "row's threads only when it carries the sum "
                             "alone");
    if (L.ContainsContinue)
      return refuse(LoopAt + " computes a prefix sum and has a 'continue'; "
                             "every lane of the row must run every step "
                             "of a spread scan");
  }

  AccessScan A;
  A.TraverseStmt(const_cast<Stmt *>(FS->getBody()));
  L.WritesMemory = E.MemoryWrite != nullptr;
  L.ReadsMemory = E.ReadsMemory;
  if (Error Err = checkAccesses(L, A, E))
    return Err;
  if (L.WritesMemory) {
    EffectScan BoundReads;
    BoundReads.TraverseStmt(const_cast<Expr *>(L.Bound));
    BoundReads.TraverseStmt(const_cast<Expr *>(L.Init));
    if (BoundReads.ReadsMemory)
      return refuse(LoopAt + " writes memory and has a bound that reads "
                             "memory, which the writes might change");
  }

  RowStep S;
  S.Kind = RowStep::Loop;
  S.S = FS;
  S.LoopIndex = P.Loops.size();
  S.ReadsMemory = L.ReadsMemory;
  S.WritesMemory = L.WritesMemory;
  P.Loops.push_back(std::move(L));
  P.Steps.push_back(S);
  return Error::success();
}

Error RowAnalysis::checkAccesses(RowLoop &L, const AccessScan &A,
                                 const EffectScan &E) {
  std::string LoopAt = "the loop at " + at(Ctx, L.Loop);
  const VarDecl *J = L.Var;
  L.IndexSymbol = P.Symbols.decl(SymbolKind::LoopVar, J, J->getNameAsString(),
                                 DepLoop);
  B.bind(J, IndexExpr::symbol(L.IndexSymbol));

  // The statements of the loop body, for PlainStore.
  SmallVector<const Stmt *, 8> Top;
  if (const auto *CS = dyn_cast<CompoundStmt>(L.Loop->getBody()))
    Top.append(CS->body_begin(), CS->body_end());
  else
    Top.push_back(L.Loop->getBody());

  for (const ArraySubscriptExpr *AS : A.All) {
    RowAccess X;
    X.Expr = AS;
    X.Write = A.Written.contains(AS);
    X.Read = !X.Write || A.ReadToo.contains(AS);
    IndexExpr Offset;
    X.Root = rootOf(AS->getBase(), B, Offset);
    if (X.Root) {
      X.Index = Offset + B.build(AS->getIdx());
      std::optional<IndexExpr> C = X.Index.coefficientOf(L.IndexSymbol);
      if (C && C->getConstant()) {
        IndexExpr Rest = X.Index - IndexExpr::symbol(L.IndexSymbol).scaled(*C->getConstant());
        if (!(Rest.dependence(P.Symbols) & DepLoop)) {
          X.Stride = *C->getConstant();
          X.Base = std::move(Rest);
        }
      }
    }
    // `p[idx] = e;` as a whole statement: a plain assignment, or the
    // assignment operator of a 16-bit float class.
    if (X.Write)
      for (const Stmt *S : Top) {
        const Expr *Target = nullptr;
        if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
          if (BO->getOpcode() == BO_Assign)
            Target = BO->getLHS();
        } else if (const auto *CE = dyn_cast<CallExpr>(
                       isa<Expr>(S) ? cast<Expr>(S)->IgnoreImplicit() : S)) {
          Target = halfAssignmentTarget(CE);
        }
        if (Target && Target->IgnoreParens() == AS)
          X.PlainStore = true;
      }
    L.Accesses.push_back(std::move(X));
  }

  if (!L.WritesMemory)
    return Error::success();
  if (A.Unindexed)
    return refuse(LoopAt + " writes memory and accesses memory at " +
                  at(Ctx, A.Unindexed) +
                  " through a pointer cuda-opt cannot index");
  for (const RowAccess &W : L.Accesses) {
    if (!W.Write)
      continue;
    std::string What = "'" + sourceText(Ctx, W.Expr->getSourceRange()) + "'";
    if (!W.Root)
      return refuse(LoopAt + " writes " + What + " at " + at(Ctx, W.Expr) +
                    " through a pointer cuda-opt cannot trace to a kernel "
                    "parameter");
    if (!W.Stride)
      return refuse(LoopAt + " writes " + What + " at " + at(Ctx, W.Expr) +
                    ", whose index is not '" + J->getNameAsString() +
                    "' times a non-zero constant plus a value fixed for the "
                    "row, so different iterations may write the same "
                    "element");
    for (const RowAccess &O : L.Accesses) {
      if (&O == &W)
        continue;
      std::string Other = "'" + sourceText(Ctx, O.Expr->getSourceRange()) + "'";
      if (!O.Root)
        return refuse(LoopAt + " writes " + What + " and accesses " + Other +
                      " at " + at(Ctx, O.Expr) +
                      " through a pointer cuda-opt cannot trace");
      if (O.Root == W.Root) {
        if (O.Index != W.Index)
          return refuse(LoopAt + " writes " + What + " and also accesses " +
                        Other + " at " + at(Ctx, O.Expr) +
                        ", another element of the same array, so its "
                        "iterations (or rows) may depend on each other");
        continue;
      }
      if (std::optional<std::string> Why =
              rowPointersMayOverlap(Ctx, K, W.Root, O.Root))
        return refuseMayAlias(LoopAt + " writes " + What + " and reads " +
                              Other +
                      ", and " + *Why);
    }
  }
  return Error::success();
}

Error RowAnalysis::run() {
  const ThreadMapping &M = P.Mapping;
  std::string Kernel = "kernel '" + K.name() + "'";
  SmallVector<const Stmt *, 8> Stmts;
  if (!M.EarlyReturn && M.Body.size() == 1 && isa<CompoundStmt>(M.Body[0])) {
    for (const Stmt *S : cast<CompoundStmt>(M.Body[0])->body())
      Stmts.push_back(S);
  } else {
    Stmts.append(M.Body.begin(), M.Body.end());
  }

  // Locals the per-row work declares; a local declared before it keeps its
  // value from one row to the next once a thread handles several rows.
  EffectScan Whole;
  for (const Stmt *S : Stmts)
    Whole.TraverseStmt(const_cast<Stmt *>(S));
  RowLocals.insert(Whole.Declared.begin(), Whole.Declared.end());
  for (const auto &[V, Site] : Whole.LocalWrites)
    if (!RowLocals.contains(V))
      return refuse(Kernel + " changes " + quoted(V) + " at " + at(Ctx, Site) +
                    ", which is declared before the row's work starts");
  for (const auto &[V, Site] : Whole.AddressTaken)
    if (!RowLocals.contains(V))
      return refuse(Kernel + " takes the address of " + quoted(V) + " at " +
                    at(Ctx, Site) +
                    ", which is declared before the row's work starts");
  if (Whole.Goto)
    return refuse(Kernel + " has a goto or asm statement at " +
                  at(Ctx, Whole.Goto));

  for (const Stmt *S : Stmts) {
    if (isa<NullStmt>(S))
      continue;
    if (const auto *FS = dyn_cast<ForStmt>(S)) {
      if (Error E = analyzeLoop(FS))
        return E;
      continue;
    }
    if (containsLoop(S))
      return refuse("the loop in the statement at " + at(Ctx, S) +
                    " is nested in a condition or block; only the loops at "
                    "the top of the row's work can be shared between "
                    "threads");
    EffectScan E;
    E.TraverseStmt(const_cast<Stmt *>(S));
    RowStep Step;
    Step.S = S;
    Step.ReadsMemory = E.ReadsMemory;
    Step.WritesMemory = E.MemoryWrite || E.EffectCall;
    Step.Returns = E.Return != nullptr;
    Step.Kind = Step.WritesMemory ? RowStep::Store : RowStep::Scalar;
    if (Step.Kind == RowStep::Store && (E.LocalWrite || E.Return))
      return refuse("the statement at " + at(Ctx, S) +
                    " writes memory (or has other effects) and also " +
                    (E.Return ? "returns" : "changes local variables") +
                    "; one thread per row would do the writes while all of "
                    "them need the rest");
    if (E.LocalArrayWrite)
      Step.Kind = RowStep::Scalar; // Every thread keeps its own copy.
    P.Steps.push_back(Step);
  }
  if (P.Loops.empty())
    return refuse(Kernel +
                  " has no loop over the row at the top of its per-row "
                  "work, so there is nothing to share between threads");
  return Error::success();
}

} // namespace

Expected<RowProgram> analyzeRowProgram(ASTContext &Ctx, const KernelInfo &K) {
  Expected<ThreadMapping> M = analyzeThreadMapping(Ctx, K);
  if (!M)
    return M.takeError();
  if (M->rank() != 1)
    return refuse("kernel '" + K.name() +
                  "' maps threads in 2-D; a row program has one row per "
                  "thread along x");
  if (Error E = loopableReturns(Ctx, M->Body).takeError())
    return std::move(E);
  RowProgram P;
  P.Mapping = std::move(*M);
  RowAnalysis A(Ctx, K, P);
  if (Error E = A.run())
    return std::move(E);
  return P;
}

} // namespace cuda_opt
