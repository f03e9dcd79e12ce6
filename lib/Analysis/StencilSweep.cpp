//===- StencilSweep.cpp - Prove a 2-D kernel is one stencil sweep ---------===//
//
// Part of cuda-opt.
//
// Indices are polynomials in which the mapped indices x and y are symbols
// of their own (IndexExprBuilder::bind): a read `cur[i - nx]` with
// `i = y * nx + x` reads as nx*y + x - nx, so its offset from the own cell
// nx*y + x is dy = -1 (the coefficient of nx) and dx = 0 (the constant).
//
// That a read stays inside the grid is proven from the conditions on the
// path to it. Each comparison of x (or y) with a constant or with the bound
// plus a constant is a fact; the facts give the smallest x the path allows
// (Lo: x >= Lo) and how far below the bound the largest one is (Hi:
// x <= nx - 1 - Hi). `x != 0` raises Lo from 0 to 1, `x != nx - 1` raises
// Hi from 0 to 1, `x > 1` sets Lo to 2, and so on. A read at dx < 0 needs
// Lo >= -dx, one at dx > 0 needs Hi >= dx.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/StencilSweep.h"
#include "cuda-opt/Analysis/AccessAnalysis.h"
#include "cuda-opt/Analysis/IndexExprBuilder.h"
#include "cuda-opt/Analysis/LoopAnalysis.h"
#include "cuda-opt/Analysis/PointerUses.h"
#include "cuda-opt/Analysis/ThreadBound.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseMap.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

namespace {

std::string where(const ASTContext &Ctx, SourceLocation Loc) {
  return describeLocation(Ctx.getSourceManager(), Loc);
}

std::string text(const ASTContext &Ctx, const Stmt *S) {
  return sourceText(Ctx, S->getSourceRange());
}

const ParmVarDecl *paramOf(const Expr *E) {
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<ParmVarDecl>(DRE->getDecl());
  return nullptr;
}

/// One fact about a mapped index on a path: `v >= C` (Lower), `v <= B - 1 -
/// C` (Upper, B its bound), `v != C` (NotLow) or `v != B - 1 - C`
/// (NotHigh).
struct Fact {
  enum KindT { Lower, Upper, NotLow, NotHigh } Kind;
  unsigned Axis;
  int64_t C;
};

/// The comparisons of x and y on the path to an expression.
class FactScanner {
public:
  FactScanner(IndexExprBuilder &B, const unsigned Sym[2],
              const IndexExpr Bound[2])
      : B(B), Sym{Sym[0], Sym[1]}, Bound{Bound[0], Bound[1]} {}

  /// The facts that hold when \p Cond is \p Truth.
  void facts(const Expr *Cond, bool Truth, std::vector<Fact> &Out) {
    Cond = Cond->IgnoreParenImpCasts();
    if (const auto *U = dyn_cast<UnaryOperator>(Cond))
      if (U->getOpcode() == UO_LNot)
        return facts(U->getSubExpr(), !Truth, Out);
    if (const auto *BO = dyn_cast<BinaryOperator>(Cond)) {
      // a && b true: both; a || b false: neither.
      if ((BO->getOpcode() == BO_LAnd && Truth) ||
          (BO->getOpcode() == BO_LOr && !Truth)) {
        facts(BO->getLHS(), Truth, Out);
        facts(BO->getRHS(), Truth, Out);
        return;
      }
      if (BO->isComparisonOp())
        comparison(BO, Truth, Out);
    }
  }

private:
  void comparison(const BinaryOperator *BO, bool Truth,
                  std::vector<Fact> &Out) {
    BinaryOperatorKind Op = BO->getOpcode();
    if (!Truth)
      Op = BinaryOperator::negateComparisonOp(Op);
    IndexExpr D = B.build(BO->getLHS()) - B.build(BO->getRHS());
    for (unsigned A = 0; A < 2; ++A) {
      std::optional<IndexExpr> Coef = D.coefficientOf(Sym[A]);
      std::optional<int64_t> C = Coef ? Coef->getConstant() : std::nullopt;
      if (!C || (*C != 1 && *C != -1))
        continue;
      // D = C*v + Rest: v op -Rest (C = 1) or v op' Rest (C = -1).
      IndexExpr Rest = D - IndexExpr::symbol(Sym[A]).scaled(*C);
      if (Rest.mentions(Sym[0]) || Rest.mentions(Sym[1]))
        continue;
      IndexExpr K = *C == 1 ? Rest.scaled(-1) : Rest;
      if (*C == -1)
        Op = BinaryOperator::reverseComparisonOp(Op);
      add(A, Op, K, Out);
      return;
    }
  }

