//===- RowOutputs.cpp - Outputs a row program writes in rows --------------===//
//
// Part of cuda-opt.
//
// Two facts make an output parameter `p` rows of C elements:
//
//  1. Every write to it in the row program's loops is `p[r * C + j]` (through
//     `p` or a local pointer set once from it), with r the thread's row, j
//     the loop's counter from a constant >= 0 to `j < C`, and C a constant
//     or an integer parameter the kernel never writes.
//  2. Nothing else can write it: every use of `p` in the kernel indexes it
//     (a read, or one of those writes) or sets such a local pointer, and no
//     write or call goes through a pointer that cannot be traced (which
//     might point into p's memory).
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/RowOutputs.h"
#include "cuda-opt/Analysis/IndexExprBuilder.h"
#include "cuda-opt/Analysis/RowProgram.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// Where a pointer (or an lvalue) points: into the memory of a pointer
/// parameter of the kernel, into memory none of the kernel's outputs can be
/// (a local, shared or global array, a callee's pointer parameter), or
/// somewhere cuda-opt cannot tell.
struct Root {
  enum KindT { Param, Elsewhere, Unknown } Kind = Unknown;
  const ParmVarDecl *P = nullptr;
  static Root unknown() { return Root(); }
  static Root elsewhere() { return Root{Elsewhere, nullptr}; }
};

bool isAssignOperator(OverloadedOperatorKind Op) {
  switch (Op) {
  case OO_Equal:
  case OO_PlusEqual:
  case OO_MinusEqual:
  case OO_StarEqual:
  case OO_SlashEqual:
  case OO_PercentEqual:
  case OO_AmpEqual:
  case OO_PipeEqual:
  case OO_CaretEqual:
  case OO_LessLessEqual:
  case OO_GreaterGreaterEqual:
  case OO_PlusPlus:
  case OO_MinusMinus:
    return true;
  default:
    return false;
  }
}

bool isSystemFunction(const FunctionDecl *FD) {
  const SourceManager &SM = FD->getASTContext().getSourceManager();
  return FD->getBuiltinID() ||
         SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation()));
}

/// Scans the kernel (and the functions it calls) for the uses of its
/// pointer parameters and for writes whose target cannot be traced.
class Scan : public RecursiveASTVisitor<Scan> {
public:
  Scan(ASTContext &Ctx, const FunctionDecl *Kernel) : Ctx(Ctx), Kernel(Kernel) {}

  /// Something may write memory through a pointer that cannot be traced.
  bool Doubt = false;
  /// Pointer parameters used other than by indexing.
  DenseSet<const ParmVarDecl *> Escaped;
  /// The element writes through each pointer parameter.
  DenseMap<const ParmVarDecl *, SmallVector<const ArraySubscriptExpr *, 4>>
      Writes;

  void run() {
    Current = Kernel;
    collectWrittenVars(Kernel->getBody());
    TraverseStmt(Kernel->getBody());
  }

  bool TraverseLambdaExpr(LambdaExpr *) {
    Doubt = true;
    return true;
  }

