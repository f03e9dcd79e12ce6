//===- SegmentedReduction.cpp - One thread reduces one segment ------------===//
//
// Part of cuda-opt. See SegmentedReduction.h.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/SegmentedReduction.h"
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

namespace {

std::string where(const ASTContext &Ctx, SourceLocation Loc) {
  return describeLocation(Ctx.getSourceManager(), Loc);
}

const ParmVarDecl *paramOf(const Expr *E) {
  const auto *D = dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts()
                                                  : nullptr);
  return D ? dyn_cast<ParmVarDecl>(D->getDecl()) : nullptr;
}

const VarDecl *varOf(const Expr *E) {
  const auto *D = dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts()
                                                  : nullptr);
  return D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
}

QualType plain(QualType T) {
  return T.getCanonicalType().getUnqualifiedType();
}

/// `P[idx]` with P a pointer parameter: P and idx.
std::pair<const ParmVarDecl *, const Expr *> element(const Expr *E) {
  const auto *A = dyn_cast_or_null<ArraySubscriptExpr>(
      E ? E->IgnoreParenImpCasts() : nullptr);
  if (!A)
    return {nullptr, nullptr};
  const ParmVarDecl *P = paramOf(A->getBase());
  if (!P || !P->getType()->isPointerType())
    return {nullptr, nullptr};
  return {P, A->getIdx()};
}

/// \p E is `V + K` (or `K + V`) with K a constant, or `V` (K = 0).
std::optional<int64_t> offsetFrom(const ASTContext &Ctx, const Expr *E,
                                  const VarDecl *V) {
  E = E->IgnoreParenImpCasts();
  if (varOf(E) == V)
    return 0;
  const auto *B = dyn_cast<BinaryOperator>(E);
  if (!B || B->getOpcode() != BO_Add)
    return std::nullopt;
  for (auto [A, C] : {std::pair{B->getLHS(), B->getRHS()},
                      std::pair{B->getRHS(), B->getLHS()}}) {
    Expr::EvalResult R;
    if (varOf(A) == V && C->EvaluateAsInt(R, Ctx) &&
        R.Val.getInt().isRepresentableByInt64())
      return R.Val.getInt().getExtValue();
  }
  return std::nullopt;
}

/// Whether \p A and \p B name the same parameter or are the same constant.
bool sameLength(const ASTContext &Ctx, const Expr *A, const Expr *B) {
  if (const ParmVarDecl *P = paramOf(A))
    return P == paramOf(B);
  Expr::EvalResult RA, RB;
  return A->EvaluateAsInt(RA, Ctx) && B->EvaluateAsInt(RB, Ctx) &&
         RA.Val.getInt() == RB.Val.getInt();
}

/// References to \p V in a statement, other than those inside \p Except.
class RefsOutside : public RecursiveASTVisitor<RefsOutside> {
public:
  RefsOutside(const VarDecl *V, ArrayRef<const Stmt *> Except)
      : V(V), Except(Except) {}
  bool TraverseStmt(Stmt *S) {
    if (S && is_contained(Except, S))
      return true;
    return RecursiveASTVisitor::TraverseStmt(S);
  }
  bool VisitDeclRefExpr(DeclRefExpr *D) {
    if (D->getDecl() == V && !First)
      First = D;
    return true;
  }
  const VarDecl *V;
  ArrayRef<const Stmt *> Except;
  const DeclRefExpr *First = nullptr;
};

} // namespace

