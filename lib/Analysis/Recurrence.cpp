//===- Recurrence.cpp - Scalars a loop carries as reductions --------------===//
//
// Part of cuda-opt.
//
// Every write to a carried scalar must be one recognised update, all of one
// kind, and the loop may read the scalar nowhere else: then the value after
// the loop is the initial value combined with the iterations' contributions
// in some order, which is what lets the iterations be split between workers.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/Recurrence.h"

#include "StmtPatterns.h"
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/Basic/SourceManager.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/FoldingSet.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
using stmt::mentions;

StringRef recurrenceKindName(RecurrenceKind K) {
  switch (K) {
  case RecurrenceKind::Sum: return "sum";
  case RecurrenceKind::Product: return "product";
  case RecurrenceKind::Min: return "min";
  case RecurrenceKind::Max: return "max";
  case RecurrenceKind::ArgMin: return "argmin";
  case RecurrenceKind::ArgMax: return "argmax";
  }
  return "";
}

namespace {

const VarDecl *varOf(const Expr *E) {
  if (!E)
    return nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

const DeclRefExpr *refOf(const Expr *E) {
  return dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
}

/// The two expressions are the same computation (same operators, same
/// variables, same literals).
bool sameExpr(const ASTContext &Ctx, const Expr *A, const Expr *B) {
  FoldingSetNodeID IA, IB;
  A->IgnoreParenImpCasts()->Profile(IA, Ctx, /*Canonical=*/true);
  B->IgnoreParenImpCasts()->Profile(IB, Ctx, /*Canonical=*/true);
  return IA == IB;
}

/// What the loop does with local variables.
class LoopScan : public RecursiveASTVisitor<LoopScan> {
public:
  struct Write {
    const Expr *Site;
    bool AddressTaken = false;
  };

  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool VisitVarDecl(VarDecl *VD) {
    Inner.insert(VD);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      Refs[VD].push_back(DRE);
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp())
      if (const VarDecl *V = varOf(BO->getLHS()))
        addWrite(V, {BO});
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    const VarDecl *V = varOf(UO->getSubExpr());
    if (!V)
      return true;
    if (UO->isIncrementDecrementOp())
      addWrite(V, {UO});
    else if (UO->getOpcode() == UO_AddrOf)
      addWrite(V, {UO, /*AddressTaken=*/true});
    return true;
  }
  bool VisitIfStmt(IfStmt *If) {
    Ifs.push_back(If);
    return true;
  }

  void addWrite(const VarDecl *V, Write W) {
    if (!Writes.count(V))
      Order.push_back(V);
    Writes[V].push_back(W);
  }

  DenseSet<const VarDecl *> Inner;
  DenseMap<const VarDecl *, SmallVector<const DeclRefExpr *, 4>> Refs;
  DenseMap<const VarDecl *, SmallVector<Write, 2>> Writes;
  SmallVector<const VarDecl *, 4> Order;
  SmallVector<const IfStmt *, 4> Ifs;
};

/// One recognised update of a carried scalar.
struct Update {
  RecurrenceKind Kind = RecurrenceKind::Sum;
  MinMaxForm Form = MinMaxForm::Compare;
  const Stmt *Site = nullptr;
  const VarDecl *Index = nullptr;
  /// The references to the scalar (and index) that belong to the update.
  SmallVector<const DeclRefExpr *, 3> Own;
  /// The argmin/argmax comparison is not strict (`>=`), so ties would go to
  /// the last index.
  bool NonStrict = false;
};

/// `X > V`, `V < X`, ... : whether the condition holds when X is the larger
/// (Greater) or the smaller, and X itself.
struct Comparison {
  const Expr *Other = nullptr;
  const DeclRefExpr *Ref = nullptr;
  bool Greater = false;
  bool Strict = true;
};

std::optional<Comparison> matchComparison(const Expr *Cond, const VarDecl *V) {
  const auto *BO = dyn_cast<BinaryOperator>(Cond->IgnoreParenImpCasts());
  if (!BO || !BO->isRelationalOp())
    return std::nullopt;
  BinaryOperatorKind Op = BO->getOpcode();
  Comparison C;
  if (varOf(BO->getRHS()) == V && !mentions(BO->getLHS(), V)) {
    C.Other = BO->getLHS();
    C.Ref = refOf(BO->getRHS());
  } else if (varOf(BO->getLHS()) == V && !mentions(BO->getRHS(), V)) {
    C.Other = BO->getRHS();
    C.Ref = refOf(BO->getLHS());
    Op = BinaryOperator::reverseComparisonOp(Op);
  } else {
    return std::nullopt;
  }
  // Now the condition reads `Other Op V`.
  C.Greater = Op == BO_GT || Op == BO_GE;
  C.Strict = Op == BO_GT || Op == BO_LT;
  return C;
}

bool isFloating(const VarDecl *V) {
  return V->getType()->isRealFloatingType();
}

/// `if (X > V) { V = X; [I = j;] }` and its mirror images.
std::optional<Update> matchIfUpdate(const ASTContext &Ctx, const IfStmt *If,
                                    const VarDecl *V, const VarDecl *Induction) {
  if (If->getElse() || If->getInit() || If->getConditionVariable() ||
      If->isConstexpr())
    return std::nullopt;
  std::optional<Comparison> C = matchComparison(If->getCond(), V);
  if (!C || C->Other->HasSideEffects(Ctx))
    return std::nullopt;
  SmallVector<const Stmt *, 2> Then;
  if (const auto *CS = dyn_cast<CompoundStmt>(If->getThen()))
    Then.append(CS->body_begin(), CS->body_end());
  else
    Then.push_back(If->getThen());
  Update U;
  U.Site = If;
  U.Own.push_back(C->Ref);
  bool SetsValue = false;
  for (const Stmt *S : Then) {
    const auto *BO = dyn_cast<BinaryOperator>(S);
    if (!BO || BO->getOpcode() != BO_Assign)
      return std::nullopt;
    const VarDecl *Target = varOf(BO->getLHS());
    if (Target == V && !SetsValue && sameExpr(Ctx, BO->getRHS(), C->Other)) {
      SetsValue = true;
      U.Own.push_back(refOf(BO->getLHS()));
    } else if (Target && Target != V && !U.Index && Induction &&
               varOf(BO->getRHS()) == Induction &&
               Target->getType()->isIntegerType() &&
               !mentions(C->Other, Target)) {
      U.Index = Target;
      U.Own.push_back(refOf(BO->getLHS()));
    } else {
      return std::nullopt;
    }
  }
  if (!SetsValue)
    return std::nullopt;
  if (U.Index) {
    U.Kind = C->Greater ? RecurrenceKind::ArgMax : RecurrenceKind::ArgMin;
    U.NonStrict = !C->Strict;
  } else {
    U.Kind = C->Greater ? RecurrenceKind::Max : RecurrenceKind::Min;
  }
  U.Form = MinMaxForm::Compare;
  return U;
}

/// One write that is not part of an `if` update: `s += e`, `s = fmaxf(s, e)`,
/// `m = e > m ? e : m`, ...
std::optional<Update> matchWrite(const ASTContext &Ctx, const Expr *Site,
                                 const VarDecl *V) {
  Update U;
  U.Site = Site;
  if (const auto *UO = dyn_cast<UnaryOperator>(Site)) {
    if (!UO->isIncrementDecrementOp())
      return std::nullopt;
    U.Kind = RecurrenceKind::Sum;
    U.Own.push_back(refOf(UO->getSubExpr()));
    return U;
  }
  const auto *BO = dyn_cast<BinaryOperator>(Site);
  if (!BO)
    return std::nullopt;
  U.Own.push_back(refOf(BO->getLHS()));
  const Expr *RHS = BO->getRHS();
  switch (BO->getOpcode()) {
  case BO_AddAssign:
  case BO_SubAssign:
    if (mentions(RHS, V))
      return std::nullopt;
    U.Kind = RecurrenceKind::Sum;
    return U;
  case BO_MulAssign:
    if (mentions(RHS, V))
      return std::nullopt;
    U.Kind = RecurrenceKind::Product;
    return U;
  case BO_Assign:
    break;
  default:
    return std::nullopt;
  }
  const Expr *R = RHS->IgnoreParenImpCasts();
  // s = s + e, s = e + s, s = s - e, p = p * e, p = e * p.
  if (const auto *Op = dyn_cast<BinaryOperator>(R)) {
    BinaryOperatorKind K = Op->getOpcode();
    const Expr *L = Op->getLHS(), *Rt = Op->getRHS();
    bool LeftIsV = varOf(L) == V && !mentions(Rt, V);
    bool RightIsV = varOf(Rt) == V && !mentions(L, V);
    if ((K == BO_Add || K == BO_Mul) && (LeftIsV || RightIsV)) {
      U.Kind = K == BO_Add ? RecurrenceKind::Sum : RecurrenceKind::Product;
      U.Own.push_back(refOf(LeftIsV ? L : Rt));
      return U;
    }
    if (K == BO_Sub && LeftIsV) {
      U.Kind = RecurrenceKind::Sum;
      U.Own.push_back(refOf(L));
      return U;
    }
    return std::nullopt;
  }
  // m = fmaxf(m, e), m = max(e, m), ...
  if (const auto *Call = dyn_cast<CallExpr>(R)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || !FD->getDeclName().isIdentifier() || Call->getNumArgs() != 2)
      return std::nullopt;
    StringRef Name = FD->getName();
    int Which = StringSwitch<int>(Name)
                    .Cases({"fmaxf", "fmax", "fmaxl"}, 1)
                    .Cases({"fminf", "fmin", "fminl"}, 2)
                    .Case("max", 3)
                    .Case("min", 4)
                    .Default(0);
    if (!Which)
      return std::nullopt;
    const Expr *A0 = Call->getArg(0), *A1 = Call->getArg(1);
    const Expr *Mine = nullptr;
    if (varOf(A0) == V && !mentions(A1, V))
      Mine = A0;
    else if (varOf(A1) == V && !mentions(A0, V))
      Mine = A1;
    if (!Mine)
      return std::nullopt;
    U.Own.push_back(refOf(Mine));
    U.Kind = (Which == 1 || Which == 3) ? RecurrenceKind::Max
                                        : RecurrenceKind::Min;
    // CUDA's max/min on floating values are fmaxf/fminf.
    U.Form = (Which <= 2 || isFloating(V)) ? MinMaxForm::Function
                                           : MinMaxForm::Compare;
    return U;
  }
  // m = e > m ? e : m and its mirror images.
  if (const auto *CO = dyn_cast<ConditionalOperator>(R)) {
    std::optional<Comparison> C = matchComparison(CO->getCond(), V);
    if (!C || C->Other->HasSideEffects(Ctx))
      return std::nullopt;
    const Expr *T = CO->getTrueExpr(), *F = CO->getFalseExpr();
    bool TrueIsOther = varOf(F) == V && sameExpr(Ctx, T, C->Other);
    bool TrueIsV = varOf(T) == V && sameExpr(Ctx, F, C->Other);
    if (!TrueIsOther && !TrueIsV)
      return std::nullopt;
    U.Own.push_back(C->Ref);
    U.Own.push_back(refOf(TrueIsOther ? F : T));
    bool Max = TrueIsOther == C->Greater;
    U.Kind = Max ? RecurrenceKind::Max : RecurrenceKind::Min;
    U.Form = MinMaxForm::Compare;
    return U;
  }
  return std::nullopt;
}