  bool VisitVarDecl(VarDecl *VD) {
    if (VD->hasLocalStorage() && VD->getType()->isPointerType() &&
        VD->getInit() && !WrittenVars.contains(VD))
      Aliases[VD] = pointerRoot(VD->getInit());
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
    if (!VD)
      return true;
    // A global pointer may point into any buffer.
    if (!VD->hasLocalStorage() && !isa<ParmVarDecl>(VD) &&
        VD->getType()->isPointerType())
      Doubt = true;
    const ParmVarDecl *P = nullptr;
    if (const auto *PV = dyn_cast<ParmVarDecl>(VD);
        PV && Current == Kernel && PV->getType()->isPointerType())
      P = PV;
    else if (auto It = Aliases.find(VD);
             It != Aliases.end() && It->second.Kind == Root::Param)
      P = It->second.P;
    if (P && !indexingUse(DRE))
      Escaped.insert(P);
    return true;
  }

  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp())
      noteWrite(BO->getLHS());
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->isIncrementDecrementOp())
      noteWrite(UO->getSubExpr());
    return true;
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *OC) {
    if (isAssignOperator(OC->getOperator()) && OC->getNumArgs() >= 1)
      noteWrite(OC->getArg(0));
    return true;
  }
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *MC) {
    // A method may write its object (conversions of CUDA's 16-bit float
    // classes are const and declared in its headers).
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (!MD || !MD->isConst() || !isSystemFunction(MD))
      Doubt = true;
    return true;
  }
  bool VisitCallExpr(CallExpr *CE) {
    if (isa<CXXOperatorCallExpr, CXXMemberCallExpr>(CE))
      return true;
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD) {
      Doubt = true;
      return true;
    }
    if (isSystemFunction(FD)) {
      // Math, loads, intrinsics: values in, a value out. Atomics and
      // stores write through their pointer argument.
      StringRef Name =
          FD->getDeclName().isIdentifier() ? FD->getName() : StringRef();
      bool Writes = Name.contains("atomic") || Name.starts_with("__st") ||
                    Name.contains("mem") || Name.contains("store");
      if (Writes)
        for (const Expr *A : CE->arguments())
          if (A->getType()->isPointerType() &&
              pointerRoot(A).Kind == Root::Unknown)
            Doubt = true;
      return true;
    }
    const FunctionDecl *Def = FD->getDefinition();
    if (!Def || !Def->getBody() || Depth >= 4) {
      Doubt = true;
      return true;
    }
    for (const Expr *A : CE->arguments())
      if ((A->getType()->isPointerType() || A->getType()->isReferenceType()) &&
          pointerRoot(A).Kind == Root::Unknown)
        Doubt = true;
    if (Visited.insert(Def).second) {
      // Its pointer parameters point wherever the arguments do: never into
      // a parameter of the kernel still in question (passing one is a use
      // other than indexing).
      const FunctionDecl *Saved = Current;
      Current = Def;
      ++Depth;
      collectWrittenVars(Def->getBody());
      TraverseStmt(Def->getBody());
      --Depth;
      Current = Saved;
    }
    return true;
  }
  bool VisitAsmStmt(AsmStmt *) {
    Doubt = true;
    return true;
  }

