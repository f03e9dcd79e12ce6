//===- IndexExprBuilder.cpp - Turn clang expressions into IndexExprs -----===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/IndexExprBuilder.h"
#include "cuda-opt/Analysis/KernelFinder.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

/// The most terms a product may expand to before it is kept opaque.
static constexpr size_t MaxTerms = 64;

namespace {
/// Records every write to a local variable or parameter.
class WriteCollector : public RecursiveASTVisitor<WriteCollector> {
public:
  using WriteMap = DenseMap<const VarDecl *, std::vector<VariableWrite>>;
  explicit WriteCollector(WriteMap &Writes) : Writes(Writes) {}

  static const VarDecl *target(const Expr *E) {
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
      return dyn_cast<VarDecl>(DRE->getDecl());
    return nullptr;
  }

  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (!BO->isAssignmentOp())
      return true;
    if (const VarDecl *V = target(BO->getLHS()))
      Writes[V].push_back({BO, BO->getRHS(), BO->getOpcode(), 0});
    return true;
  }

  bool VisitUnaryOperator(UnaryOperator *UO) {
    const VarDecl *V = target(UO->getSubExpr());
    if (!V)
      return true;
    if (UO->isIncrementDecrementOp())
      Writes[V].push_back(
          {UO, nullptr, BO_Comma, UO->isIncrementOp() ? 1 : -1});
    else if (UO->getOpcode() == UO_AddrOf)
      Writes[V].push_back({UO, nullptr, BO_Comma, 0});
    return true;
  }

  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *OC) {
    // Dependent operands in a template can leave `x += y` as an operator
    // call.
    if (OC->getNumArgs() == 0)
      return true;
    const VarDecl *V = target(OC->getArg(0));
    if (!V)
      return true;
    OverloadedOperatorKind K = OC->getOperator();
    if (K == OO_PlusPlus || K == OO_MinusMinus)
      Writes[V].push_back({OC, nullptr, BO_Comma, K == OO_PlusPlus ? 1 : -1});
    else if (OC->isAssignmentOp() && OC->getNumArgs() == 2)
      Writes[V].push_back(
          {OC, OC->getArg(1), BinaryOperator::getOverloadedOpcode(K), 0});
    return true;
  }

  WriteMap &Writes;
};

/// The name a symbol is printed with, from a declaration.
std::string declName(const NamedDecl *D) {
  std::string N = D->getNameAsString();
  return N.empty() ? "<unnamed>" : N;
}
} // namespace

IndexExprBuilder::IndexExprBuilder(ASTContext &Ctx, const FunctionDecl *Kernel,
                                   SymbolTable &Symbols)
    : Ctx(Ctx), Symbols(Symbols) {
  WriteCollector C(Writes);
  if (!Kernel || !Kernel->getBody())
    return;
  C.TraverseStmt(Kernel->getBody());
  for (const Stmt *S : Kernel->getBody()->children())
    TopLevel.insert(S);
}

const Expr *IndexExprBuilder::reachingValue(const VarDecl *V,
                                            const Expr *Ref) const {
  if (!Ref || isa<ParmVarDecl>(V) || !V->hasLocalStorage())
    return nullptr;
  const SourceManager &SM = Ctx.getSourceManager();
  const Expr *Best = V->getInit();
  SourceLocation BestLoc = V->getLocation();
  for (const VariableWrite &W : writesOf(V)) {
    if (W.Op != BO_Assign || !W.Value || !TopLevel.contains(W.Site))
      return nullptr;
    if (!SM.isBeforeInTranslationUnit(W.Site->getEndLoc(), Ref->getBeginLoc()))
      continue;
    if (SM.isBeforeInTranslationUnit(BestLoc, W.Site->getBeginLoc())) {
      Best = W.Value;
      BestLoc = W.Site->getBeginLoc();
    }
  }
  return Best;
}

std::optional<IndexExpr> IndexExprBuilder::buildGroupRank(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || FD->getName() != "thread_rank")
    return std::nullopt;
  const auto *Method = dyn_cast<CXXMethodDecl>(FD);
  if (!Method)
    return std::nullopt;
  std::string Group = Method->getParent()->getNameAsString();
  auto Sym = [&](SymbolKind K, unsigned D) {
    return IndexExpr::symbol(Symbols.builtin(K, D));
  };
  // Rank of the thread in its block: x + X * (y + Y * z).
  IndexExpr InBlock =
      Sym(SymbolKind::ThreadIdx, 0) +
      Sym(SymbolKind::BlockDim, 0) *
          (Sym(SymbolKind::ThreadIdx, 1) +
           Sym(SymbolKind::BlockDim, 1) * Sym(SymbolKind::ThreadIdx, 2));
  if (Group == "thread_block")
    return InBlock;
  if (Group != "grid_group")
    return std::nullopt;
  IndexExpr Block =
      Sym(SymbolKind::BlockIdx, 0) +
      Sym(SymbolKind::GridDim, 0) *
          (Sym(SymbolKind::BlockIdx, 1) +
           Sym(SymbolKind::GridDim, 1) * Sym(SymbolKind::BlockIdx, 2));
  IndexExpr BlockSize = Sym(SymbolKind::BlockDim, 0) *
                        Sym(SymbolKind::BlockDim, 1) *
                        Sym(SymbolKind::BlockDim, 2);
  return Block * BlockSize + InBlock;
}

