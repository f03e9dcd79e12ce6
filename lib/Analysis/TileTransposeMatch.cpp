//===- TileTransposeMatch.cpp - Prove a 2-D kernel is a transpose --------===//
//
// Part of cuda-opt.
//
// The proof works on index polynomials in which the mapped indices x and y
// are symbols of their own (IndexExprBuilder::bind), so that an access
// `out[x * h + y]` reads as h*x + y: its coefficient of x is its stride along
// x, its coefficient of y its stride along y. An access is contiguous in a
// dimension when that coefficient is 1.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/TileTransposeMatch.h"
#include "cuda-opt/Analysis/AccessAnalysis.h"
#include "cuda-opt/Analysis/LoopAnalysis.h"
#include "cuda-opt/Analysis/ThreadBound.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

static std::string where(const ASTContext &Ctx, SourceLocation Loc) {
  return describeLocation(Ctx.getSourceManager(), Loc);
}

static std::string text(const ASTContext &Ctx, const Expr *E) {
  return sourceText(Ctx, E->getSourceRange());
}

namespace {
/// An index split along the mapped indices: Stride[0] * x + Stride[1] * y +
/// Rest, where the strides and Rest are the same for every thread.
struct AxisForm {
  IndexExpr Stride[2];
  IndexExpr Rest;
};

/// Every variable an expression names.
class DeclRefCollector : public RecursiveASTVisitor<DeclRefCollector> {
public:
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    Refs.push_back(DRE);
    return true;
  }
  SmallVector<const DeclRefExpr *, 8> Refs;
};
} // namespace

/// \p I as Stride[0] * x + Stride[1] * y + Rest, when it is affine in x and
/// y with coefficients that are the same for every thread.
static std::optional<AxisForm> splitAxes(const IndexExpr &I,
                                         const unsigned Sym[2],
                                         const SymbolTable &Symbols) {
  AxisForm F;
  IndexExpr Rest = I;
  for (unsigned A = 0; A < 2; ++A) {
    std::optional<IndexExpr> C = I.coefficientOf(Sym[A]);
    if (!C)
      return std::nullopt;
    F.Stride[A] = *C;
    Rest = Rest - *C * IndexExpr::symbol(Sym[A]);
  }
  for (const IndexExpr *Part : {&F.Stride[0], &F.Stride[1], &Rest})
    if (Part->mentions(Sym[0]) || Part->mentions(Sym[1]) ||
        (Part->dependence(Symbols) & DepVarying))
      return std::nullopt;
  F.Rest = Rest;
  return F;
}

static bool isOne(const IndexExpr &E) {
  std::optional<int64_t> C = E.getConstant();
  return C && *C == 1;
}

static bool isZero(const IndexExpr &E) { return E.isZero(); }

/// `lhs = rhs` as a builtin or overloaded assignment: its operands.
static bool matchAssign(const Expr *E, const Expr *&LHS, const Expr *&RHS,
                        bool &Compound) {
  E = E->IgnoreParens();
  if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
    E = EWC->getSubExpr()->IgnoreParens();
  Compound = false;
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (!BO->isAssignmentOp())
      return false;
    Compound = BO->isCompoundAssignmentOp();
    LHS = BO->getLHS();
    RHS = BO->getRHS();
    return true;
  }
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (!OC->isAssignmentOp() || OC->getNumArgs() != 2)
      return false;
    Compound = OC->getOperator() != OO_Equal;
    LHS = OC->getArg(0);
    RHS = OC->getArg(1);
    return true;
  }
  return false;
}