private:
  /// Locals written after their declaration (their value is not the
  /// initialiser's).
  void collectWrittenVars(Stmt *Body) {
    struct Finder : RecursiveASTVisitor<Finder> {
      DenseSet<const VarDecl *> &Out;
      explicit Finder(DenseSet<const VarDecl *> &Out) : Out(Out) {}
      void note(const Expr *E) {
        if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
          if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
            Out.insert(VD);
      }
      bool VisitBinaryOperator(BinaryOperator *BO) {
        if (BO->isAssignmentOp())
          note(BO->getLHS());
        return true;
      }
      bool VisitUnaryOperator(UnaryOperator *UO) {
        if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf)
          note(UO->getSubExpr());
        return true;
      }
    } F(WrittenVars);
    F.TraverseStmt(Body);
  }

  Root varRoot(const VarDecl *VD) {
    if (const auto *PV = dyn_cast<ParmVarDecl>(VD)) {
      if (!PV->getType()->isPointerType())
        return Root::unknown();
      if (Current == Kernel)
        return Root{Root::Param, PV};
      return Root::elsewhere();
    }
    if (auto It = Aliases.find(VD); It != Aliases.end())
      return It->second;
    if (VD->getType()->isArrayType())
      return Root::elsewhere(); // Its own memory.
    return Root::unknown();
  }

  /// What pointer expression \p E points into.
  Root pointerRoot(const Expr *E, unsigned D = 0) {
    if (D > 8)
      return Root::unknown();
    E = E->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        return varRoot(VD);
      return Root::unknown();
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      if (BO->getOpcode() != BO_Add && BO->getOpcode() != BO_Sub)
        return Root::unknown();
      const Expr *Ptr = BO->getLHS()->getType()->isPointerType()
                            ? BO->getLHS()
                            : BO->getRHS();
      return pointerRoot(Ptr, D + 1);
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      if (UO->getOpcode() == UO_AddrOf)
        return lvalueRoot(UO->getSubExpr(), D + 1);
      return Root::unknown();
    }
    if (isa<ArraySubscriptExpr, MemberExpr>(E) && E->getType()->isArrayType())
      return lvalueRoot(E, D + 1); // a[i] of a 2-D array, s.arr
    return Root::unknown();
  }

  /// What memory the lvalue \p E is in.
  Root lvalueRoot(const Expr *E, unsigned D = 0) {
    if (D > 8)
      return Root::unknown();
    E = E->IgnoreParenImpCasts();
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E))
      return pointerRoot(AS->getBase(), D + 1);
    if (const auto *UO = dyn_cast<UnaryOperator>(E))
      return UO->getOpcode() == UO_Deref ? pointerRoot(UO->getSubExpr(), D + 1)
                                         : Root::unknown();
    if (const auto *ME = dyn_cast<MemberExpr>(E))
      return ME->isArrow() ? pointerRoot(ME->getBase(), D + 1)
                           : lvalueRoot(ME->getBase(), D + 1);
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (!VD || VD->getType()->isReferenceType())
        return Root::unknown();
      return Root::elsewhere(); // The variable itself (local or __device__).
    }
    return Root::unknown();
  }

  void noteWrite(const Expr *LHS) {
    const Expr *L = LHS->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(L))
      if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
        if (!VD->getType()->isReferenceType())
          return; // The variable itself.
    Root R = lvalueRoot(L);
    if (R.Kind == Root::Unknown) {
      Doubt = true;
      return;
    }
    if (R.Kind != Root::Param)
      return;
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(L))
      Writes[R.P].push_back(AS);
    else
      Escaped.insert(R.P);
  }

  const Expr *parentExpr(const Expr *E, const Decl **AsDecl = nullptr) {
    DynTypedNodeList Ps = Ctx.getParents(*E);
    if (Ps.size() != 1)
      return nullptr;
    if (AsDecl)
      *AsDecl = Ps[0].get<Decl>();
    return Ps[0].get<Expr>();
  }

  /// Whether the use \p DRE of a tracked pointer only indexes it (reading
  /// or writing an element) or sets a local pointer from it.
  bool indexingUse(const DeclRefExpr *DRE) {
    const Expr *Cur = DRE;
    for (unsigned Steps = 0; Steps < 16; ++Steps) {
      const Decl *D = nullptr;
      const Expr *P = parentExpr(Cur, &D);
      if (!P) {
        const auto *VD = dyn_cast_or_null<VarDecl>(D);
        return VD && Aliases.count(VD) && VD->getInit() &&
               VD->getInit()->IgnoreParens() == Cur->IgnoreParens();
      }
      if (isa<ImplicitCastExpr, ParenExpr>(P)) {
        if (const auto *IC = dyn_cast<ImplicitCastExpr>(P);
            IC && IC->getCastKind() != CK_LValueToRValue &&
            IC->getCastKind() != CK_NoOp)
          return false;
        Cur = P;
        continue;
      }
      if (const auto *BO = dyn_cast<BinaryOperator>(P)) {
        if ((BO->getOpcode() == BO_Add || BO->getOpcode() == BO_Sub) &&
            BO->getType()->isPointerType() && Cur->getType()->isPointerType()) {
          Cur = P;
          continue;
        }
        return false;
      }
      const auto *AS = dyn_cast<ArraySubscriptExpr>(P);
      if (!AS || AS->getBase() != Cur)
        return false;
      // An element: `&p[i]` is a pointer again; else it must be read or
      // written as a whole.
      const Expr *Elt = AS;
      const Expr *Up = parentExpr(Elt);
      while (Up && isa<ParenExpr>(Up)) {
        Elt = Up;
        Up = parentExpr(Elt);
      }
      if (!Up)
        return false;
      if (const auto *UO = dyn_cast<UnaryOperator>(Up)) {
        if (UO->getOpcode() == UO_AddrOf) {
          Cur = UO;
          continue;
        }
        return UO->isIncrementDecrementOp();
      }
      if (const auto *IC = dyn_cast<ImplicitCastExpr>(Up))
        return IC->getCastKind() == CK_LValueToRValue;
      if (const auto *BO = dyn_cast<BinaryOperator>(Up))
        return BO->isAssignmentOp() && BO->getLHS() == Elt;
      if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Up))
        return isAssignOperator(OC->getOperator()) && OC->getArg(0) == Elt;
      return false;
    }
    return false;
  }

  ASTContext &Ctx;
  const FunctionDecl *Kernel;
  const FunctionDecl *Current = nullptr;
  unsigned Depth = 0;
  DenseSet<const VarDecl *> WrittenVars;
  DenseMap<const VarDecl *, Root> Aliases;
  DenseSet<const FunctionDecl *> Visited;
};

