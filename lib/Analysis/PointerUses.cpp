//===- PointerUses.cpp - What a kernel does with its pointer parameters ---===//
//
// Part of cuda-opt.
//
// Every use of a pointer parameter is followed up the expression tree until
// it is known to be a read (a load, a comparison, a conversion to a pointer to
// const, ...). A store through it, an atomic, a call that takes a non-const
// pointer or reference, a copy into a non-const pointer variable or a cast to
// a non-const pointer counts as a write. Anything not understood counts as a
// write.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/PointerUses.h"
#include "cuda-opt/Analysis/KernelFinder.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include <optional>

using namespace clang;
using namespace llvm;

namespace cuda_opt {

/// True when \p T is a pointer whose pointee is const.
bool pointsToConst(QualType T) {
  const auto *PT = T->getAs<PointerType>();
  return PT && PT->getPointeeType().isConstQualified();
}

/// True when a value of type \p T can carry a pointer: pointers, references,
/// and records or arrays holding one. Dependent types might.
bool mayHoldPointer(QualType T, unsigned Depth) {
  if (Depth > 8 || T->isDependentType())
    return true;
  T = T.getCanonicalType();
  while (const ArrayType *AT = T->getAsArrayTypeUnsafe())
    T = AT->getElementType().getCanonicalType();
  if (T->isPointerType() || T->isReferenceType() || T->isMemberPointerType() ||
      T->isBlockPointerType())
    return true;
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD)
    return false;
  if (!RD->hasDefinition())
    return true;
  for (const FieldDecl *F : RD->fields())
    if (mayHoldPointer(F->getType(), Depth + 1))
      return true;
  for (const CXXBaseSpecifier &B : RD->bases())
    if (mayHoldPointer(B.getType(), Depth + 1))
      return true;
  return false;
}

bool isAllocationCall(const CallExpr *CE) {
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier())
    return false;
  StringRef Name = FD->getName();
  return Name == "cudaMalloc" || Name == "cudaMallocManaged" ||
         Name == "cudaMallocAsync";
}

/// Child-to-parent links inside one function body.
class ParentLinks {
public:
  explicit ParentLinks(const Stmt *Root) {
    if (Root)
      add(Root);
  }
  const Stmt *parent(const Stmt *S) const { return Parents.lookup(S); }

private:
  void add(const Stmt *S) {
    for (const Stmt *Child : S->children()) {
      if (!Child)
        continue;
      Parents[Child] = S;
      add(Child);
    }
  }
  DenseMap<const Stmt *, const Stmt *> Parents;
};

namespace {

/// Every reference to one variable inside a statement.
class RefCollector : public RecursiveASTVisitor<RefCollector> {
public:
  explicit RefCollector(const ValueDecl *D) : D(D) {}
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (DRE->getDecl() == D)
      Refs.push_back(DRE);
    return true;
  }
  const ValueDecl *D;
  std::vector<const DeclRefExpr *> Refs;
};

//===----------------------------------------------------------------------===//
// Does the kernel write through a pointer parameter?
//===----------------------------------------------------------------------===//

/// A use that keeps a parameter from becoming const or __restrict__.
struct Finding {
  std::string What; ///< "'p' is written through at f.cu:3:5"
};

/// The outcome of one step up the expression tree from a use.
struct Step {
  enum KindTy { Next, Read, Write } Kind;
  std::optional<Finding> Why;
  static Step next() { return {Next, std::nullopt}; }
  static Step read() { return {Read, std::nullopt}; }
  static Step write(Finding F) { return {Write, std::move(F)}; }
};

/// Follows the uses of one parameter in one body.
class UseWalker {
public:
  UseWalker(ASTContext &Ctx, const ParentLinks &Links, const ParmVarDecl *P)
      : Ctx(Ctx), Links(Links), P(P) {}