Expected<SegmentedReduction> matchSegmentedReduction(ASTContext &Ctx,
                                                     const KernelInfo &K) {
  std::string Name = "kernel '" + K.name() + "'";
  if (K.Decl->isDependentContext())
    return refuse(Name + " is a template; cub-segmented-reduce needs the "
                  "element type");
  Expected<RowProgram> RP = analyzeRowProgram(Ctx, K);
  if (!RP)
    return RP.takeError();
  SegmentedReduction S;
  S.Mapping = RP->Mapping;
  if (S.Mapping.rank() != 1 || !S.Mapping.Conditions.empty())
    return refuse(Name + " is not one thread per segment over a 1-D grid");
  const VarDecl *Row = RP->rowVar();

  // Locals set once, a loop, one store.
  DenseMap<const VarDecl *, const Expr *> Locals;
  const RowLoop *L = nullptr;
  const Stmt *Store = nullptr;
  for (const RowStep &St : RP->Steps) {
    std::string At = where(Ctx, St.S->getBeginLoc());
    switch (St.Kind) {
    case RowStep::Scalar: {
      const auto *DS = dyn_cast<DeclStmt>(St.S);
      if (!DS || L)
        return refuse(Name + " computes more than one segment's reduction ('" +
                      sourceText(Ctx, St.S->getSourceRange()) + "' at " + At +
                      ")");
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        if (!V || !V->getInit())
          return refuse(Name + " declares a local without a value at " + At);
        Locals[V] = V->getInit();
      }
      break;
    }
    case RowStep::Loop:
      if (L)
        return refuse(Name + " has more than one loop over its segment");
      L = &RP->Loops[St.LoopIndex];
      break;
    case RowStep::Store:
      if (!L || Store)
        return refuse(Name + " does more than store its segment's result ('" +
                      sourceText(Ctx, St.S->getSourceRange()) + "' at " + At +
                      ")");
      Store = St.S;
      break;
    }
  }
  if (!L || !Store)
    return refuse(Name + " has no loop over a segment followed by one store "
                  "of its result");
  std::string LoopAt = "the loop at " + where(Ctx, L->Loop->getBeginLoc());
  if (L->Recurrences.size() != 1)
    return refuse(LoopAt + " carries " + Twine(L->Recurrences.size()).str() +
                  " values; a segmented reduction carries one");
  const Recurrence &Rec = L->Recurrences.front();
  if (Rec.Kind != RecurrenceKind::Sum && Rec.Kind != RecurrenceKind::Max &&
      Rec.Kind != RecurrenceKind::Min)
    return refuse(LoopAt + " computes a " +
                  recurrenceKindName(Rec.Kind).str() +
                  "; CUB's segmented reductions routed here are sum, max "
                  "and min");
  if (L->Inclusive || L->ContainsContinue || L->WritesMemory || Rec.Scan)
    return refuse(LoopAt + " is not 'for (j = begin; j < end; ++j)' over "
                  "the segment with nothing but the reduction");
  S.Kind = Rec.Kind;
  const VarDecl *Acc = Rec.Var;
  auto AccInit = Locals.find(Acc);
  if (AccInit == Locals.end())
    return refuse("the accumulator '" + Acc->getNameAsString() + "' of " +
                  LoopAt + " is not a local set before it");
  S.Init = AccInit->second;
  if (!S.Init->isEvaluatable(Ctx))
    return refuse("the accumulator '" + Acc->getNameAsString() +
                  "' starts at '" + sourceText(Ctx, S.Init->getSourceRange()) +
                  "', not a constant (CUB starts every segment from one "
                  "initial value)");
  S.Element = plain(Acc->getType());
  const auto *BT = S.Element->getAs<BuiltinType>();
  if (!BT || S.Element->isBooleanType() ||
      !(BT->isInteger() ? Ctx.getTypeSize(S.Element) >= 32
                        : (BT->getKind() == BuiltinType::Float ||
                           BT->getKind() == BuiltinType::Double)))
    return refuse("the accumulator '" + Acc->getNameAsString() + "' is '" +
                  S.Element.getAsString() +
                  "'; routed are 32- and 64-bit integers, float and double");

  // The body is the one update of the accumulator by one element.
  const Stmt *Body = L->Loop->getBody();
  if (const auto *CS = dyn_cast<CompoundStmt>(Body))
    Body = CS->size() == 1 ? CS->body_front() : nullptr;
  if (!Body || Rec.Updates.size() != 1)
    return refuse(LoopAt + " does more than combine one element into '" +
                  Acc->getNameAsString() + "'");
  const Expr *Term = nullptr;
  const auto *BO = dyn_cast<BinaryOperator>(Body);
  if (BO && varOf(BO->getLHS()) == Acc) {
    const Expr *R = BO->getRHS()->IgnoreParenImpCasts();
    if (Rec.Kind == RecurrenceKind::Sum) {
      if (BO->getOpcode() == BO_AddAssign)
        Term = BO->getRHS();
      else if (const auto *Add = dyn_cast<BinaryOperator>(R);
               BO->getOpcode() == BO_Assign && Add &&
               Add->getOpcode() == BO_Add) {
        if (varOf(Add->getLHS()) == Acc)
          Term = Add->getRHS();
        else if (varOf(Add->getRHS()) == Acc)
          Term = Add->getLHS();
      }
    } else if (const auto *CE = dyn_cast<CallExpr>(R);
               BO->getOpcode() == BO_Assign && CE && CE->getNumArgs() == 2 &&
               CE->getDirectCallee()) {
      StringRef F = CE->getDirectCallee()->getName();
      bool Max = Rec.Kind == RecurrenceKind::Max;
      bool Known = Max ? (F == "fmaxf" || F == "fmax" || F == "max")
                       : (F == "fminf" || F == "fmin" || F == "min");
      if (Known) {
        S.Combine = F.str();
        if (varOf(CE->getArg(0)) == Acc)
          Term = CE->getArg(1);
        else if (varOf(CE->getArg(1)) == Acc)
          Term = CE->getArg(0);
        // The function must take and return the element type (max(int,
        // int), fmaxf(float, float)): no conversion on the way.
        const FunctionDecl *FD = CE->getDirectCallee();
        if (plain(FD->getReturnType()) != S.Element ||
            plain(FD->getParamDecl(0)->getType()) != S.Element ||
            plain(FD->getParamDecl(1)->getType()) != S.Element)
          Term = nullptr;
      }
    }
  }
  auto [In, Idx] = element(Term);
  // A CSR matrix-vector product: vals[j] * x[cols[j]], in either order.
  if (const auto *Mul = dyn_cast_or_null<BinaryOperator>(
          Term && Rec.Kind == RecurrenceKind::Sum ? Term->IgnoreParenImpCasts()
                                                  : nullptr);
      !In && Mul && Mul->getOpcode() == BO_Mul)
    for (auto [A, B] : {std::pair{Mul->getLHS(), Mul->getRHS()},
                        std::pair{Mul->getRHS(), Mul->getLHS()}}) {
      auto [Vals, VIdx] = element(A);
      auto [X, XIdx] = element(B);
      auto [Cols, CIdx] = element(XIdx);
      if (!Vals || !X || !Cols || varOf(VIdx) != L->Var ||
          varOf(CIdx) != L->Var ||
          plain(A->IgnoreParenImpCasts()->getType()) != S.Element ||
          plain(B->IgnoreParenImpCasts()->getType()) != S.Element ||
          !plain(Cols->getType()->getPointeeType())->isIntegerType())
        continue;
      In = Vals;
      Idx = VIdx;
      S.Gathered = X;
      S.Columns = Cols;
      break;
    }
  if (!In || (!S.Gathered &&
              plain(Term->IgnoreParenImpCasts()->getType()) != S.Element))
    return refuse("the update '" + sourceText(Ctx, Body->getSourceRange()) +
                  "' at " + where(Ctx, Body->getBeginLoc()) + " is not '" +
                  Acc->getNameAsString() +
                  (Rec.Kind == RecurrenceKind::Sum
                       ? " += in[j]'"
                       : " = " +
                             std::string(Rec.Kind == RecurrenceKind::Max
                                             ? "fmaxf"
                                             : "fminf") +
                             "(" + Acc->getNameAsString() + ", in[j])'") +
                  " of an element of the accumulator's type, or '" +
                  Acc->getNameAsString() +
                  " += vals[j] * x[cols[j]]' (comparisons written out and "
                  "other terms are not routed)");
  S.In = In;

  // The segment's bounds, through locals set once.
  auto Resolve = [&](const Expr *E) {
    for (unsigned I = 0; I < 8; ++I) {
      const VarDecl *V = varOf(E);
      auto It = V ? Locals.find(V) : Locals.end();
      if (It == Locals.end())
        break;
      E = It->second;
    }
    return E;
  };
  const VarDecl *J = L->Var;
  const Expr *Init = Resolve(L->Init), *Bound = Resolve(L->Bound);
  auto [BeginP, BeginIdx] = element(Init);
  auto [EndP, EndIdx] = element(Bound);
  if (BeginP && EndP) {
    std::optional<int64_t> B0 = offsetFrom(Ctx, BeginIdx, Row);
    std::optional<int64_t> E0 = offsetFrom(Ctx, EndIdx, Row);
    if (!B0 || *B0 != 0 || !E0 || (*E0 != 0 && *E0 != 1))
      return refuse(LoopAt + " runs from '" +
                    sourceText(Ctx, L->Init->getSourceRange()) + "' to '" +
                    sourceText(Ctx, L->Bound->getSourceRange()) +
                    "', not over begin[s] .. end[s] or offsets[s] .. "
                    "offsets[s + 1]");
    if (!varOf(Idx) || varOf(Idx) != J)
      return refuse(LoopAt + " reads '" + sourceText(Ctx, Term->getSourceRange()) +
                    "', not the segment's element 'in[j]'");
    for (const ParmVarDecl *P : {BeginP, EndP}) {
      QualType E = P->getType()->getPointeeType();
      if (!E->isIntegerType() || E->isBooleanType())
        return refuse("the offsets '" + P->getNameAsString() +
                      "' are not integers");
    }
    S.Begin = BeginP;
    S.End = EndP;
    S.EndShift = *E0;
  } else if (S.Gathered) {
    return refuse(LoopAt + " runs from '" +
                  sourceText(Ctx, L->Init->getSourceRange()) + "' to '" +
                  sourceText(Ctx, L->Bound->getSourceRange()) +
                  "'; a sparse matrix-vector product is routed over CSR "
                  "offsets 'row_ptr[s] .. row_ptr[s + 1]' only");
  } else {
    // Fixed-length rows: j from 0 to len, in[s * len + j].
    Expr::EvalResult Zero;
    if (!Init->EvaluateAsInt(Zero, Ctx) || Zero.Val.getInt() != 0)
      return refuse(LoopAt + " starts at '" +
                    sourceText(Ctx, L->Init->getSourceRange()) +
                    "', neither an offset 'offsets[s]' nor 0 of a row");
    if (const ParmVarDecl *P = paramOf(Bound);
        P && P->getType()->isIntegerType())
      S.LengthParam = P;
    else if (Expr::EvalResult Len; Bound->EvaluateAsInt(Len, Ctx) &&
                                   Len.Val.getInt().isRepresentableByInt64())
      S.LengthValue = Len.Val.getInt().getExtValue();
    else
      return refuse(LoopAt + " ends at '" +
                    sourceText(Ctx, L->Bound->getSourceRange()) +
                    "', neither an offset nor a row length (a parameter or "
                    "a constant)");
    // s * len + j, in any order.
    bool RowMajor = false;
    if (const auto *Add = dyn_cast<BinaryOperator>(Idx->IgnoreParenImpCasts());
        Add && Add->getOpcode() == BO_Add)
      for (auto [A, B] : {std::pair{Add->getLHS(), Add->getRHS()},
                          std::pair{Add->getRHS(), Add->getLHS()}}) {
        const auto *Mul = dyn_cast<BinaryOperator>(A->IgnoreParenImpCasts());
        if (varOf(B) != J || !Mul || Mul->getOpcode() != BO_Mul)
          continue;
        if ((varOf(Mul->getLHS()) == Row &&
             sameLength(Ctx, Mul->getRHS(), Bound)) ||
            (varOf(Mul->getRHS()) == Row &&
             sameLength(Ctx, Mul->getLHS(), Bound)))
          RowMajor = true;
      }
    if (!RowMajor)
      return refuse(LoopAt + " reads '" +
                    sourceText(Ctx, Term->getSourceRange()) +
                    "', not the row's element 'in[s * len + j]' for the "
                    "loop's length");
  }

  // out[s] = acc; and the accumulator used nowhere else.
  const auto *Set = dyn_cast<BinaryOperator>(Store);
  auto [Out, OutIdx] =
      Set && Set->getOpcode() == BO_Assign ? element(Set->getLHS())
                                           : std::pair<const ParmVarDecl *,
                                                       const Expr *>{};
  if (!Out || varOf(OutIdx) != Row || varOf(Set->getRHS()) != Acc ||
      plain(Set->getLHS()->getType()) != S.Element)
    return refuse("the store '" + sourceText(Ctx, Store->getSourceRange()) +
                  "' at " + where(Ctx, Store->getBeginLoc()) + " is not 'out[" +
                  Row->getNameAsString() + "] = " + Acc->getNameAsString() +
                  "' of the accumulator's type");
  S.Out = Out;
  for (const ParmVarDecl *P : {S.In, S.Begin, S.End, S.Gathered, S.Columns})
    if (P && P == Out)
      return refuse(Name + " reads and writes '" + Out->getNameAsString() +
                    "'");
  {
    const Stmt *Except[] = {L->Loop, Store};
    RefsOutside R(Acc, Except);
    for (const Stmt *St : S.Mapping.Body)
      if (const auto *DS = dyn_cast<DeclStmt>(St))
        for (const Decl *D : DS->decls())
          if (const auto *V = dyn_cast<VarDecl>(D); V && V->getInit())
            R.TraverseStmt(const_cast<Expr *>(V->getInit()));
    if (R.First)
      return refuse("the accumulator '" + Acc->getNameAsString() +
                    "' is also used at " + where(Ctx, R.First->getBeginLoc()));
  }

  // The segment count, and launches that cover it.
  const MappedIndex &X = S.Mapping.x();
  S.Inclusive = X.Inclusive;
  Expr::EvalResult CV;
  if (const ParmVarDecl *P = paramOf(X.Bound))
    S.CountParam = P;
  else if (X.Bound->EvaluateAsInt(CV, Ctx) &&
           CV.Val.getInt().isRepresentableByInt64())
    S.CountValue = CV.Val.getInt().getExtValue();
  else
    return refuse(Name + " reduces the segments below '" +
                  sourceText(Ctx, X.Bound->getSourceRange()) +
                  "', not a parameter or a constant");
  if (Error E = analyzeLaunches(Ctx, K, S.Mapping).takeError())
    return std::move(E);
  return S;
}

} // namespace cuda_opt