/// C when \p Base is R * C for the row index polynomial \p R.
std::optional<IndexExpr> rowLengthOf(const IndexExpr &Base,
                                     const IndexExpr &R) {
  for (const auto &[Mono, Coef] : R.terms()) {
    if (Mono.size() != 1 || Coef != 1)
      continue;
    std::optional<IndexExpr> InR = R.coefficientOf(Mono[0]);
    if (!InR || InR->getConstant() != 1)
      continue;
    std::optional<IndexExpr> C = Base.coefficientOf(Mono[0]);
    if (C && R * *C == Base)
      return C;
  }
  return std::nullopt;
}

/// The row length \p C as a constant or an integer parameter.
std::optional<RowLength> asRowLength(const IndexExpr &C,
                                     const SymbolTable &Symbols) {
  RowLength L;
  if (std::optional<int64_t> V = C.getConstant()) {
    if (*V <= 0)
      return std::nullopt;
    L.Value = *V;
    L.Text = std::to_string(*V);
    return L;
  }
  if (C.terms().size() != 1)
    return std::nullopt;
  const auto &[Mono, Coef] = *C.terms().begin();
  if (Mono.size() != 1 || Coef != 1)
    return std::nullopt;
  const IndexSymbol &S = Symbols[Mono[0]];
  const auto *PV = dyn_cast_or_null<ParmVarDecl>(S.Decl);
  if (S.Kind != SymbolKind::Param || !PV || !PV->getType()->isIntegerType())
    return std::nullopt;
  L.Param = PV->getFunctionScopeIndex();
  L.Text = PV->getNameAsString();
  return L;
}

} // namespace

std::map<unsigned, RowLength> rowStructuredOutputs(ASTContext &Ctx,
                                                   const KernelInfo &K) {
  std::map<unsigned, RowLength> Out;
  if (!K.Decl || !K.Decl->hasBody() || K.Template)
    return Out;
  Expected<RowProgram> RP = analyzeRowProgram(Ctx, K);
  if (!RP) {
    consumeError(RP.takeError());
    return Out;
  }
  const VarDecl *RowVar = RP->rowVar();
  if (!RowVar || !RowVar->getInit())
    return Out;
  IndexExprBuilder B(Ctx, K.Decl, RP->Symbols);
  const IndexExpr R = B.build(RowVar->getInit());

  // Fact 1: the writes in the row's loops.
  std::map<const ParmVarDecl *, std::optional<IndexExpr>> Length;
  DenseSet<const ParmVarDecl *> Bad;
  DenseSet<const ArraySubscriptExpr *> RowWrites;
  for (const RowLoop &L : RP->Loops) {
    const IndexExpr Bound = B.build(L.Bound);
    for (const RowAccess &X : L.Accesses) {
      const auto *P = dyn_cast_or_null<ParmVarDecl>(X.Root);
      if (!X.Write || !P)
        continue;
      std::optional<IndexExpr> C;
      if (X.Stride == 1 && X.Base && L.ConstStart && *L.ConstStart >= 0 &&
          !L.Inclusive)
        C = rowLengthOf(*X.Base, R);
      // j stays below C: the bound is C, or a constant no larger.
      bool Within =
          C && (Bound == *C || (Bound.getConstant() && C->getConstant() &&
                                *Bound.getConstant() <= *C->getConstant()));
      auto [It, New] = Length.try_emplace(P, C);
      if (!Within || (!New && (!It->second || *It->second != *C)))
        Bad.insert(P);
      RowWrites.insert(X.Expr);
    }
  }

  // Fact 2: nothing else writes them.
  Scan S(Ctx, K.Decl);
  S.run();
  if (S.Doubt)
    return Out;
  for (const auto &[P, C] : Length) {
    if (Bad.contains(P) || S.Escaped.contains(P) || !C)
      continue;
    if (!llvm::all_of(S.Writes[P], [&](const ArraySubscriptExpr *AS) {
          return RowWrites.contains(AS);
        }))
      continue;
    if (std::optional<RowLength> L = asRowLength(*C, RP->Symbols))
      Out[P->getFunctionScopeIndex()] = *L;
  }
  return Out;
}

json::Array rowOutputsToJSON(const KernelInfo &K,
                             const std::map<unsigned, RowLength> &Rows) {
  json::Array A;
  for (const auto &[Index, L] : Rows) {
    json::Object O{{"param", K.Decl->getParamDecl(Index)->getNameAsString()},
                   {"index", Index},
                   {"row_length", L.Text}};
    if (L.Value)
      O["row_length_value"] = *L.Value;
    if (L.Param)
      O["row_length_param"] = *L.Param;
    A.push_back(std::move(O));
  }
  return A;
}

} // namespace cuda_opt