  /// A possible write through the pointer \p Ref names, if there is one.
  std::optional<Finding> writeThrough(const DeclRefExpr *Ref) {
    return follow(Ref, /*Pointee=*/false);
  }
  std::optional<Finding> Rebound;

private:
  std::string name() const { return "'" + P->getNameAsString() + "'"; }
  std::string at(const Stmt *S) const {
    return describeLocation(Ctx.getSourceManager(), S->getBeginLoc());
  }
  Finding found(const Stmt *S, const Twine &How) const {
    return {(name() + " " + How + " at " + at(S)).str()};
  }
  Finding unknown(const Stmt *S) const {
    return found(S, "is used in a way cuda-opt cannot follow");
  }

  /// True when passing the pointer (\p Pointee false) or the pointee lvalue
  /// (\p Pointee true) to a parameter of type \p PT cannot write the pointee.
  static bool acceptsReadOnly(QualType PT, bool Pointee) {
    if (!Pointee) {
      QualType V = PT.getNonReferenceType();
      if (PT->isReferenceType() && !V.isConstQualified())
        return false;
      if (V->isPointerType())
        return pointsToConst(V);
      return !V->isDependentType() &&
             (V->isIntegerType() || V->isBooleanType());
    }
    if (PT->isReferenceType())
      return !PT->isRValueReferenceType() &&
             PT.getNonReferenceType().isConstQualified();
    return true;
  }