std::string at(const ASTContext &Ctx, const Stmt *S) {
  return describeLocation(Ctx.getSourceManager(), S->getBeginLoc());
}

/// The term e of an inclusive scan: \p Site is `V += e` or `V = V + e`,
/// the first statement of the loop's body, and every other
/// reference to V in \p Refs lies in a later top-level statement of the body
/// (so it reads the sum including this iteration's term). Null otherwise.
const Expr *scanTerm(ASTContext &Ctx, const ForStmt *Loop, const VarDecl *V,
                     const Stmt *Site, ArrayRef<const DeclRefExpr *> Refs,
                     const DenseSet<const DeclRefExpr *> &Own) {
  // The update opens the body (so every statement that runs for a column
  // runs after its term is known), and something else reads the sum:
  // otherwise it is an ordinary reduction.
  const auto *Body = dyn_cast<CompoundStmt>(Loop->getBody());
  if (!Body || Body->body_empty() || Body->body_front() != Site)
    return nullptr;
  if (llvm::all_of(Refs, [&](const DeclRefExpr *R) { return Own.contains(R); }))
    return nullptr;
  const Expr *Term = nullptr;
  auto IsV = [&](const Expr *E) {
    const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return D && D->getDecl() == V;
  };
  if (const auto *CA = dyn_cast<CompoundAssignOperator>(Site)) {
    if (CA->getOpcode() == BO_AddAssign && IsV(CA->getLHS()))
      Term = CA->getRHS();
  } else if (const auto *BO = dyn_cast<BinaryOperator>(Site);
             BO && BO->getOpcode() == BO_Assign && IsV(BO->getLHS())) {
    if (const auto *Add =
            dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts());
        Add && Add->getOpcode() == BO_Add) {
      if (IsV(Add->getLHS()))
        Term = Add->getRHS();
      else if (IsV(Add->getRHS()))
        Term = Add->getLHS();
    }
  }
  if (!Term)
    return nullptr;
  // The term must not read V itself (`v += v * x` is no scan).
  for (const DeclRefExpr *Ref : Refs)
    if (Own.contains(Ref) &&
        Term->getSourceRange().fullyContains(Ref->getSourceRange()))
      return nullptr;
  const SourceManager &SM = Ctx.getSourceManager();
  for (const DeclRefExpr *Ref : Refs) {
    if (Own.contains(Ref))
      continue;
    if (!SM.isBeforeInTranslationUnit(Site->getEndLoc(), Ref->getBeginLoc()))
      return nullptr;
  }
  return Term;
}

} // namespace

