//===- RestrictConst.cpp - const and __restrict__ on kernel pointers -----===//
//
// Part of cuda-opt.
//
// restrict-const adds `const` to the pointee of every pointer parameter the
// kernel never writes through, and `__restrict__` to the pointer parameters
// when no two of them can alias. Both let the compiler keep values in
// registers and use the read-only data path.
//
// const: every use of the parameter is followed up the expression tree until
// it is known to be a read (a load, a comparison, a conversion to a pointer to
// const, ...). A store through it, an atomic, a call that takes a non-const
// pointer or reference, a copy into a non-const pointer variable or a cast to
// a non-const pointer keeps the parameter as it is. Anything not understood
// counts as a write.
//
// __restrict__: proven at the launch sites. Every launch in the file must pass
// distinct variables that are only ever assigned from their own
// cudaMalloc/cudaMallocManaged/cudaMallocAsync (or null), the kernel must not
// be reachable any other way, and no pointer may reach the kernel by another
// route (a struct argument, a global, a pointer to pointers). When that fails
// only const is added, and a note says why.
//
// Every declaration of the kernel in the file is edited the same way, so the
// prototypes keep matching the definition.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Transforms/Transform.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

//===----------------------------------------------------------------------===//
// Small type and AST helpers
//===----------------------------------------------------------------------===//

/// True when \p T is a pointer whose pointee is const.
bool pointsToConst(QualType T) {
  const auto *PT = T->getAs<PointerType>();
  return PT && PT->getPointeeType().isConstQualified();
}