  /// The verdict for \p E being argument \p Index of the call \p CE.
  std::optional<Finding> callArgument(const CallExpr *CE, const Expr *E,
                                      bool Pointee) {
    if (CE->getCallee() == E)
      return unknown(CE);
    unsigned Index = 0;
    while (Index < CE->getNumArgs() && CE->getArg(Index) != E)
      ++Index;
    if (Index == CE->getNumArgs())
      return unknown(CE);
    const FunctionDecl *FD = CE->getDirectCallee();
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE)) {
      if (Index == 0 &&
          (OC->isAssignmentOp() || OC->getOperator() == OO_PlusPlus ||
           OC->getOperator() == OO_MinusMinus))
        return found(CE, "is written through");
      if (const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD)) {
        if (Index == 0) {
          if (Pointee && (MD->isConst() || MD->isStatic()))
            return std::nullopt;
          return found(CE, "is used by the non-const operator '" +
                               MD->getNameAsString() + "'");
        }
        --Index;
      }
    }
    if (FD) {
      if (Index >= FD->getNumParams()) {
        if (Pointee)
          return std::nullopt;
        return found(CE, "is passed to the variadic function '" +
                             FD->getNameAsString() + "'");
      }
      if (acceptsReadOnly(FD->getParamDecl(Index)->getType(), Pointee))
        return std::nullopt;
      return found(CE, "is passed to '" + FD->getNameAsString() +
                           "', which may write through it");
    }
    // A dependent call: every candidate must take it read-only.
    const auto *OE =
        dyn_cast<OverloadExpr>(CE->getCallee()->IgnoreParenImpCasts());
    if (!OE)
      return unknown(CE);
    bool AnyCandidate = false;
    for (const NamedDecl *ND : OE->decls()) {
      const NamedDecl *Target = ND->getUnderlyingDecl();
      const FunctionDecl *Candidate = nullptr;
      if (const auto *FTD = dyn_cast<FunctionTemplateDecl>(Target))
        Candidate = FTD->getTemplatedDecl();
      else
        Candidate = dyn_cast<FunctionDecl>(Target);
      if (!Candidate || Index >= Candidate->getNumParams())
        continue;
      AnyCandidate = true;
      if (!acceptsReadOnly(Candidate->getParamDecl(Index)->getType(), Pointee))
        return found(CE, "is passed to '" + OE->getName().getAsString() +
                             "', which may write through it");
    }
    if (!AnyCandidate)
      return unknown(CE);
    return std::nullopt;
  }

  /// The variable that \p DS initialises with \p E.
  static const VarDecl *initialisedBy(const DeclStmt *DS, const Expr *E) {
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D))
        if (VD->getInit() == E)
          return VD;
    return nullptr;
  }

  /// Walk up from \p Start, which is a pointer derived from the parameter
  /// (\p Pointee false) or an lvalue inside the pointee (\p Pointee true).
  std::optional<Finding> follow(const Expr *Start, bool Pointee) {
    const Expr *E = Start;
    while (true) {
      const Stmt *Parent = Links.parent(E);
      if (!Parent)
        return unknown(E);
      if (isa<ParenExpr, ExprWithCleanups, MaterializeTemporaryExpr,
              CXXBindTemporaryExpr, ConstantExpr>(Parent)) {
        E = cast<Expr>(Parent);
        continue;
      }
      if (isa<UnaryExprOrTypeTraitExpr, LambdaExpr, CXXTypeidExpr>(Parent))
        return std::nullopt;
      if (const auto *CE = dyn_cast<CallExpr>(Parent))
        return callArgument(CE, E, Pointee);
      if (const auto *CCE = dyn_cast<CXXConstructExpr>(Parent)) {
        const CXXConstructorDecl *Ctor = CCE->getConstructor();
        for (unsigned I = 0; I < CCE->getNumArgs(); ++I)
          if (CCE->getArg(I) == E && Ctor && I < Ctor->getNumParams() &&
              acceptsReadOnly(Ctor->getParamDecl(I)->getType(), Pointee))
            return std::nullopt;
        return found(CCE, "is passed to a constructor that may write through "
                          "it");
      }
      if (const auto *CO = dyn_cast<AbstractConditionalOperator>(Parent)) {
        if (CO->getCond() == E)
          return std::nullopt;
        if (Pointee && !CO->isGLValue())
          return std::nullopt;
        E = CO;
        continue;
      }
      if (!isa<Expr>(Parent)) {
        if (isa<GCCAsmStmt, MSAsmStmt, ReturnStmt>(Parent))
          return unknown(E);
        if (const auto *DS = dyn_cast<DeclStmt>(Parent))
          return initialises(DS, E, Pointee);
        // A condition or a discarded value.
        return std::nullopt;
      }
      Step S = Pointee ? stepFromPointee(E, Parent, Pointee)
                       : stepFromPointer(E, Parent, Pointee);
      if (S.Kind == Step::Read)
        return std::nullopt;
      if (S.Kind == Step::Write)
        return S.Why;
      E = cast<Expr>(Parent);
    }
  }

  std::optional<Finding> initialises(const DeclStmt *DS, const Expr *E,
                                     bool Pointee) {
    const VarDecl *VD = initialisedBy(DS, E);
    if (!VD)
      return unknown(DS);
    QualType T = VD->getType();
    std::string Var = "'" + VD->getNameAsString() + "'";
    if (Pointee) {
      if (T->isReferenceType() && !acceptsReadOnly(T, true))
        return found(DS, "is bound to the non-const reference " + Var);
      return std::nullopt;
    }
    if (T->isReferenceType()) {
      if (!T.getNonReferenceType().isConstQualified())
        Rebound = found(DS, "is bound to the reference " + Var);
      if (acceptsReadOnly(T, false))
        return std::nullopt;
      return found(DS, "is bound to the reference " + Var);
    }
    if (pointsToConst(T) || T->isBooleanType() || T->isIntegerType())
      return std::nullopt;
    return found(DS, "is copied into the non-const pointer " + Var);
  }

  /// One step up from a pointer value. Returns a verdict, or nothing to
  /// keep walking from \p Parent (with \p Pointee updated).
  Step stepFromPointer(const Expr *E, const Stmt *Parent, bool &Pointee) {
    bool IsParam = false;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParens()))
      IsParam = DRE->getDecl() == P;
    if (const auto *ICE = dyn_cast<ImplicitCastExpr>(Parent)) {
      QualType T = ICE->getType();
      if (T->isPointerType() || T->isDependentType()) {
        if (pointsToConst(T))
          return Step::read();
        return Step::next();
      }
      if (T->isBooleanType() || T->isIntegerType() || T->isVoidType())
        return Step::read();
      return Step::write(unknown(ICE));
    }
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(Parent)) {
      QualType T = Cast->getTypeAsWritten();
      if (T->isVoidType() || T->isIntegerType() || T->isBooleanType())
        return Step::read();
      // Keep following: a later cast may take the const away again.
      if (pointsToConst(T))
        return Step::next();
      return Step::write(
          found(Cast, "is cast to the non-const type '" +
                          T.getAsString(Ctx.getPrintingPolicy()) + "'"));
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(Parent)) {
      switch (UO->getOpcode()) {
      case UO_Deref:
        Pointee = true;
        return Step::next();
      case UO_PreInc:
      case UO_PostInc:
      case UO_PreDec:
      case UO_PostDec:
        return Step::next();
      case UO_LNot:
        return Step::read();
      case UO_AddrOf:
        Rebound = found(UO, "has its address taken");
        return Step::write(found(UO, "has its address taken"));
      default:
        return Step::write(unknown(UO));
      }
    }
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(Parent)) {
      if (ASE->getBase() != E)
        return Step::write(unknown(ASE));
      Pointee = true;
      return Step::next();
    }
    if (const auto *ME = dyn_cast<MemberExpr>(Parent)) {
      if (!ME->isArrow() || ME->getBase() != E)
        return Step::write(unknown(ME));
      return memberOfPointee(ME, Pointee);
    }
    if (const auto *DME = dyn_cast<CXXDependentScopeMemberExpr>(Parent)) {
      if (!DME->isArrow() || DME->getBase() != E)
        return Step::write(unknown(DME));
      Pointee = true;
      return Step::next();
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(Parent)) {
      BinaryOperatorKind Op = BO->getOpcode();
      if (Op == BO_Assign) {
        if (BO->getLHS() == E) {
          if (IsParam)
            Rebound = found(BO, "is reassigned");
          return Step::next();
        }
        QualType LT = BO->getLHS()->getType();
        if (pointsToConst(LT) || LT->isBooleanType())
          return Step::read();
        return Step::write(found(BO, "is assigned to a non-const pointer"));
      }
      if (Op == BO_AddAssign || Op == BO_SubAssign) {
        if (BO->getLHS() == E)
          return Step::next();
        return Step::write(unknown(BO));
      }
      if (Op == BO_Add || Op == BO_Sub) {
        QualType T = BO->getType();
        if (T->isPointerType() || T->isDependentType())
          return Step::next();
        return Step::read();
      }
      if (BO->isComparisonOp() || BO->isLogicalOp())
        return Step::read();
      if (Op == BO_Comma) {
        if (BO->getRHS() == E)
          return Step::next();
        return Step::read();
      }
      return Step::write(unknown(BO));
    }
    return Step::write(unknown(Parent));
  }

  /// `p->m` or `x.m` where the base is in the pointee.
  Step memberOfPointee(const MemberExpr *ME, bool &Pointee) {
    if (const auto *MD = dyn_cast<CXXMethodDecl>(ME->getMemberDecl())) {
      if (MD->isConst() || MD->isStatic())
        return Step::read();
      return Step::write(found(ME, "calls the non-const method '" +
                                       MD->getNameAsString() + "'"));
    }
    Pointee = true;
    return Step::next();
  }

  /// One step up from an lvalue inside the pointee.
  Step stepFromPointee(const Expr *E, const Stmt *Parent, bool &Pointee) {
    if (const auto *ICE = dyn_cast<ImplicitCastExpr>(Parent)) {
      switch (ICE->getCastKind()) {
      case CK_LValueToRValue:
      case CK_ToVoid:
        return Step::read();
      case CK_ArrayToPointerDecay:
        Pointee = false;
        return Step::next();
      case CK_NoOp:
      case CK_DerivedToBase:
      case CK_UncheckedDerivedToBase:
        if (ICE->getType().isConstQualified())
          return Step::read();
        return Step::next();
      default:
        return Step::write(unknown(ICE));
      }
    }
    if (const auto *Cast = dyn_cast<ExplicitCastExpr>(Parent)) {
      QualType T = Cast->getTypeAsWritten();
      if (T->isReferenceType() && !acceptsReadOnly(T, true))
        return Step::write(
            found(Cast, "is cast to the non-const reference type '" +
                            T.getAsString(Ctx.getPrintingPolicy()) + "'"));
      return Step::read();
    }
    if (const auto *ME = dyn_cast<MemberExpr>(Parent)) {
      if (ME->getBase() != E)
        return Step::write(unknown(ME));
      if (ME->isArrow())
        return Step::read(); // Loads the pointer stored here.
      return memberOfPointee(ME, Pointee);
    }
    if (const auto *DME = dyn_cast<CXXDependentScopeMemberExpr>(Parent)) {
      if (DME->isArrow())
        return Step::read();
      return Step::next();
    }
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(Parent)) {
      if (ASE->getBase() == E)
        return Step::next();
      return Step::read();
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(Parent)) {
      switch (UO->getOpcode()) {
      case UO_AddrOf:
        Pointee = false;
        return Step::next();
      case UO_PreInc:
      case UO_PostInc:
      case UO_PreDec:
      case UO_PostDec:
        return Step::write(found(UO, "is written through"));
      case UO_Real:
      case UO_Imag:
        return Step::next();
      default:
        return Step::read();
      }
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(Parent)) {
      if (BO->isAssignmentOp() && BO->getLHS() == E)
        return Step::write(found(BO, "is written through"));
      if (BO->getOpcode() == BO_Comma && BO->getRHS() == E)
        return Step::next();
      if (BO->isPtrMemOp())
        return Step::write(unknown(BO));
      return Step::read();
    }
    if (const auto *ILE = dyn_cast<InitListExpr>(Parent)) {
      if (ILE->getType()->isRecordType() || ILE->getType()->isDependentType())
        return Step::write(unknown(ILE));
      return Step::read();
    }
    return Step::write(unknown(Parent));
  }

  ASTContext &Ctx;
  const ParentLinks &Links;
  const ParmVarDecl *P;
};
} // namespace