void IndexExprBuilder::bind(const VarDecl *V, IndexExpr Form) {
  Bound[V] = std::move(Form);
}

ArrayRef<VariableWrite> IndexExprBuilder::writesOf(const VarDecl *V) const {
  auto It = Writes.find(V);
  if (It == Writes.end())
    return {};
  return It->second;
}

std::optional<int64_t> IndexExprBuilder::evaluate(const Expr *E) const {
  if (!E || E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  if (!E->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  return R.Val.getInt().getExtValue();
}

std::string IndexExprBuilder::text(const Expr *E) const {
  std::string T = sourceText(Ctx, E->getSourceRange());
  if (!T.empty())
    return T;
  std::string Out;
  raw_string_ostream OS(Out);
  E->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
  return Out;
}

bool IndexExprBuilder::matchBuiltin(const Expr *E, SymbolKind &Kind,
                                    unsigned &Dim) {
  E = stripCasts(E);
  if (const auto *POE = dyn_cast<PseudoObjectExpr>(E))
    E = POE->getSyntacticForm()->IgnoreParens();
  const auto *Prop = dyn_cast<MSPropertyRefExpr>(E);
  if (!Prop)
    return false;
  const Expr *BaseE = Prop->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto *OVE = dyn_cast<OpaqueValueExpr>(BaseE))
    if (OVE->getSourceExpr())
      BaseE = OVE->getSourceExpr()->IgnoreParenImpCasts();
  const auto *Base = dyn_cast<DeclRefExpr>(BaseE);
  if (!Base)
    return false;
  StringRef Var = Base->getDecl()->getName();
  if (Var == "threadIdx")
    Kind = SymbolKind::ThreadIdx;
  else if (Var == "blockIdx")
    Kind = SymbolKind::BlockIdx;
  else if (Var == "blockDim")
    Kind = SymbolKind::BlockDim;
  else if (Var == "gridDim")
    Kind = SymbolKind::GridDim;
  else
    return false;
  StringRef Field = Prop->getPropertyDecl()->getName();
  if (Field.size() != 1 || Field[0] < 'x' || Field[0] > 'z')
    return false;
  Dim = Field[0] - 'x';
  return true;
}

const Expr *IndexExprBuilder::stripCasts(const Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    const auto *CE = dyn_cast<ExplicitCastExpr>(E);
    if (!CE)
      return E;
    QualType To = CE->getType();
    QualType From = CE->getSubExpr()->getType();
    if (!To->isIntegralOrEnumerationType() ||
        (!From->isIntegralOrEnumerationType() && !From->isDependentType()))
      return E;
    E = CE->getSubExpr();
  }
}

unsigned IndexExprBuilder::dependence(const Stmt *S) {
  if (!S)
    return DepNone;
  if (const auto *E = dyn_cast<Expr>(S)) {
    SymbolKind Kind;
    unsigned Dim;
    if (matchBuiltin(E, Kind, Dim)) {
      if (Kind == SymbolKind::ThreadIdx)
        return DepThreadX << Dim;
      return Kind == SymbolKind::BlockIdx ? DepBlock : DepNone;
    }
    const Expr *Bare = E->IgnoreParenImpCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(Bare)) {
      if (isa<VarDecl>(DRE->getDecl()))
        return buildVariable(cast<VarDecl>(DRE->getDecl()), DRE)
            .dependence(Symbols);
      return DepNone;
    }
    unsigned D = DepNone;
    if (isa<ArraySubscriptExpr>(Bare))
      D |= DepData;
    if (const auto *UO = dyn_cast<UnaryOperator>(Bare))
      if (UO->getOpcode() == UO_Deref)
        D |= DepData;
    if (const auto *ME = dyn_cast<MemberExpr>(Bare))
      if (ME->isArrow())
        D |= DepData;
    if (const auto *CE = dyn_cast<CallExpr>(Bare))
      if (std::optional<IndexExpr> Rank = buildGroupRank(CE))
        return Rank->dependence(Symbols);
    if (const auto *CE = dyn_cast<CallExpr>(Bare))
      if (const FunctionDecl *FD = CE->getDirectCallee())
        if (FD->getName().starts_with("__shfl") ||
            FD->getName().starts_with("__ldg") ||
            FD->getName().starts_with("atomic"))
          D |= DepData;
    for (const Stmt *Child : Bare->children())
      D |= dependence(Child);
    return D;
  }
  unsigned D = DepNone;
  for (const Stmt *Child : S->children())
    D |= dependence(Child);
  return D;
}