/// True when a value of type \p T can carry a pointer: pointers, references,
/// and records or arrays holding one. Dependent types might.
bool mayHoldPointer(QualType T, unsigned Depth = 0) {
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

/// Child-to-parent links inside one function body. Built per body so that a
/// template pattern and its instantiations never share a parent chain.
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

/// Facts about one pointer parameter, gathered over the definition and, for
/// a template, every instantiation.
struct ParamFacts {
  bool Editable = false;   ///< A pointer whose type can be edited.
  std::string NotEditable; ///< Why not, when it is a pointer.
  bool PointeeIsPointer = false;
  bool AlreadyConst = false;
  bool AlreadyRestrict = false;
  std::optional<Finding> Write;   ///< A possible write through it.
  std::optional<Finding> Rebound; ///< The parameter itself reassigned.
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

//===----------------------------------------------------------------------===//
// The transform
//===----------------------------------------------------------------------===//

/// One edit site: a declaration's parameter and where its text changes.
struct ParamEdit {
  SourceLocation ConstLoc;    ///< Insert "const " here.
  SourceLocation RestrictLoc; ///< Insert "__restrict__ " here.
  bool HasRestrict = false;   ///< This declaration already has it.
};

/// The declarations of the kernel: the definition and every prototype.
std::vector<const FunctionDecl *> kernelDecls(const KernelInfo &K) {
  std::vector<const FunctionDecl *> Decls;
  if (K.Template) {
    for (const RedeclarableTemplateDecl *TD : K.Template->redecls())
      Decls.push_back(cast<FunctionTemplateDecl>(TD)->getTemplatedDecl());
    return Decls;
  }
  for (const FunctionDecl *FD : K.Decl->redecls())
    Decls.push_back(FD);
  return Decls;
}

/// The function bodies whose uses decide constness: the definition and, for
/// a template, each implicit instantiation.
std::vector<const FunctionDecl *> analysedBodies(const KernelInfo &K) {
  std::vector<const FunctionDecl *> Bodies{K.Decl};
  if (K.Template)
    for (const FunctionDecl *Spec : K.Template->specializations())
      if (Spec->getTemplateSpecializationKind() == TSK_ImplicitInstantiation &&
          Spec->getBody())
        Bodies.push_back(Spec);
  return Bodies;
}

class RestrictConst : public Transform {
public:
  StringRef getName() const override { return "restrict-const"; }
  StringRef getSummary() const override {
    return "add const to read-only pointer parameters and __restrict__ when "
           "the launch sites prove no aliasing";
  }

  Error checkLegality(const KernelTarget &T,
                      const ParamValues &P) const override {
    return plan(T).takeError();
  }

  Expected<tooling::Replacements> rewrite(const KernelTarget &T,
                                          const ParamValues &P) const override {
    Expected<Plan> Pl = plan(T);
    if (!Pl)
      return Pl.takeError();
    if (!Pl->RestrictBlocker.empty())
      WithColor::note(errs(), "cuda-opt")
          << "restrict-const: kernel '" << T.Kernel.name()
          << "': added const only; __restrict__ is not proven: "
          << Pl->RestrictBlocker << "\n";
    const SourceManager &SM = T.getSourceManager();
    tooling::Replacements R;
    for (const FunctionDecl *D : kernelDecls(T.Kernel)) {
      for (unsigned I : Pl->ConstParams) {
        Expected<ParamEdit> PE = editSite(T, D->getParamDecl(I));
        if (!PE)
          return PE.takeError();
        if (Error E =
                R.add(tooling::Replacement(SM, PE->ConstLoc, 0, "const ")))
          return std::move(E);
      }
      for (unsigned I : Pl->RestrictParams) {
        Expected<ParamEdit> PE = editSite(T, D->getParamDecl(I));
        if (!PE)
          return PE.takeError();
        if (PE->HasRestrict)
          continue;
        if (Error E = R.add(
                tooling::Replacement(SM, PE->RestrictLoc, 0, "__restrict__ ")))
          return std::move(E);
      }
    }
    return R;
  }

private:
  struct Plan {
    std::vector<unsigned> ConstParams;
    std::vector<unsigned> RestrictParams;
    std::string RestrictBlocker; ///< Non-empty when restrict was not proven.
  };

  static std::string quoted(const NamedDecl *D) {
    return "'" + D->getNameAsString() + "'";
  }

  /// Where `const` and `__restrict__` go in one declaration's parameter, or
  /// why that text cannot be edited.
  Expected<ParamEdit> editSite(const KernelTarget &T,
                               const ParmVarDecl *PVD) const {
    const SourceManager &SM = T.getSourceManager();
    const LangOptions &LO = T.Ctx.getLangOpts();
    std::string Who = "parameter " + quoted(PVD);
    const TypeSourceInfo *TSI = PVD->getTypeSourceInfo();
    if (!TSI)
      return refuse(Who + " has no written type");
    PointerTypeLoc PTL =
        TSI->getTypeLoc().getUnqualifiedLoc().getAsAdjusted<PointerTypeLoc>();
    if (!PTL)
      return refuse(Who + " is not spelled as a pointer (a typedef or alias "
                          "hides the '*')");
    SourceLocation Star = PTL.getStarLoc();
    if (Star.isInvalid() || Star.isMacroID())
      return refuse(Who + " is declared inside a macro expansion; cuda-opt "
                          "does not edit macro bodies");
    ParamEdit PE;
    PE.HasRestrict = PVD->getType().isRestrictQualified();
    PE.RestrictLoc = Lexer::getLocForEndOfToken(Star, 0, SM, LO);
    TypeLoc Pointee = PTL.getPointeeLoc();
    if (Pointee.getUnqualifiedLoc().getAsAdjusted<PointerTypeLoc>()) {
      // `float **p` becomes `float *const *p`.
      PE.ConstLoc = Star;
    } else {
      SourceLocation Begin = Pointee.getBeginLoc();
      if (Begin.isMacroID()) {
        SourceLocation MacroBegin;
        if (!Lexer::isAtStartOfMacroExpansion(Begin, SM, LO, &MacroBegin))
          return refuse(Who + " has a pointee type written inside a macro "
                              "expansion");
        Begin = MacroBegin;
      }
      PE.ConstLoc = Begin;
    }
    if (PE.ConstLoc.isInvalid() || PE.RestrictLoc.isInvalid() ||
        !SM.isWrittenInMainFile(PE.ConstLoc))
      return refuse(Who + " cannot be edited in place");
    return PE;
  }

  /// Decide what to add, or say why nothing can be added.
  Expected<Plan> plan(const KernelTarget &T) const {
    const KernelInfo &K = T.Kernel;
    const SourceManager &SM = T.getSourceManager();
    std::string Kernel = "kernel '" + K.name() + "'";

    if (K.Template) {
      for (const NamedDecl *TP : *K.Template->getTemplateParameters())
        if (TP->isTemplateParameterPack())
          return refuse(Kernel + " is a variadic template, which "
                                 "restrict-const does not handle");
      for (const FunctionDecl *Spec : K.Template->specializations()) {
        if (Spec->getTemplateSpecializationKind() == TSK_ImplicitInstantiation)
          continue;
        SourceLocation Where = Spec->getPointOfInstantiation();
        if (Where.isInvalid())
          Where = Spec->getLocation();
        return refuse(Kernel +
                      " has an explicit instantiation or specialisation at " +
                      describeLocation(SM, Where) +
                      " whose signature would no longer match");
      }
    }
    for (const FunctionDecl *D : kernelDecls(K))
      if (!SM.isWrittenInMainFile(SM.getExpansionLoc(D->getLocation())))
        return refuse(Kernel + " is also declared at " +
                      describeLocation(SM, D->getLocation()) +
                      ", outside the file being rewritten");
    if (std::optional<std::string> Use = foreignUse(T, /*ForRestrict=*/false))
      return refuse(Kernel + " is used at " + *Use +
                    " other than by a launch; changing its parameter types "
                    "could break that use");

    // Facts per parameter.
    unsigned NumParams = K.Decl->getNumParams();
    std::vector<ParamFacts> Facts(NumParams);
    bool AnyPointer = false;
    for (unsigned I = 0; I < NumParams; ++I) {
      const ParmVarDecl *PVD = K.Decl->getParamDecl(I);
      const auto *PT = PVD->getType()->getAs<PointerType>();
      if (!PT)
        continue;
      QualType Pointee = PT->getPointeeType();
      if (Pointee->isFunctionType() || Pointee->isArrayType())
        continue;
      AnyPointer = true;
      ParamFacts &F = Facts[I];
      F.AlreadyConst = Pointee.isConstQualified();
      F.AlreadyRestrict = PVD->getType().isRestrictQualified();
      F.PointeeIsPointer = Pointee->isPointerType();
      F.Editable = true;
      for (const FunctionDecl *D : kernelDecls(K)) {
        Expected<ParamEdit> PE = editSite(T, D->getParamDecl(I));
        if (!PE) {
          F.Editable = false;
          F.NotEditable = toString(PE.takeError());
          break;
        }
      }
    }
    if (!AnyPointer)
      return refuse(Kernel + " has no pointer parameters");

    for (const FunctionDecl *Body : analysedBodies(K)) {
      if (Body->getNumParams() != NumParams)
        return refuse(Kernel + " has an instantiation with a different "
                               "number of parameters");
      ParentLinks Links(Body->getBody());
      for (unsigned I = 0; I < NumParams; ++I) {
        ParamFacts &F = Facts[I];
        if (!F.Editable)
          continue;
        const ParmVarDecl *PVD = Body->getParamDecl(I);
        UseWalker Walker(T.Ctx, Links, PVD);
        RefCollector Refs(PVD);
        Refs.TraverseStmt(const_cast<Stmt *>(Body->getBody()));
        for (const DeclRefExpr *Ref : Refs.Refs) {
          std::optional<Finding> W = Walker.writeThrough(Ref);
          if (W && !F.Write)
            F.Write = W;
        }
        if (Walker.Rebound && !F.Rebound)
          F.Rebound = Walker.Rebound;
      }
    }

    Plan Pl;
    for (unsigned I = 0; I < NumParams; ++I) {
      const ParamFacts &F = Facts[I];
      if (F.Editable && !F.AlreadyConst && !F.Write)
        Pl.ConstParams.push_back(I);
    }
    std::optional<std::string> Blocker = restrictBlocker(T, Facts);
    if (Blocker) {
      Pl.RestrictBlocker = *Blocker;
    } else {
      for (unsigned I = 0; I < NumParams; ++I)
        if (Facts[I].Editable && !Facts[I].AlreadyRestrict)
          Pl.RestrictParams.push_back(I);
    }
    if (!Pl.ConstParams.empty() || !Pl.RestrictParams.empty())
      return Pl;

    // Nothing to do: say why, naming the first obstacle.
    std::string Why;
    for (unsigned I = 0; I < NumParams && Why.empty(); ++I)
      if (!Facts[I].NotEditable.empty())
        Why = Facts[I].NotEditable;
    if (!Why.empty())
      return refuse(Kernel + " cannot be edited: " + Why);
    bool AllRestrict = true;
    for (const ParamFacts &F : Facts)
      if (F.Editable && !F.AlreadyRestrict)
        AllRestrict = false;
    if (!Blocker || AllRestrict)
      return refuse("every pointer parameter of " + Kernel +
                    " is already const __restrict__ or written");
    std::string FirstWrite;
    for (const ParamFacts &F : Facts)
      if (F.Write && FirstWrite.empty())
        FirstWrite = F.Write->What;
    return refuse("every pointer parameter of " + Kernel +
                  " is already const or written" +
                  (FirstWrite.empty() ? "" : " (" + FirstWrite + ")") +
                  ", and __restrict__ is not proven: " + *Blocker);
  }

  //===--------------------------------------------------------------------===//
  // Aliasing
  //===--------------------------------------------------------------------===//

  /// A place that names the kernel other than as the callee of a <<<>>>
  /// launch. With \p ForRestrict, any such place counts except the CUDA
  /// runtime's attribute and occupancy queries; without it, only places
  /// that would stop compiling when the parameter types change count.
  std::optional<std::string> foreignUse(const KernelTarget &T,
                                        bool ForRestrict) const {
    class Finder : public RecursiveASTVisitor<Finder> {
    public:
      Finder(const KernelInfo &K, bool ForRestrict)
          : K(K), ForRestrict(ForRestrict) {}
      bool isKernel(const Decl *D) const {
        const auto *FD = dyn_cast_or_null<FunctionDecl>(D);
        if (const auto *FTD = dyn_cast_or_null<FunctionTemplateDecl>(D))
          FD = FTD->getTemplatedDecl();
        if (!FD)
          return false;
        if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
          FD = Pattern;
        return FD->getCanonicalDecl() == K.Decl->getCanonicalDecl();
      }
      bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *Call) {
        // A launch outside the main file is not among the launches the
        // aliasing proof looks at, so only the type check may skip it.
        const SourceManager &SM = K.Decl->getASTContext().getSourceManager();
        if (!ForRestrict ||
            SM.isWrittenInMainFile(SM.getExpansionLoc(Call->getBeginLoc())))
          Callees.insert(Call->getCallee()->IgnoreParenImpCasts());
        return true;
      }
      bool VisitDeclRefExpr(DeclRefExpr *DRE) {
        if (isKernel(DRE->getDecl()))
          Refs.push_back(DRE);
        return true;
      }
      bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *ULE) {
        for (const NamedDecl *D : ULE->decls())
          if (isKernel(D)) {
            Refs.push_back(ULE);
            break;
          }
        return true;
      }
      const KernelInfo &K;
      bool ForRestrict;
      SmallPtrSet<const Expr *, 8> Callees;
      std::vector<const Expr *> Refs;
    } F(T.Kernel, ForRestrict);
    F.TraverseDecl(T.Ctx.getTranslationUnitDecl());
    const SourceManager &SM = T.getSourceManager();
    for (const Expr *Ref : F.Refs) {
      if (F.Callees.count(Ref))
        continue;
      // Climb through casts and `&` to the call that receives the kernel.
      const Expr *E = Ref;
      bool CastToVoid = false;
      const CallExpr *Receiver = nullptr;
      while (true) {
        DynTypedNodeList Parents = T.Ctx.getParents(*E);
        if (Parents.empty())
          break;
        const auto *PE = Parents[0].get<Expr>();
        if (!PE)
          break;
        if (const auto *Cast = dyn_cast<CastExpr>(PE)) {
          if (Cast->getType()->isVoidPointerType())
            CastToVoid = true;
          E = PE;
          continue;
        }
        if (isa<ParenExpr>(PE) ||
            (isa<UnaryOperator>(PE) &&
             cast<UnaryOperator>(PE)->getOpcode() == UO_AddrOf)) {
          E = PE;
          continue;
        }
        Receiver = dyn_cast<CallExpr>(PE);
        break;
      }
      const FunctionDecl *Callee =
          Receiver ? Receiver->getDirectCallee() : nullptr;
      StringRef Name =
          Callee && Callee->getIdentifier() ? Callee->getName() : "";
      bool RuntimeCall = Name.starts_with("cuda");
      bool Query =
          Name.starts_with("cudaFunc") || Name.starts_with("cudaOccupancy");
      if (ForRestrict ? !Query : !(RuntimeCall || CastToVoid))
        return describeLocation(SM, Ref->getBeginLoc());
    }
    return std::nullopt;
  }

  /// Why the pointer parameters might alias, or nothing when they cannot.
  std::optional<std::string> restrictBlocker(const KernelTarget &T,
                                             ArrayRef<ParamFacts> Facts) const {
    const KernelInfo &K = T.Kernel;
    const SourceManager &SM = T.getSourceManager();
    std::string Kernel = "kernel '" + K.name() + "'";
    if (K.isExternC())
      return Kernel + " is extern \"C\", so it may be launched by name from "
                      "outside this file";
    if (K.Launches.empty())
      return Kernel + " is not launched in this file";
    if (std::optional<std::string> Use = foreignUse(T, /*ForRestrict=*/true))
      return Kernel + " is referenced at " + *Use +
             ", which may launch it with other arguments";
    for (unsigned I = 0; I < Facts.size(); ++I)
      if (Facts[I].Rebound)
        return Facts[I].Rebound->What;

    // No pointer may reach the kernel except through its pointer
    // parameters, and those must not point at pointers.
    std::vector<const FunctionDecl *> Bodies = analysedBodies(K);
    for (const FunctionDecl *FD : Bodies) {
      if (FD->isDependentContext() && K.Template && Bodies.size() > 1)
        continue; // The instantiations have the real types.
      for (const ParmVarDecl *PVD : FD->parameters()) {
        QualType Ty = PVD->getType();
        QualType Carried = Ty->isPointerType() ? Ty->getPointeeType() : Ty;
        if (mayHoldPointer(Carried))
          return "parameter " + quoted(PVD) + " of type '" +
                 Ty.getAsString(T.Ctx.getPrintingPolicy()) +
                 "' may carry a pointer that aliases another parameter";
      }
    }
    if (std::optional<std::string> G = pointerGlobal(T))
      return *G;

    for (const LaunchSite &L : K.Launches)
      if (std::optional<std::string> Why = unprovableLaunch(T, L))
        return "at the launch at " +
               describeLocation(SM, L.Call->getBeginLoc()) + ", " + *Why;
    return std::nullopt;
  }

  /// A global that may hold a pointer and that the kernel, or a function it
  /// calls, reads.
  std::optional<std::string> pointerGlobal(const KernelTarget &T) const {
    class Finder : public RecursiveASTVisitor<Finder> {
    public:
      explicit Finder(const SourceManager &SM) : SM(SM) {}
      bool VisitDeclRefExpr(DeclRefExpr *DRE) {
        const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
        if (!Found && VD && VD->hasGlobalStorage() && !VD->isStaticLocal() &&
            !SM.isInSystemHeader(VD->getLocation()) &&
            mayHoldPointer(VD->getType()))
          Found = DRE;
        return true;
      }
      bool VisitCallExpr(CallExpr *CE) {
        const FunctionDecl *FD = CE->getDirectCallee();
        const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
        if (Def && Def->getBody() && !SM.isInSystemHeader(Def->getLocation()) &&
            Seen.insert(Def).second)
          Pending.push_back(Def);
        return true;
      }
      const SourceManager &SM;
      const DeclRefExpr *Found = nullptr;
      SmallPtrSet<const FunctionDecl *, 16> Seen;
      std::vector<const FunctionDecl *> Pending;
    } F(T.getSourceManager());
    for (const FunctionDecl *Body : analysedBodies(T.Kernel))
      F.Pending.push_back(Body);
    while (!F.Pending.empty() && !F.Found) {
      const FunctionDecl *FD = F.Pending.back();
      F.Pending.pop_back();
      F.TraverseStmt(FD->getBody());
    }
    if (!F.Found)
      return std::nullopt;
    return "the kernel reads the global " + quoted(F.Found->getDecl()) +
           " at " +
           describeLocation(T.getSourceManager(), F.Found->getBeginLoc()) +
           ", which may hold a pointer into an argument";
  }

  /// Why the pointer arguments of \p L might alias, or nothing. Every
  /// argument that is or may be a pointer counts, also for parameters that
  /// are not edited (a typedef'd pointer still aliases).
  std::optional<std::string> unprovableLaunch(const KernelTarget &T,
                                              const LaunchSite &L) const {
    const FunctionDecl *Kernel = T.Kernel.Decl;
    SmallPtrSet<const VarDecl *, 8> Seen;
    for (unsigned I = 0; I < L.Call->getNumArgs(); ++I) {
      QualType ArgType = L.Call->getArg(I)->getType();
      bool MayBePointer = ArgType->isPointerType() ||
                          ArgType->isDependentType() ||
                          (I < Kernel->getNumParams() &&
                           Kernel->getParamDecl(I)->getType()->isPointerType());
      if (!MayBePointer)
        continue;
      const Expr *Arg = L.Call->getArg(I);
      if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(Arg))
        Arg = Default->getExpr();
      Arg = Arg->IgnoreParenImpCasts();
      if (!Arg->isValueDependent() &&
          Arg->isNullPointerConstant(T.Ctx, Expr::NPC_ValueDependentIsNotNull))
        continue;
      std::string Text = "'" + sourceText(T.Ctx, Arg->getSourceRange()) + "'";
      const auto *DRE = dyn_cast<DeclRefExpr>(Arg);
      const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
      if (!V)
        return "argument " + Text + " is not a plain pointer variable";
      if (!Seen.insert(V).second)
        return "'" + V->getNameAsString() + "' is passed twice";
      if (std::optional<std::string> Why = notOwnAllocation(T, V))
        return Why;
    }
    return std::nullopt;
  }

  /// Why \p V might point into memory another variable also points into, or
  /// nothing when it only ever holds its own cudaMalloc result (or null).
  std::optional<std::string> notOwnAllocation(const KernelTarget &T,
                                              const VarDecl *V) const {
    ASTContext &Ctx = T.Ctx;
    const SourceManager &SM = T.getSourceManager();
    std::string Name = quoted(V);
    if (!V->getType()->isPointerType())
      return Name + " is not a pointer variable";
    if (isa<ParmVarDecl>(V))
      return Name + " is a parameter of the launching function, so where it "
                    "points is decided by its callers";
    const Stmt *Scope = nullptr;
    const Decl *ScopeDecl = nullptr;
    if (V->isLocalVarDeclOrParm()) {
      const auto *Fn =
          dyn_cast_or_null<FunctionDecl>(V->getParentFunctionOrMethod());
      if (!Fn || !Fn->getBody())
        return Name + " is declared where cuda-opt cannot see its uses";
      Scope = Fn->getBody();
    } else {
      if (V->isExternallyVisible())
        return Name + " is a global with external linkage, which other files "
                      "may assign";
      ScopeDecl = Ctx.getTranslationUnitDecl();
    }
    if (const Expr *Init = V->getInit()) {
      const Expr *Bare = Init->IgnoreParenImpCasts();
      if (Bare->isValueDependent() ||
          !Bare->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull))
        return Name + " is initialised from '" +
               sourceText(Ctx, Init->getSourceRange()) +
               "', not from cudaMalloc";
    }
    RefCollector Refs(V);
    if (Scope)
      Refs.TraverseStmt(const_cast<Stmt *>(Scope));
    else
      Refs.TraverseDecl(const_cast<Decl *>(ScopeDecl));
    for (const DeclRefExpr *Ref : Refs.Refs) {
      std::string Where = describeLocation(SM, Ref->getBeginLoc());
      const Expr *E = Ref;
      const Expr *Parent = nullptr;
      while (true) {
        DynTypedNodeList Ps = Ctx.getParents(*E);
        Parent = Ps.empty() ? nullptr : Ps[0].get<Expr>();
        if (Parent && isa<ParenExpr>(Parent)) {
          E = Parent;
          continue;
        }
        break;
      }
      if (!Parent)
        return Name + " is used at " + Where +
               " in a way cuda-opt cannot follow";
      if (const auto *ICE = dyn_cast<ImplicitCastExpr>(Parent))
        if (ICE->getCastKind() == CK_LValueToRValue)
          continue;
      if (isa<UnaryExprOrTypeTraitExpr>(Parent))
        continue;
      if (const auto *BO = dyn_cast<BinaryOperator>(Parent)) {
        if (BO->getOpcode() == BO_Assign && BO->getLHS() == E) {
          const Expr *RHS = BO->getRHS()->IgnoreParenImpCasts();
          if (!RHS->isValueDependent() &&
              RHS->isNullPointerConstant(Ctx,
                                         Expr::NPC_ValueDependentIsNotNull))
            continue;
          return Name + " is assigned at " + Where +
                 " from something other than cudaMalloc";
        }
      }
      if (const auto *UO = dyn_cast<UnaryOperator>(Parent)) {
        if (UO->getOpcode() == UO_AddrOf) {
          // `&v`, possibly cast to void**, must be what cudaMalloc fills.
          const Expr *Addr = UO;
          const CallExpr *Call = nullptr;
          while (true) {
            DynTypedNodeList Ps = Ctx.getParents(*Addr);
            const auto *Up = Ps.empty() ? nullptr : Ps[0].get<Expr>();
            if (Up && (isa<ParenExpr>(Up) || isa<CastExpr>(Up))) {
              Addr = Up;
              continue;
            }
            Call = dyn_cast_or_null<CallExpr>(Up);
            break;
          }
          if (isAllocationCall(Call) && Call->getNumArgs() > 0 &&
              Call->getArg(0) == Addr)
            continue;
          return "the address of " + Name + " is taken at " + Where +
                 " other than for cudaMalloc";
        }
        if (UO->isIncrementDecrementOp())
          return Name + " is moved by pointer arithmetic at " + Where;
      }
      return Name + " is modified or aliased at " + Where;
    }
    return std::nullopt;
  }
};

TransformRegistration<RestrictConst> Registration;

} // namespace
} // namespace cuda_opt