  /// v Op K.
  void add(unsigned A, BinaryOperatorKind Op, const IndexExpr &K,
           std::vector<Fact> &Out) {
    if (std::optional<int64_t> C = K.getConstant()) {
      if (Op == BO_GT)
        Out.push_back({Fact::Lower, A, *C + 1});
      else if (Op == BO_GE)
        Out.push_back({Fact::Lower, A, *C});
      else if (Op == BO_NE)
        Out.push_back({Fact::NotLow, A, *C});
      return;
    }
    std::optional<int64_t> C = (K - Bound[A]).getConstant();
    if (!C)
      return;
    // v < B + c is v <= B - 1 - (-c); v <= B + c is v <= B - 1 - (-c - 1).
    if (Op == BO_LT)
      Out.push_back({Fact::Upper, A, -*C});
    else if (Op == BO_LE)
      Out.push_back({Fact::Upper, A, -*C - 1});
    else if (Op == BO_NE)
      Out.push_back({Fact::NotHigh, A, -*C - 1});
  }

  IndexExprBuilder &B;
  unsigned Sym[2];
  IndexExpr Bound[2];
};

/// Lo and Hi of one axis from the facts (see the file comment).
std::pair<int64_t, int64_t> range(const std::vector<Fact> &Facts,
                                  unsigned Axis) {
  int64_t Lo = 0, Hi = 0;
  for (const Fact &F : Facts)
    if (F.Axis == Axis && F.Kind == Fact::Lower)
      Lo = std::max(Lo, F.C);
    else if (F.Axis == Axis && F.Kind == Fact::Upper)
      Hi = std::max(Hi, F.C);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const Fact &F : Facts)
      if (F.Axis == Axis && F.Kind == Fact::NotLow && F.C == Lo) {
        ++Lo;
        Changed = true;
      } else if (F.Axis == Axis && F.Kind == Fact::NotHigh && F.C == Hi) {
        ++Hi;
        Changed = true;
      }
  }
  return {Lo, Hi};
}

/// The reads of In and the facts on the path to each, walking the work.
class PathWalker {
public:
  PathWalker(FactScanner &S, const ParmVarDecl *In) : S(S), In(In) {}

  void walk(const Stmt *St, std::vector<Fact> Facts) {
    if (!St)
      return;
    if (const auto *If = dyn_cast<IfStmt>(St)) {
      walk(If->getCond(), Facts);
      std::vector<Fact> Then = Facts, Else = Facts;
      S.facts(If->getCond(), true, Then);
      S.facts(If->getCond(), false, Else);
      walk(If->getThen(), Then);
      walk(If->getElse(), Else);
      return;
    }
    if (const auto *CO = dyn_cast<ConditionalOperator>(St)) {
      walk(CO->getCond(), Facts);
      std::vector<Fact> Then = Facts, Else = Facts;
      S.facts(CO->getCond(), true, Then);
      S.facts(CO->getCond(), false, Else);
      walk(CO->getTrueExpr(), Then);
      walk(CO->getFalseExpr(), Else);
      return;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(St))
      if (BO->getOpcode() == BO_LAnd || BO->getOpcode() == BO_LOr) {
        walk(BO->getLHS(), Facts);
        S.facts(BO->getLHS(), BO->getOpcode() == BO_LAnd, Facts);
        walk(BO->getRHS(), Facts);
        return;
      }
    if (const auto *ASE = dyn_cast<ArraySubscriptExpr>(St))
      if (paramOf(ASE->getBase()) == In)
        Reads.push_back({ASE, Facts});
    for (const Stmt *C : St->children())
      walk(C, Facts);
  }