std::vector<const DeclRefExpr *> referencesTo(const ValueDecl *D,
                                              const Stmt *S) {
  RefCollector C(D);
  C.TraverseStmt(const_cast<Stmt *>(S));
  return C.Refs;
}

std::vector<const DeclRefExpr *> referencesTo(const ValueDecl *D,
                                              const Decl *Scope) {
  RefCollector C(D);
  C.TraverseDecl(const_cast<Decl *>(Scope));
  return C.Refs;
}

PointerUses::PointerUses(ASTContext &Ctx, const FunctionDecl *Body)
    : Ctx(Ctx), Body(Body),
      Links(std::make_unique<ParentLinks>(Body->getBody())) {}

PointerUses::~PointerUses() = default;

PointerUses::ParamUse PointerUses::param(unsigned Index) const {
  const ParmVarDecl *PVD = Body->getParamDecl(Index);
  UseWalker Walker(Ctx, *Links, PVD);
  ParamUse Use;
  for (const DeclRefExpr *Ref : referencesTo(PVD, Body->getBody())) {
    std::optional<Finding> W = Walker.writeThrough(Ref);
    if (W && !Use.Write)
      Use.Write = W->What;
  }
  if (Walker.Rebound)
    Use.Rebound = Walker.Rebound->What;
  return Use;
}

} // namespace cuda_opt