Expected<TileTransposeMatch> matchTileTranspose(ASTContext &Ctx,
                                                const KernelInfo &K) {
  Expected<ThreadMapping> Mapping = analyzeThreadMapping(Ctx, K);
  if (!Mapping)
    return Mapping.takeError();
  TileTransposeMatch Match;
  Match.M = std::move(*Mapping);
  const ThreadMapping &M = Match.M;
  if (M.rank() != 2)
    return refuse("kernel '" + K.name() +
                  "' maps threads in 1-D only; tile-transpose needs a 2-D "
                  "mapping over x and y whose store and loads are contiguous "
                  "in different dimensions");

  // The per-element work: local declarations, then one store.
  SmallVector<const Stmt *, 8> Work;
  for (const Stmt *S : M.Body) {
    if (const auto *CS = dyn_cast<CompoundStmt>(S))
      Work.append(CS->body_begin(), CS->body_end());
    else
      Work.push_back(S);
  }
  while (!Work.empty() && isa<NullStmt>(Work.back()))
    Work.pop_back();
  const std::string Shape = "tile-transpose stages per-element work made of "
                            "local declarations followed by one store "
                            "'p[index] = value;'";
  if (Work.empty())
    return refuse("kernel '" + K.name() + "' stores nothing; " + Shape);
  SmallPtrSet<const VarDecl *, 8> WorkLocals;
  for (const Stmt *S : ArrayRef(Work).drop_back()) {
    if (isa<NullStmt>(S))
      continue;
    const auto *DS = dyn_cast<DeclStmt>(S);
    if (!DS)
      return refuse("the statement at " + where(Ctx, S->getBeginLoc()) +
                    " is not a declaration; " + Shape);
    for (const Decl *D : DS->decls()) {
      const auto *VD = dyn_cast<VarDecl>(D);
      if (!VD || !VD->hasLocalStorage())
        return refuse("the declaration at " + where(Ctx, D->getLocation()) +
                      " is not a local variable; " + Shape);
      WorkLocals.insert(VD);
    }
  }

  const auto *StoreExpr = dyn_cast<Expr>(Work.back());
  const Expr *LHS = nullptr, *RHS = nullptr;
  bool Compound = false;
  if (!StoreExpr || !matchAssign(StoreExpr, LHS, RHS, Compound))
    return refuse("the last statement of the per-element work, at " +
                  where(Ctx, Work.back()->getBeginLoc()) +
                  ", is not a store; " + Shape);
  if (Compound)
    return refuse("the store '" + text(Ctx, StoreExpr) + "' at " +
                  where(Ctx, StoreExpr->getBeginLoc()) +
                  " reads the element it updates; tile-transpose stages only "
                  "plain stores 'p[index] = value;'");
  const auto *Subscript = dyn_cast<ArraySubscriptExpr>(LHS->IgnoreParens());
  const ParmVarDecl *Base = nullptr;
  if (Subscript)
    if (const auto *DRE = dyn_cast<DeclRefExpr>(
            Subscript->getBase()->IgnoreParenImpCasts()))
      Base = dyn_cast<ParmVarDecl>(DRE->getDecl());
  if (!Base || !Base->getType()->isPointerType())
    return refuse("the store '" + text(Ctx, StoreExpr) + "' at " +
                  where(Ctx, StoreExpr->getBeginLoc()) +
                  " does not write 'p[index]' through a pointer parameter "
                  "'p' of the kernel");
  QualType Element = LHS->getType();
  if (Element.isVolatileQualified())
    return refuse("the store '" + text(Ctx, StoreExpr) +
                  "' writes volatile memory, whose order tile-transpose "
                  "would change");
  Element = Element.getUnqualifiedType();
  if (const auto *RD = Element->getAsCXXRecordDecl())
    if (RD->hasDefinition() && (!RD->hasTrivialDefaultConstructor() ||
                                !RD->isTriviallyCopyable()))
      return refuse("the stored type '" + Element.getAsString() +
                    "' has a non-trivial constructor or copy, so it cannot "
                    "live in a __shared__ tile");
  Match.StoreStmt = Work.back();
  Match.StoreLHS = LHS;
  Match.StoreValue = RHS;
  Match.StoreBase = Base;
  Match.Element = Element;

  // The store's index is rewritten with new x and y: it may name only them,
  // the kernel's parameters, globals and variables declared before the index.
  const Expr *StoreIndex = Subscript->getIdx();
  if (StoreIndex->HasSideEffects(Ctx))
    return refuse("the index of the store '" + text(Ctx, LHS) +
                  "' has side effects");
  DeclRefCollector IndexRefs;
  IndexRefs.TraverseStmt(const_cast<Expr *>(StoreIndex));
  for (const DeclRefExpr *DRE : IndexRefs.Refs)
    if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      if (WorkLocals.contains(VD))
        return refuse("the index of the store '" + text(Ctx, LHS) +
                      "' uses '" + VD->getNameAsString() +
                      "', a local of the per-element work; write the index "
                      "in terms of the thread indices and the parameters");

  // Calls in the work run once per element either way, but on another
  // thread: they may not look at which thread they run on.
  for (const Stmt *S : Work) {
    std::string What = threadBoundUse(S);
    if (!What.empty())
      return refuse("the per-element work at " + where(Ctx, S->getBeginLoc()) +
                    " " + What +
                    "; tile-transpose moves the work to another thread");
  }

  // The accesses, with x and y as symbols of their own.
  SymbolTable Symbols;
  IndexExprBuilder B(Ctx, K.Decl, Symbols);
  unsigned Sym[2];
  for (unsigned A = 0; A < 2; ++A) {
    const VarDecl *V = M.Dims[A].Var;
    Sym[A] = Symbols.decl(SymbolKind::Opaque, V, V->getName(),
                          (A == 0 ? DepThreadX : DepThreadY) | DepBlock);
    B.bind(V, IndexExpr::symbol(Sym[A]));
  }
  std::vector<LoopInfo> Loops = analyzeLoops(K.Decl, B);
  BodySummary Summary = analyzeBody(K.Decl, B, Loops);
  auto InWork = [&](const Expr *E) {
    return any_of(Work, [&](const Stmt *S) { return containsStmt(S, E); });
  };

  const MemoryAccess *Store = nullptr;
  SmallVector<const MemoryAccess *, 4> Loads;
  for (const MemoryAccess &A : Summary.Accesses) {
    if (!InWork(A.E))
      continue;
    if (A.E->IgnoreParens() == LHS->IgnoreParens()) {
      Store = &A;
      continue;
    }
    if (A.Kind != AccessKind::Read)
      return refuse("the per-element work also writes memory ('" + A.Text +
                    "' at " + A.Location +
                    "); tile-transpose stages a single store");
    if (A.BaseDecl == Base)
      return refuse("the per-element work reads '" + A.Text + "' at " +
                    A.Location + ", from the array '" + Base->getName() +
                    "' it stores to; staging would reorder those reads and "
                    "writes");
    Loads.push_back(&A);
  }
  if (!Store)
    return refuse("cuda-opt could not model the store '" + text(Ctx, LHS) +
                  "' as a memory access");

  std::string StoreText = "'" + text(Ctx, LHS) + "'";
  std::optional<AxisForm> S = splitAxes(Store->Index, Sym, Symbols);
  if (!S) {
    if (Store->Index.dependence(Symbols) & DepData)
      return refuse("the index of the store " + StoreText +
                    " depends on a loaded value, so cuda-opt cannot prove "
                    "which element each thread writes");
    return refuse("the index of the store " + StoreText + " is not of the "
                  "form a*" + M.Dims[0].Var->getName() + " + b*" +
                  M.Dims[1].Var->getName() +
                  " + c with a, b, c the same for every thread");
  }
  if (!isOne(S->Stride[0]) && !isOne(S->Stride[1]))
    return refuse("the store " + StoreText +
                  " is contiguous in neither x nor y (its index steps by '" +
                  S->Stride[0].str(Symbols) + "' along " +
                  M.Dims[0].Var->getName() + " and by '" +
                  S->Stride[1].str(Symbols) + "' along " +
                  M.Dims[1].Var->getName() + ")");
  unsigned SA = isOne(S->Stride[0]) ? 0 : 1, Other = 1 - SA;
  Match.StoreAxis = SA;

  // Distinct (x, y) store to distinct elements: with the index
  // a * other + contiguous and 0 <= contiguous < bound, that holds when
  // a >= bound; cuda-opt proves a - bound to be a constant >= 0.
  const VarDecl *SV = M.Dims[SA].Var, *OV = M.Dims[Other].Var;
  IndexExpr Bound = B.build(M.Dims[SA].Bound);
  std::optional<int64_t> Gap = (S->Stride[Other] - Bound).getConstant();
  if (!Gap || *Gap < 0)
    return refuse(
        "cannot prove that different (" + M.Dims[0].Var->getName() + ", " +
        M.Dims[1].Var->getName() + ") store to different elements: "
        "the store " + StoreText + " steps by '" +
        S->Stride[Other].str(Symbols) + "' along " + OV->getName() +
        ", but " + SV->getName() + " goes up to '" +
        text(Ctx, M.Dims[SA].Bound) + "'" +
        (Gap ? "" : ", and cuda-opt cannot show the step is at least that"));
  Match.StoreFact =
      "the store " + StoreText + " is contiguous in " + SV->getName().str() +
      " and steps by '" + S->Stride[Other].str(Symbols) + "' along " +
      OV->getName().str() + ", at least the bound '" +
      text(Ctx, M.Dims[SA].Bound) + "' of " + SV->getName().str() +
      ", so each (" + M.Dims[0].Var->getName().str() + ", " +
      M.Dims[1].Var->getName().str() + ") stores its own element";

  // The loads run with threadIdx.x along the other dimension.
  bool Gains = SA == 1;
  const MemoryAccess *AlongStore = nullptr;
  for (const MemoryAccess *L : Loads) {
    std::string LoadText = "'" + L->Text + "'";
    std::optional<AxisForm> F = splitAxes(L->Index, Sym, Symbols);
    if (!F) {
      Match.LoadFacts.push_back("the load " + LoadText +
                                " is not affine in x and y; it is staged "
                                "unchanged");
      continue;
    }
    bool AlongLoad = isOne(F->Stride[Other]) || isZero(F->Stride[Other]);
    if (!AlongLoad && isOne(F->Stride[SA]) && !AlongStore)
      AlongStore = L;
    if (isOne(F->Stride[Other]) && !isOne(F->Stride[SA]))
      Gains = true;
    Match.LoadFacts.push_back(
        "the load " + LoadText +
        (isOne(F->Stride[Other])
             ? " is contiguous in " + OV->getName().str()
             : isZero(F->Stride[Other])
                   ? " does not depend on " + OV->getName().str()
                   : " steps by '" + F->Stride[Other].str(Symbols) +
                         "' along " + OV->getName().str()));
  }
  if (!Gains)
    return refuse("the store " + StoreText + " is already contiguous in " +
                  SV->getName() + " (coalesced) and no load is contiguous in " +
                  OV->getName() + " instead; there is nothing to stage");
  if (AlongStore)
    return refuse("the load '" + AlongStore->Text + "' at " +
                  AlongStore->Location + " is contiguous in " +
                  SV->getName() +
                  " like the store, so staging would make it strided");
  return Match;
}

} // namespace cuda_opt