  std::vector<std::pair<const ArraySubscriptExpr *, std::vector<Fact>>> Reads;

private:
  FactScanner &S;
  const ParmVarDecl *In;
};

/// `lhs = rhs` (builtin, not compound): its left-hand side.
const Expr *assignedLHS(const Expr *E) {
  E = E->IgnoreParens();
  if (const auto *EWC = dyn_cast<ExprWithCleanups>(E))
    E = EWC->getSubExpr()->IgnoreParens();
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    if (BO->getOpcode() == BO_Assign)
      return BO->getLHS()->IgnoreParens();
  return nullptr;
}

unsigned countUses(const Stmt *S, const ParmVarDecl *P) {
  return referencesTo(P, S).size();
}

/// How many writes `Out[...] = v` every path through \p S makes, or
/// std::nullopt when paths differ or a write sits where it cannot be
/// counted (in a loop, a condition, a nested expression).
std::optional<unsigned> writesOnEveryPath(const Stmt *S, const ParmVarDecl *Out,
                                          std::string &Why,
                                          const ASTContext &Ctx) {
  if (!S)
    return 0u;
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    unsigned N = 0;
    for (const Stmt *C : CS->body()) {
      std::optional<unsigned> W = writesOnEveryPath(C, Out, Why, Ctx);
      if (!W)
        return std::nullopt;
      N += *W;
    }
    return N;
  }
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (countUses(If->getCond(), Out) || If->getInit() ||
        If->getConditionVariable()) {
      Why = "the condition at " + where(Ctx, If->getBeginLoc()) +
            " uses '" + Out->getNameAsString() + "' or declares a variable";
      return std::nullopt;
    }
    std::optional<unsigned> T = writesOnEveryPath(If->getThen(), Out, Why, Ctx);
    std::optional<unsigned> E = writesOnEveryPath(If->getElse(), Out, Why, Ctx);
    if (!T || !E)
      return std::nullopt;
    if (*T != *E) {
      Why = "the two branches of the 'if' at " +
            where(Ctx, If->getBeginLoc()) + " write '" +
            Out->getNameAsString() + "' a different number of times";
      return std::nullopt;
    }
    return *T;
  }
  if (const auto *E = dyn_cast<Expr>(S)) {
    unsigned Uses = countUses(E, Out);
    if (Uses == 0)
      return 0u;
    const Expr *LHS = assignedLHS(E);
    const auto *ASE = dyn_cast_or_null<ArraySubscriptExpr>(LHS);
    if (!ASE || paramOf(ASE->getBase()) != Out || Uses != 1) {
      Why = "'" + text(Ctx, E) + "' at " + where(Ctx, E->getBeginLoc()) +
            " uses '" + Out->getNameAsString() +
            "' other than as one plain store 'out[index] = value;'";
      return std::nullopt;
    }
    return 1u;
  }
  if (countUses(S, Out)) {
    Why = "the statement at " + where(Ctx, S->getBeginLoc()) + " uses '" +
          Out->getNameAsString() +
          "' inside a loop, a declaration or another construct whose writes "
          "cannot be counted";
    return std::nullopt;
  }
  return 0u;
}

/// The work's top-level statements: the guard's then-branch (or the
/// statements after an early-return guard).
SmallVector<const Stmt *, 8> workOf(const ThreadMapping &M) {
  SmallVector<const Stmt *, 8> Work;
  for (const Stmt *S : M.Body)
    Work.push_back(S);
  return Work;
}

class ReturnFinder : public RecursiveASTVisitor<ReturnFinder> {
public:
  bool VisitReturnStmt(ReturnStmt *R) {
    Found = R;
    return false;
  }
  bool VisitGotoStmt(GotoStmt *G) {
    Found = G;
    return false;
  }
  const Stmt *Found = nullptr;
};

} // namespace