IndexExpr IndexExprBuilder::opaque(const Expr *E) {
  unsigned Deps = dependence(E);
  return IndexExpr::symbol(Symbols.opaque(text(E), Deps));
}

IndexExpr IndexExprBuilder::buildVariable(const VarDecl *V, const Expr *Ref) {
  auto BoundIt = Bound.find(V);
  if (BoundIt != Bound.end())
    return BoundIt->second;
  ArrayRef<VariableWrite> VW = writesOf(V);
  if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
    if (VW.empty())
      return IndexExpr::symbol(Symbols.decl(SymbolKind::Param, P, declName(P)));
  } else if (!V->hasLocalStorage()) {
    if (V->getType().isConstQualified() && V->getInit())
      if (std::optional<int64_t> C = evaluate(V->getInit()))
        return IndexExpr::constant(*C);
    // A __device__ / __shared__ / __constant__ variable: memory.
    return IndexExpr::symbol(
        Symbols.decl(SymbolKind::Opaque, V, declName(V), DepData));
  } else if (const Expr *Value = VW.empty() ? nullptr : reachingValue(V, Ref)) {
    auto MemoIt = ValueMemo.find(Value);
    if (MemoIt != ValueMemo.end())
      return MemoIt->second;
    if (ValuesInProgress.contains(Value))
      return opaque(Ref);
    ValuesInProgress.insert(Value);
    IndexExpr Form = build(Value);
    ValuesInProgress.erase(Value);
    ValueMemo[Value] = Form;
    return Form;
  } else if (VW.empty() && V->getInit()) {
    auto MemoIt = Memo.find(V);
    if (MemoIt != Memo.end())
      return MemoIt->second;
    if (InProgress.contains(V))
      return opaque(Ref);
    InProgress.insert(V);
    IndexExpr Form = build(V->getInit());
    InProgress.erase(V);
    Memo[V] = Form;
    return Form;
  }
  // Written after its declaration (or never initialised): an opaque value
  // that depends on everything assigned to it, and on the iteration when it
  // changes in a loop.
  if (InProgress.contains(V))
    return IndexExpr::symbol(
        Symbols.decl(SymbolKind::Opaque, V, declName(V), DepLoop));
  InProgress.insert(V);
  unsigned Deps = DepLoop;
  if (V->getInit())
    Deps |= dependence(V->getInit());
  for (const VariableWrite &W : VW) {
    if (W.Value)
      Deps |= dependence(W.Value);
    else if (W.Step == 0)
      Deps |= DepData; // Address taken: anything may write it.
  }
  InProgress.erase(V);
  return IndexExpr::symbol(
      Symbols.decl(SymbolKind::Opaque, V, declName(V), Deps));
}

IndexExpr IndexExprBuilder::build(const Expr *E) {
  E = stripCasts(E);
  if (std::optional<int64_t> C = evaluate(E))
    return IndexExpr::constant(*C);
  SymbolKind Kind;
  unsigned Dim;
  if (matchBuiltin(E, Kind, Dim))
    return IndexExpr::symbol(Symbols.builtin(Kind, Dim));

  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = DRE->getDecl();
    if (const auto *NTTP = dyn_cast<NonTypeTemplateParmDecl>(D))
      return IndexExpr::symbol(
          Symbols.decl(SymbolKind::TemplateParam, NTTP, declName(NTTP)));
    if (const auto *V = dyn_cast<VarDecl>(D))
      return buildVariable(V, E);
    return opaque(E);
  }
  if (const auto *SNTTP = dyn_cast<SubstNonTypeTemplateParmExpr>(E))
    return build(SNTTP->getReplacement());

  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    switch (BO->getOpcode()) {
    case BO_Add:
      return build(BO->getLHS()) + build(BO->getRHS());
    case BO_Sub:
      return build(BO->getLHS()) - build(BO->getRHS());
    case BO_Mul: {
      IndexExpr Product = build(BO->getLHS()) * build(BO->getRHS());
      // Keep expansions of long products of sums readable and cheap.
      if (Product.terms().size() > MaxTerms)
        return opaque(E);
      return Product;
    }
    case BO_Shl:
      if (std::optional<int64_t> Sh = evaluate(BO->getRHS()))
        if (*Sh >= 0 && *Sh < 32)
          return build(BO->getLHS()).scaled(int64_t(1) << *Sh);
      return opaque(E);
    case BO_Comma:
      return build(BO->getRHS());
    default:
      return opaque(E);
    }
  }
  if (const auto *CE = dyn_cast<CallExpr>(E))
    if (std::optional<IndexExpr> Rank = buildGroupRank(CE))
      return *Rank;
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->getOpcode() == UO_Minus)
      return build(UO->getSubExpr()).scaled(-1);
    if (UO->getOpcode() == UO_Plus)
      return build(UO->getSubExpr());
  }
  return opaque(E);
}

} // namespace cuda_opt
