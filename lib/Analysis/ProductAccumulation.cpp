//===- ProductAccumulation.cpp - `acc += x * y` in a kernel body ---------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/ProductAccumulation.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// Counts the writes to one local variable in a body.
class WriteCounter : public RecursiveASTVisitor<WriteCounter> {
public:
  explicit WriteCounter(const VarDecl *V) : V(V) {}
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp() && refersToV(BO->getLHS()))
      ++Writes;
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if ((UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf) &&
        refersToV(UO->getSubExpr()))
      ++Writes;
    return true;
  }
  unsigned Writes = 0;

private:
  bool refersToV(const Expr *E) const {
    const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return DRE && DRE->getDecl() == V;
  }
  const VarDecl *V;
};

/// Counts the statements that leave a loop or the kernel early.
class ExitCounter : public RecursiveASTVisitor<ExitCounter> {
public:
  bool VisitReturnStmt(ReturnStmt *) { return ++Exits, true; }
  bool VisitBreakStmt(BreakStmt *) { return ++Exits, true; }
  bool VisitContinueStmt(ContinueStmt *) { return ++Exits, true; }
  bool VisitGotoStmt(GotoStmt *) { return ++Exits, true; }
  unsigned Exits = 0;
};

class ProductFinder : public RecursiveASTVisitor<ProductFinder> {
public:
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->getOpcode() == BO_AddAssign)
      addSum(BO, BO->getLHS(), BO->getRHS());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *OC) {
    // `__half acc; acc += a * b;` is an overloaded operator.
    if (OC->getOperator() == OO_PlusEqual && OC->getNumArgs() == 2)
      addSum(OC, OC->getArg(0), OC->getArg(1));
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD || !FD->getIdentifier() || CE->getNumArgs() != 3 ||
        !FD->getName().ltrim('_').starts_with("fma"))
      return true;
    // acc = fmaf(x, y, acc)
    for (const DynTypedNode &P : Ctx->getParents(*CE))
      if (const auto *BO = P.get<BinaryOperator>())
        if (BO->getOpcode() == BO_Assign) {
          const VarDecl *V = refVar(BO->getLHS());
          if (V && refVar(CE->getArg(2)) == V)
            Found.push_back({BO, V, CE->getArg(0), CE->getArg(1)});
        }
    return true;
  }
  ASTContext *Ctx = nullptr;
  std::vector<ProductAccumulation> Found;

private:
  void addSum(const Stmt *S, const Expr *Target, const Expr *Value) {
    const VarDecl *V = refVar(Target);
    if (!V || isa<ParmVarDecl>(V))
      return;
    Value = Value->IgnoreParenImpCasts();
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(Value))
      Value = MT->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *BO = dyn_cast<BinaryOperator>(Value);
        BO && BO->getOpcode() == BO_Mul)
      Found.push_back({S, V, BO->getLHS(), BO->getRHS()});
    else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Value);
             OC && OC->getOperator() == OO_Star && OC->getNumArgs() == 2)
      Found.push_back({S, V, OC->getArg(0), OC->getArg(1)});
  }
};

} // namespace

std::vector<ProductAccumulation>
findProductAccumulations(ASTContext &Ctx, const Stmt *Body) {
  ProductFinder Finder;
  Finder.Ctx = &Ctx;
  Finder.TraverseStmt(const_cast<Stmt *>(Body));
  return std::move(Finder.Found);
}

unsigned countWrites(const Stmt *Body, const VarDecl *V) {
  WriteCounter C(V);
  C.TraverseStmt(const_cast<Stmt *>(Body));
  return C.Writes;
}

unsigned countEarlyExits(const Stmt *Body) {
  ExitCounter C;
  C.TraverseStmt(const_cast<Stmt *>(Body));
  return C.Exits;
}

const VarDecl *refVar(const Expr *E) {
  if (!E)
    return nullptr;
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

const Expr *loadOfFactor(const Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      if (CE->getNumArgs() != 1)
        return E;
      E = CE->getArg(0);
    } else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = MT->getSubExpr();
    } else if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = FC->getSubExpr();
    } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
               MC && isa_and_nonnull<CXXConversionDecl>(MC->getMethodDecl())) {
      E = MC->getImplicitObjectArgument();
    } else if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      if (!FD || !FD->getIdentifier() || Call->getNumArgs() != 1 ||
          !FD->getName().ends_with("2float"))
        return E;
      E = Call->getArg(0);
    } else {
      return E;
    }
  }
}

std::optional<unsigned> globalIndexDim(const IndexExpr &E,
                                       const SymbolTable &Syms) {
  for (unsigned D = 0; D < 3; ++D) {
    std::optional<unsigned> Bi = Syms.findBuiltin(SymbolKind::BlockIdx, D);
    std::optional<unsigned> Bd = Syms.findBuiltin(SymbolKind::BlockDim, D);
    std::optional<unsigned> Ti = Syms.findBuiltin(SymbolKind::ThreadIdx, D);
    if (!Bi || !Bd || !Ti)
      continue;
    if (E == IndexExpr::symbol(*Bi) * IndexExpr::symbol(*Bd) +
                 IndexExpr::symbol(*Ti))
      return D;
  }
  return std::nullopt;
}

const MemoryAccess *loadAccessOfFactor(ArrayRef<MemoryAccess> Accesses,
                                       const Expr *Factor) {
  const Expr *Load = loadOfFactor(Factor);
  for (const MemoryAccess &A : Accesses)
    if (A.E == Load && A.Kind == AccessKind::Read)
      return &A;
  return nullptr;
}

} // namespace cuda_opt