Expected<StencilSweep> matchStencilSweep(ASTContext &Ctx,
                                         const KernelInfo &K) {
  const std::string Name = "kernel '" + K.name() + "'";
  if (K.Template)
    return refuse(Name + " is a template; temporal-block rewrites "
                         "non-template stencil kernels");
  Expected<ThreadMapping> Mapping = analyzeThreadMapping(Ctx, K);
  if (!Mapping)
    return Mapping.takeError();
  StencilSweep Sw;
  Sw.M = std::move(*Mapping);
  const ThreadMapping &M = Sw.M;
  if (M.rank() != 2)
    return refuse(Name + " maps threads in 1-D; temporal-block needs one "
                         "thread per cell of a 2-D grid (x and y)");
  for (const MappedIndex &D : M.Dims)
    if (D.Inclusive)
      return refuse(Name + "'s guard bounds '" +
                    D.Var->getNameAsString() +
                    "' with '<='; temporal-block needs 'x < nx' and "
                    "'y < ny'");
  Sw.Pitch = paramOf(M.x().Bound);
  if (!Sw.Pitch)
    return refuse(Name + "'s x bound '" + text(Ctx, M.x().Bound) +
                  "' is not a parameter; temporal-block needs the grid's "
                  "row length as a parameter (the row pitch)");

  // The kernel body: the two index declarations, the guard and its work.
  const auto *Body = cast<CompoundStmt>(K.Decl->getBody());
  for (const Stmt *S : Body->body()) {
    if (S == M.Dims[0].Decl || S == M.Dims[1].Decl || S == M.Guard ||
        isa<NullStmt>(S) ||
        any_of(M.Body, [&](const Stmt *W) { return W == S; }))
      continue;
    return refuse("the statement at " + where(Ctx, S->getBeginLoc()) + " of " +
                  Name +
                  " is outside the per-cell work; temporal-block needs a "
                  "body of index declarations and one guarded cell update");
  }
  SmallVector<const Stmt *, 8> Work = workOf(M);
  for (const Stmt *S : Work) {
    ReturnFinder RF;
    RF.TraverseStmt(const_cast<Stmt *>(S));
    if (RF.Found)
      return refuse("the " + std::string(isa<ReturnStmt>(RF.Found)
                                             ? "'return'"
                                             : "'goto'") +
                    " at " + where(Ctx, RF.Found->getBeginLoc()) +
                    " leaves the cell update early; temporal-block needs "
                    "every cell to run its update to the end");
    std::string What = threadBoundUse(S);
    if (!What.empty())
      return refuse("the per-cell work at " + where(Ctx, S->getBeginLoc()) +
                    " " + What +
                    "; temporal-block runs each cell's update on another "
                    "thread");
  }

  // The output: the one pointer parameter written.
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
  if (!Summary.Atomics.empty() || !Summary.Barriers.empty() ||
      !Summary.Shuffles.empty())
    return refuse(Name + " uses atomics, barriers or warp shuffles; "
                         "temporal-block rewrites plain stencil sweeps");
  DenseMap<const Expr *, const MemoryAccess *> AccessOf;
  for (const MemoryAccess &A : Summary.Accesses) {
    if (A.Space == MemorySpace::Shared)
      return refuse(Name + " uses __shared__ memory ('" + A.Text +
                    "'); temporal-block brings its own tile");
    if (A.Kind != AccessKind::Read) {
      const auto *ASE = dyn_cast<ArraySubscriptExpr>(A.E->IgnoreParens());
      const ParmVarDecl *P = ASE ? paramOf(ASE->getBase()) : nullptr;
      if (!P || A.Kind != AccessKind::Write)
        return refuse("the access '" + A.Text + "' at " + A.Location +
                      " is not a plain store through a pointer parameter");
      if (Sw.Out && Sw.Out != P)
        return refuse(Name + " writes two arrays, '" +
                      Sw.Out->getNameAsString() + "' and '" +
                      P->getNameAsString() +
                      "'; temporal-block needs one output grid");
      Sw.Out = P;
    }
    AccessOf[A.E->IgnoreParens()] = &A;
  }
  if (!Sw.Out)
    return refuse(Name + " writes no array");
  Sw.Element = Sw.Out->getType()->getPointeeType();
  if (Sw.Element.isVolatileQualified() || !Sw.Element->isArithmeticType())
    return refuse("'" + Sw.Out->getNameAsString() +
                  "' does not point to an arithmetic type; temporal-block "
                  "keeps grid cells in a __shared__ tile");
  Sw.Element = Sw.Element.getUnqualifiedType();

  // The input: the one pointer parameter read at constant offsets, of the
  // output's element type.
  for (const MemoryAccess &A : Summary.Accesses) {
    const auto *ASE = dyn_cast<ArraySubscriptExpr>(A.E->IgnoreParens());
    const ParmVarDecl *P = ASE ? paramOf(ASE->getBase()) : nullptr;
    if (!P || P == Sw.Out)
      continue;
    QualType T = P->getType()->getPointeeType().getUnqualifiedType();
    if (!Ctx.hasSameType(T, Sw.Element))
      continue;
    if (Sw.In && Sw.In != P)
      return refuse(Name + " reads two arrays of the grid's type, '" +
                    Sw.In->getNameAsString() + "' and '" +
                    P->getNameAsString() +
                    "'; temporal-block needs the sweep to read one grid");
    Sw.In = P;
  }
  if (!Sw.In)
    return refuse(Name + " reads no array of '" + Sw.Out->getNameAsString() +
                  "''s element type at offsets of its own cell; it is not "
                  "a stencil sweep");

  // Every use of In and Out is a subscript: a read of In, a store to Out.
  for (const ParmVarDecl *P : {Sw.In, Sw.Out}) {
    for (const DeclRefExpr *DRE : referencesTo(P, K.Decl->getBody())) {
      const Stmt *Child = DRE;
      const Stmt *Parent = nullptr;
      for (;;) {
        auto Ps = Ctx.getParents(*Child);
        Parent = Ps.empty() ? nullptr : Ps[0].get<Stmt>();
        if (Parent && (isa<ImplicitCastExpr>(Parent) || isa<ParenExpr>(Parent)))
          Child = Parent;
        else
          break;
      }
      const auto *ASE = dyn_cast_or_null<ArraySubscriptExpr>(Parent);
      if (!ASE || ASE->getBase()->IgnoreParenImpCasts() != DRE ||
          !AccessOf.count(ASE))
        return refuse("'" + P->getNameAsString() + "' is used at " +
                      where(Ctx, DRE->getBeginLoc()) +
                      " other than as 'p[index]'; temporal-block needs the "
                      "grids used only through subscripts");
      if (P == Sw.In) {
        auto Ps = Ctx.getParents(*ASE);
        const auto *Cast =
            Ps.empty() ? nullptr : Ps[0].get<ImplicitCastExpr>();
        if (!Cast || Cast->getCastKind() != CK_LValueToRValue)
          return refuse("'" + text(Ctx, ASE) + "' at " +
                        where(Ctx, ASE->getBeginLoc()) +
                        " is not a plain read of the input grid");
      }
    }
  }

  // Exactly one store to the own cell on every path.
  std::string Why;
  unsigned Stores = 0;
  for (const Stmt *S : Work) {
    std::optional<unsigned> W = writesOnEveryPath(S, Sw.Out, Why, Ctx);
    if (!W)
      return refuse(Why + "; temporal-block needs every cell stored exactly "
                          "once on every path");
    Stores += *W;
  }
  if (Stores != 1)
    return refuse("the cell update of " + Name + " stores '" +
                  Sw.Out->getNameAsString() + "' " + std::to_string(Stores) +
                  " times on a path; temporal-block needs every cell stored "
                  "exactly once (a cell a sweep does not store would keep "
                  "the value of two sweeps before)");

  // Offsets: index = (y + dy) * pitch + x + dx.
  unsigned PitchSym =
      Symbols.decl(SymbolKind::Param, Sw.Pitch, Sw.Pitch->getName());
  IndexExpr Own = IndexExpr::symbol(Sym[1]) * IndexExpr::symbol(PitchSym) +
                  IndexExpr::symbol(Sym[0]);
  auto OffsetOf = [&](const ArraySubscriptExpr *ASE, int64_t &DX,
                      int64_t &DY) {
    const MemoryAccess *A = AccessOf.lookup(ASE);
    if (!A)
      return false;
    IndexExpr D = A->Index - Own;
    std::optional<IndexExpr> C = D.coefficientOf(PitchSym);
    std::optional<int64_t> CY = C ? C->getConstant() : std::nullopt;
    if (C && C->isZero())
      CY = 0;
    if (!CY)
      return false;
    std::optional<int64_t> CX =
        (D - IndexExpr::symbol(PitchSym).scaled(*CY)).getConstant();
    if (!CX && (D - IndexExpr::symbol(PitchSym).scaled(*CY)).isZero())
      CX = 0;
    if (!CX)
      return false;
    DX = *CX;
    DY = *CY;
    return true;
  };
  const std::string Form = "'(y + dy) * " + Sw.Pitch->getNameAsString() +
                           " + x + dx' with constant dx and dy";
  for (const MemoryAccess &A : Summary.Accesses) {
    const auto *ASE = dyn_cast<ArraySubscriptExpr>(A.E->IgnoreParens());
    if (!ASE || paramOf(ASE->getBase()) != Sw.Out)
      continue;
    int64_t DX = 0, DY = 0;
    if (!OffsetOf(ASE, DX, DY) || DX || DY)
      return refuse("the store '" + A.Text + "' at " + A.Location +
                    " is not to the thread's own cell '" +
                    M.Dims[1].Var->getNameAsString() + " * " +
                    Sw.Pitch->getNameAsString() + " + " +
                    M.Dims[0].Var->getNameAsString() + "'");
    Sw.Writes.push_back(ASE);
  }

  IndexExpr Bounds[2] = {IndexExpr::symbol(PitchSym), B.build(M.Dims[1].Bound)};
  FactScanner Scanner(B, Sym, Bounds);
  PathWalker Walker(Scanner, Sw.In);
  for (const Stmt *S : Work)
    Walker.walk(S, {});
  for (const auto &[ASE, Facts] : Walker.Reads) {
    StencilRead R;
    R.E = ASE;
    if (!OffsetOf(ASE, R.DX, R.DY))
      return refuse("the read '" + text(Ctx, ASE) + "' at " +
                    where(Ctx, ASE->getBeginLoc()) + " is not at " + Form);
    auto [LoX, HiX] = range(Facts, 0);
    auto [LoY, HiY] = range(Facts, 1);
    auto Outside = [&](int64_t D, int64_t Lo, int64_t Hi) {
      return (D < 0 && Lo < -D) || (D > 0 && Hi < D);
    };
    if (Outside(R.DX, LoX, HiX) || Outside(R.DY, LoY, HiY))
      return refuse("the read '" + text(Ctx, ASE) + "' at " +
                    where(Ctx, ASE->getBeginLoc()) + " (offset " +
                    std::to_string(R.DX) + ", " + std::to_string(R.DY) +
                    ") is not guarded to stay inside the grid: cuda-opt "
                    "cannot prove from the conditions on its path that " +
                    M.Dims[0].Var->getNameAsString() + " + dx and " +
                    M.Dims[1].Var->getNameAsString() +
                    " + dy are cells of the grid");
    Sw.Radius = std::max({Sw.Radius, std::abs(R.DX), std::abs(R.DY)});
    Sw.Reads.push_back(R);
  }
  for (const MemoryAccess &A : Summary.Accesses) {
    const auto *ASE = dyn_cast<ArraySubscriptExpr>(A.E->IgnoreParens());
    if (ASE && paramOf(ASE->getBase()) == Sw.In &&
        none_of(Sw.Reads, [&](const StencilRead &R) { return R.E == ASE; }))
      return refuse("'" + A.Text + "' at " + A.Location +
                    " reads the input grid outside the guarded cell update");
  }
  Sw.Summary = std::to_string(Sw.Reads.size()) + " reads of '" +
               Sw.In->getNameAsString() + "' within radius " +
               std::to_string(Sw.Radius) + " of the own cell, each proven " +
               "inside the grid; every cell of '" + Sw.Out->getNameAsString() +
               "' stored once";
  return Sw;
}

} // namespace cuda_opt