Expected<SmallVector<Recurrence, 4>>
analyzeRecurrences(ASTContext &Ctx, const ForStmt *Loop,
                   const VarDecl *Induction, bool AllowScans) {
  LoopScan Scan;
  Scan.TraverseStmt(const_cast<ForStmt *>(Loop));
  std::string LoopAt = "the loop at " + at(Ctx, Loop);

  // The if-shaped updates, by the scalar they set.
  DenseMap<const VarDecl *, SmallVector<Update, 1>> IfUpdates;
  DenseSet<const Stmt *> InIfUpdate;
  for (const VarDecl *V : Scan.Order) {
    if (V == Induction || Scan.Inner.contains(V))
      continue;
    for (const IfStmt *If : Scan.Ifs)
      if (std::optional<Update> U = matchIfUpdate(Ctx, If, V, Induction)) {
        IfUpdates[V].push_back(*U);
        const Stmt *Then = If->getThen();
        if (const auto *CS = dyn_cast<CompoundStmt>(Then))
          for (const Stmt *S : CS->body())
            InIfUpdate.insert(S);
        else
          InIfUpdate.insert(Then);
      }
  }

  SmallVector<Recurrence, 4> Out;
  DenseSet<const VarDecl *> Claimed;
  for (const VarDecl *V : Scan.Order) {
    if (V == Induction || Scan.Inner.contains(V) || Claimed.contains(V))
      continue;
    std::string Name = "'" + V->getNameAsString() + "'";
    const auto &Writes = Scan.Writes[V];
    for (const LoopScan::Write &W : Writes)
      if (W.AddressTaken)
        return refuse(LoopAt + " takes the address of " + Name + " at " +
                      at(Ctx, W.Site) +
                      ", so cuda-opt cannot tell how it changes");
    if (!V->getType()->isArithmeticType() || V->getType()->isBooleanType() ||
        V->getType()->isEnumeralType() || V->getType()->isAnyComplexType())
      return refuse(LoopAt + " carries " + Name + " of type '" +
                    V->getType().getAsString() +
                    "' from one iteration to the next; only integer and "
                    "floating-point scalars can be combined");

    SmallVector<Update, 2> Updates;
    for (const LoopScan::Write &W : Writes) {
      if (InIfUpdate.contains(W.Site))
        continue;
      std::optional<Update> U = matchWrite(Ctx, W.Site, V);
      if (!U)
        return refuse(
            Name + " carries a value from one iteration of " + LoopAt +
            " to the next, and its update at " + at(Ctx, W.Site) +
            " is not a sum, product, min, max or argmin/argmax");
      Updates.push_back(*U);
    }
    for (const Update &U : IfUpdates.lookup(V))
      Updates.push_back(U);
    // Only the position of an arg-min/max: checked with its value below.
    if (Updates.empty())
      continue;

    Recurrence R;
    R.Var = V;
    R.Kind = Updates.front().Kind;
    R.Form = Updates.front().Form;
    R.Index = Updates.front().Index;
    DenseSet<const DeclRefExpr *> Own;
    for (const Update &U : Updates) {
      if (U.Kind != R.Kind || U.Index != R.Index ||
          (!R.isArg() && R.Kind != RecurrenceKind::Sum &&
           R.Kind != RecurrenceKind::Product && U.Form != R.Form))
        return refuse(Name + " is updated in different ways in " + LoopAt +
                      " (at " + at(Ctx, Updates.front().Site) +
                      " and " + at(Ctx, U.Site) +
                      "), which cuda-opt does not combine");
      if (U.NonStrict)
        return refuse("the " + recurrenceKindName(R.Kind).str() + " at " +
                      at(Ctx, U.Site) +
                      " compares with '>=' or '<=', so ties go to the last "
                      "position; cuda-opt only splits arg-min/max loops "
                      "whose ties go to the first");
      Own.insert(U.Own.begin(), U.Own.end());
      R.Updates.push_back(U.Site);
    }

    // The loop reads the scalar only in its updates, or (a scan) only after
    // its one update.
    const Expr *Term = nullptr;
    if (AllowScans && R.Kind == RecurrenceKind::Sum && Updates.size() == 1)
      Term = scanTerm(Ctx, Loop, V, Updates.front().Site, Scan.Refs[V], Own);
    if (Term) {
      R.Scan = true;
      R.ScanTerm = Term;
    }
    for (const DeclRefExpr *Ref : Scan.Refs[V])
      if (!Own.contains(Ref) && !Term)
        return refuse(LoopAt + " reads " + Name + " at " + at(Ctx, Ref) +
                      " outside its " + recurrenceKindName(R.Kind).str() +
                      " update, so each iteration depends on the running "
                      "value (like a prefix sum)");
    if (R.Index) {
      Claimed.insert(R.Index);
      std::string IName = "'" + R.Index->getNameAsString() + "'";
      for (const LoopScan::Write &W : Scan.Writes[R.Index]) {
        if (W.AddressTaken || !InIfUpdate.contains(W.Site))
          return refuse(LoopAt + " writes " + IName + " at " +
                        at(Ctx, W.Site) + " outside its " +
                        recurrenceKindName(R.Kind).str() + " update");
      }
      for (const DeclRefExpr *Ref : Scan.Refs[R.Index])
        if (!Own.contains(Ref))
          return refuse(LoopAt + " reads " + IName + " at " + at(Ctx, Ref) +
                        " outside its " + recurrenceKindName(R.Kind).str() +
                        " update");
    }
    Out.push_back(std::move(R));
  }

  // A scalar written only as the position of an arg-min/max must belong to
  // one that was recognised.
  for (const VarDecl *V : Scan.Order) {
    if (V == Induction || Scan.Inner.contains(V) || Claimed.contains(V))
      continue;
    bool Listed = false;
    for (const Recurrence &R : Out)
      Listed |= R.Var == V;
    if (!Listed)
      return refuse("'" + V->getNameAsString() +
                    "' carries a value from one iteration of the loop at " +
                    at(Ctx, Loop) + " to the next in a way cuda-opt does not "
                    "recognise as a sum, product, min, max or argmin/argmax");
  }
  return Out;
}

} // namespace cuda_opt
