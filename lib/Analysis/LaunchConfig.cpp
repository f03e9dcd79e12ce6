//===- LaunchConfig.cpp - Evaluate <<<grid, block>>> arguments -----------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/LaunchConfig.h"

#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

namespace {
/// Finds writes to a variable: assignments, ++/--, address-of, binding to a
/// non-const reference, and member calls on it that are not const.
class WriteFinder : public RecursiveASTVisitor<WriteFinder> {
public:
  explicit WriteFinder(const VarDecl *V) : V(V) {}
  bool refersToV(const Expr *E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return refersToV(ME->getBase());
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      return DRE->getDecl() == V;
    return false;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp() && refersToV(BO->getLHS()))
      Written = true;
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *OC) {
    if (OC->isAssignmentOp() && OC->getNumArgs() > 0 && refersToV(OC->getArg(0)))
      Written = true;
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if ((UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf) &&
        refersToV(UO->getSubExpr()))
      Written = true;
    return true;
  }
  bool VisitVarDecl(VarDecl *D) {
    // `T &r = v;` may write through r.
    if (D->getType()->isReferenceType() &&
        !D->getType().getNonReferenceType().isConstQualified() && D->getInit() &&
        refersToV(D->getInit()))
      Written = true;
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    // Kernel arguments are copied into the launch: a read, even when the
    // callee is unresolved (a launch inside a template).
    if (isa<CUDAKernelCallExpr>(CE))
      return true;
    const FunctionDecl *FD = CE->getDirectCallee();
    for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
      if (!refersToV(CE->getArg(I)))
        continue;
      if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE)) {
        Written |= I == 0 && OC->isAssignmentOp();
        continue;
      }
      // C variadic arguments (printf) are passed by value.
      if (FD && I >= FD->getNumParams() && FD->isVariadic())
        continue;
      if (!FD || I >= FD->getNumParams()) {
        Written = true; // Unknown callee: assume the worst.
        continue;
      }
      QualType PT = FD->getParamDecl(I)->getType();
      if (PT->isReferenceType() && !PT.getNonReferenceType().isConstQualified())
        Written = true;
    }
    return true;
  }
  const VarDecl *V;
  bool Written = false;
};
} // namespace

bool isNeverModifiedAfterInit(const VarDecl *V, const Stmt *Scope,
                              ASTContext &Ctx) {
  if (!V->hasLocalStorage() && !V->getType().isConstQualified())
    return false;
  if (!Scope)
    return V->getType().isConstQualified();
  WriteFinder F(V);
  F.TraverseStmt(const_cast<Stmt *>(Scope));
  return !F.Written;
}

static std::optional<int64_t> evalInt(const Expr *E, ASTContext &Ctx,
                                      const Stmt *Scope) {
  if (E->isValueDependent())
    return std::nullopt;
  Expr::EvalResult R;
  if (E->EvaluateAsInt(R, Ctx))
    return R.Val.getInt().getExtValue();
  // A local integer that is initialised with a constant and never changed.
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      if (VD->getInit() && VD->getType()->isIntegerType() &&
          isNeverModifiedAfterInit(VD, Scope, Ctx))
        return evalInt(VD->getInit(), Ctx, Scope);
  return std::nullopt;
}

static std::optional<Dim3> evalDim3In(const Expr *E, ASTContext &Ctx,
                                      const Stmt *Scope) {
  if (!E)
    return std::nullopt;
  E = E->IgnoreParenImpCasts();
  while (const auto *Tmp = dyn_cast<MaterializeTemporaryExpr>(E))
    E = Tmp->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
    E = BT->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
    E = FC->getSubExpr()->IgnoreParenImpCasts();
  if (E->getType()->isIntegerType()) {
    if (std::optional<int64_t> V = evalInt(E, Ctx, Scope))
      return Dim3{*V, 1, 1};
    return std::nullopt;
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    // dim3(x, y = 1, z = 1), or a copy of another dim3.
    if (CE->getNumArgs() == 1 && !CE->getArg(0)->getType()->isIntegerType())
      return evalDim3In(CE->getArg(0), Ctx, Scope);
    Dim3 D{1, 1, 1};
    for (unsigned I = 0; I < CE->getNumArgs() && I < 3; ++I) {
      const Expr *A = CE->getArg(I);
      if (isa<CXXDefaultArgExpr>(A))
        continue;
      std::optional<int64_t> V = evalInt(A, Ctx, Scope);
      if (!V)
        return std::nullopt;
      D[I] = *V;
    }
    return D;
  }
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      if (VD->getInit() && isNeverModifiedAfterInit(VD, Scope, Ctx))
        return evalDim3In(VD->getInit(), Ctx, Scope);
  return std::nullopt;
}

std::optional<int64_t> evaluateIntIn(const Expr *E, ASTContext &Ctx,
                                     const Stmt *Scope) {
  return E ? evalInt(E, Ctx, Scope) : std::nullopt;
}

const Expr *launchGridExpr(const LaunchSite &L) {
  const CallExpr *C = L.Call->getConfig();
  return C && C->getNumArgs() > 0 ? C->getArg(0) : nullptr;
}

const Expr *launchBlockExpr(const LaunchSite &L) {
  const CallExpr *C = L.Call->getConfig();
  return C && C->getNumArgs() > 1 ? C->getArg(1) : nullptr;
}

const Expr *launchSharedMemExpr(const LaunchSite &L) {
  const CallExpr *C = L.Call->getConfig();
  if (!C || C->getNumArgs() < 3 || isa<CXXDefaultArgExpr>(C->getArg(2)))
    return nullptr;
  return C->getArg(2);
}

const Expr *launchStreamExpr(const LaunchSite &L) {
  const CallExpr *C = L.Call->getConfig();
  if (!C || C->getNumArgs() < 4 || isa<CXXDefaultArgExpr>(C->getArg(3)))
    return nullptr;
  return C->getArg(3);
}

const LaunchSite *firstLaunchOnStream(const KernelInfo &K, ASTContext &Ctx) {
  for (const LaunchSite &L : K.Launches) {
    const Expr *Stream = launchStreamExpr(L);
    if (!Stream)
      continue;
    Expr::EvalResult R;
    if (Stream->EvaluateAsRValue(R, Ctx) &&
        ((R.Val.isInt() && R.Val.getInt() == 0) || R.Val.isNullPointer()))
      continue;
    return &L;
  }
  return nullptr;
}

std::optional<Dim3> evaluateDim3(const Expr *E, ASTContext &Ctx) {
  return evalDim3In(E, Ctx, nullptr);
}

std::optional<int64_t> threadsPerBlock(const LaunchSite &L, ASTContext &Ctx) {
  const Stmt *Scope = L.Caller ? L.Caller->getBody() : nullptr;
  std::optional<Dim3> D = evalDim3In(launchBlockExpr(L), Ctx, Scope);
  if (!D)
    return std::nullopt;
  return (*D)[0] * (*D)[1] * (*D)[2];
}

} // namespace cuda_opt
