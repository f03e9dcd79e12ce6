//===- LoopAnalysis.cpp - Loop nests of a kernel -------------------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/LoopAnalysis.h"
#include "cuda-opt/Analysis/KernelFinder.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

bool containsStmt(const Stmt *Outer, const Stmt *Inner) {
  if (!Outer || !Inner)
    return false;
  if (Outer == Inner)
    return true;
  for (const Stmt *Child : Outer->children())
    if (containsStmt(Child, Inner))
      return true;
  return false;
}

namespace {

const VarDecl *referencedVar(const Expr *E) {
  if (!E)
    return nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(IndexExprBuilder::stripCasts(E)))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

/// The comparison operator seen from the variable's side.
StringRef flipCompare(BinaryOperatorKind Op) {
  switch (Op) {
  case BO_LT:
    return ">";
  case BO_LE:
    return ">=";
  case BO_GT:
    return "<";
  case BO_GE:
    return "<=";
  default:
    return "!=";
  }
}

/// What a single write does to the induction variable.
struct StepShape {
  StepKind Kind = StepKind::Unknown;
  const Expr *Amount = nullptr; ///< additive increment (null: +-1)
  int64_t Sign = 1;
  int64_t Factor = 0;
  bool Growing = false;
};

class LoopFinder {
public:
  LoopFinder(IndexExprBuilder &B) : B(B) {}

  void walk(const Stmt *S, int Parent) {
    if (!S || isa<LambdaExpr>(S))
      return;
    int Self = Parent;
    if (isa<ForStmt, WhileStmt, DoStmt>(S)) {
      LoopInfo L;
      L.S = S;
      L.Parent = Parent;
      L.Depth = Parent < 0 ? 1 : Loops[Parent].Depth + 1;
      Loops.push_back(std::move(L));
      Self = Loops.size() - 1;
      recognise(Self);
      LoopInfo &Found = Loops[Self];
      if (Found.Weight.isZero() && !Found.TripCount) {
        std::string Name = Found.VarName.empty() ? "loop" + std::to_string(Self)
                                                 : Found.VarName;
        Found.Weight = IndexExpr::symbol(B.symbols().loop(
            SymbolKind::TripCount, Self, "trips(" + Name + ")", DepNone));
      }
    }
    for (const Stmt *Child : S->children())
      walk(Child, Self);
  }

  std::vector<LoopInfo> Loops;

private:
  std::optional<int64_t> constantOf(const Expr *E) {
    if (!E)
      return std::nullopt;
    return B.build(E).getConstant();
  }

  StepShape shapeOf(const VariableWrite &W, const VarDecl *V) {
    StepShape Sh;
    auto Geometric = [&](std::optional<int64_t> F, bool Grow, bool IsShift) {
      if (!F || *F <= 0 || (IsShift && *F >= 32))
        return;
      Sh.Kind = StepKind::Geometric;
      Sh.Factor = IsShift ? int64_t(1) << *F : *F;
      Sh.Growing = Grow;
      if (Sh.Factor < 2)
        Sh.Kind = StepKind::Unknown;
    };
    switch (W.Op) {
    case BO_Comma:
      if (W.Step != 0) {
        Sh.Kind = StepKind::Additive;
        Sh.Sign = W.Step;
      }
      return Sh;
    case BO_AddAssign:
    case BO_SubAssign:
      Sh.Kind = StepKind::Additive;
      Sh.Amount = W.Value;
      Sh.Sign = W.Op == BO_AddAssign ? 1 : -1;
      return Sh;
    case BO_MulAssign:
      Geometric(constantOf(W.Value), true, false);
      return Sh;
    case BO_ShlAssign:
      Geometric(constantOf(W.Value), true, true);
      return Sh;
    case BO_DivAssign:
      Geometric(constantOf(W.Value), false, false);
      return Sh;
    case BO_ShrAssign:
      Geometric(constantOf(W.Value), false, true);
      return Sh;
    case BO_Assign:
      break;
    default:
      return Sh;
    }
    // i = i + s, i = s + i, i = i - s, s = s * 2, s = s >> 1, ...
    const auto *BO =
        dyn_cast<BinaryOperator>(IndexExprBuilder::stripCasts(W.Value));
    if (!BO)
      return Sh;
    bool LHSIsV = referencedVar(BO->getLHS()) == V;
    bool RHSIsV = referencedVar(BO->getRHS()) == V;
    const Expr *Other = LHSIsV ? BO->getRHS() : BO->getLHS();
    switch (BO->getOpcode()) {
    case BO_Add:
      if (LHSIsV || RHSIsV) {
        Sh.Kind = StepKind::Additive;
        Sh.Amount = Other;
      }
      break;
    case BO_Sub:
      if (LHSIsV) {
        Sh.Kind = StepKind::Additive;
        Sh.Amount = Other;
        Sh.Sign = -1;
      }
      break;
    case BO_Mul:
      if (LHSIsV || RHSIsV)
        Geometric(constantOf(Other), true, false);
      break;
    case BO_Shl:
      if (LHSIsV)
        Geometric(constantOf(Other), true, true);
      break;
    case BO_Div:
      if (LHSIsV)
        Geometric(constantOf(Other), false, false);
      break;
    case BO_Shr:
      if (LHSIsV)
        Geometric(constantOf(Other), false, true);
      break;
    default:
      break;
    }
    return Sh;
  }

  void recognise(int Index) {
    LoopInfo &L = Loops[Index];
    const SourceManager &SM = B.context().getSourceManager();
    L.Location = describeLocation(SM, L.S->getBeginLoc());
    const Expr *Cond = nullptr;
    const Stmt *Body = nullptr;
    const Stmt *InitStmt = nullptr;
    const Expr *Inc = nullptr;
    if (const auto *F = dyn_cast<ForStmt>(L.S)) {
      L.Kind = "for";
      Cond = F->getCond();
      Body = F->getBody();
      InitStmt = F->getInit();
      Inc = F->getInc();
    } else if (const auto *W = dyn_cast<WhileStmt>(L.S)) {
      L.Kind = "while";
      Cond = W->getCond();
      Body = W->getBody();
    } else {
      const auto *D = cast<DoStmt>(L.S);
      L.Kind = "do";
      Cond = D->getCond();
      Body = D->getBody();
    }

    // The variable compared in the condition, and the bound.
    const VarDecl *V = nullptr;
    const Expr *BoundE = nullptr;
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(
            Cond ? IndexExprBuilder::stripCasts(Cond) : nullptr)) {
      if (BO->getOpcode() == BO_LAnd)
        BO = dyn_cast<BinaryOperator>(
            IndexExprBuilder::stripCasts(BO->getLHS()));
      if (BO && BO->isComparisonOp()) {
        if ((V = referencedVar(BO->getLHS()))) {
          BoundE = BO->getRHS();
          L.Compare = BO->getOpcodeStr().str();
        } else if ((V = referencedVar(BO->getRHS()))) {
          BoundE = BO->getLHS();
          L.Compare = flipCompare(BO->getOpcode()).str();
        }
      }
    }
    if (!V && Inc)
      if (const auto *UO = dyn_cast<UnaryOperator>(Inc->IgnoreParens()))
        V = referencedVar(UO->getSubExpr());
    if (!V || !V->hasLocalStorage())
      return;

    // The single write that steps the variable, and its initial value.
    const VariableWrite *StepWrite = nullptr;
    const Expr *InitE = nullptr;
    const Stmt *InitSite = nullptr;
    if (const auto *DS = dyn_cast_or_null<DeclStmt>(InitStmt)) {
      if (DS->isSingleDecl() && DS->getSingleDecl() == V)
        InitE = V->getInit();
    } else if (const auto *IBO = dyn_cast_or_null<BinaryOperator>(InitStmt)) {
      if (IBO->getOpcode() == BO_Assign && referencedVar(IBO->getLHS()) == V) {
        InitE = IBO->getRHS();
        InitSite = IBO;
      }
    }
    for (const VariableWrite &W : B.writesOf(V)) {
      if (W.Site == InitSite)
        continue;
      bool InLoop = (Inc && containsStmt(Inc, W.Site)) ||
                    (!Inc && containsStmt(Body, W.Site));
      if (!InLoop || StepWrite)
        return; // Written elsewhere too: not a plain induction variable.
      StepWrite = &W;
    }
    if (!StepWrite)
      return;
    if (!InitE && !InitSite)
      InitE = V->getInit();
    if (!InitE)
      return;

    StepShape Sh = shapeOf(*StepWrite, V);
    if (Sh.Kind == StepKind::Unknown)
      return;
    L.Var = V;
    L.VarName = V->getNameAsString();
    L.InitText = B.text(InitE);
    L.StepText = B.text(StepWrite->Site);
    if (BoundE)
      L.BoundText = B.text(BoundE);
    L.Init = B.build(InitE);
    if (BoundE)
      L.Bound = B.build(BoundE);
    L.Step = Sh.Kind;

    if (Sh.Kind == StepKind::Geometric) {
      L.Factor = Sh.Factor;
      L.Growing = Sh.Growing;
      unsigned Deps = DepLoop | L.Init.dependence(B.symbols());
      B.bind(V, IndexExpr::symbol(B.symbols().loop(SymbolKind::LoopVar, Index,
                                                   L.VarName, Deps)));
      computeGeometricTrips(L);
      return;
    }

    L.Stride = Sh.Amount ? B.build(Sh.Amount).scaled(Sh.Sign)
                         : IndexExpr::constant(Sh.Sign);
    if (L.Stride.dependence(B.symbols()) & (DepData | DepLoop)) {
      L.Step = StepKind::Unknown;
      return;
    }
    bool Plain = L.Init.isZero() && L.Stride.getConstant() == 1;
    unsigned Iter =
        B.symbols().loop(SymbolKind::LoopIter, Index,
                         Plain ? L.VarName : "it(" + L.VarName + ")", DepLoop);
    B.bind(V, L.Init + L.Stride * IndexExpr::symbol(Iter));
    classifyStride(L);
    computeAdditiveTrips(L);
  }

  void classifyStride(LoopInfo &L) {
    unsigned Deps = L.Init.dependence(B.symbols());
    SymbolTable &Syms = B.symbols();
    for (unsigned D = 0; D < 3; ++D) {
      IndexExpr Dim = IndexExpr::symbol(Syms.builtin(SymbolKind::BlockDim, D));
      IndexExpr Grid = IndexExpr::symbol(Syms.builtin(SymbolKind::GridDim, D));
      // Threads of the grid, or whole blocks (`r = blockIdx.y; r +=
      // gridDim.y`), stepping over the data together.
      if ((Deps & DepThread) && L.Stride == Dim * Grid)
        L.GridStride = true;
      if ((Deps & DepBlock) && !(Deps & DepThread) && L.Stride == Grid)
        L.GridStride = true;
      if ((Deps & DepThread) && L.Stride == Dim)
        L.BlockStride = true;
    }
  }

  void computeAdditiveTrips(LoopInfo &L) {
    std::optional<int64_t> C = L.Stride.getConstant();
    bool Up = L.Compare == "<" || L.Compare == "<=";
    bool Down = L.Compare == ">" || L.Compare == ">=";
    bool Inclusive = L.Compare == "<=" || L.Compare == ">=";
    if (L.BoundText.empty() || (!Up && !Down) || L.Stride.isZero())
      return;
    std::optional<int64_t> A = L.Init.getConstant();
    std::optional<int64_t> E = L.Bound.getConstant();
    if (A && E && C && *C != 0 && ((Up && *C > 0) || (Down && *C < 0))) {
      int64_t Span = Up ? *E - *A : *A - *E;
      int64_t Step = Up ? *C : -*C;
      if (Inclusive)
        Span += 1;
      L.TripCount = Span > 0 ? (Span + Step - 1) / Step : 0;
      L.TripCountText = std::to_string(*L.TripCount);
      L.Weight = IndexExpr::constant(*L.TripCount);
      return;
    }
    IndexExpr Span = Up ? L.Bound - L.Init : L.Init - L.Bound;
    if (Inclusive)
      Span = Span + IndexExpr::constant(1);
    IndexExpr Step = Up ? L.Stride : L.Stride.scaled(-1);
    const SymbolTable &Syms = B.symbols();
    if (Step.getConstant() == 1) {
      L.TripCountText = Span.str(Syms);
      if (!(Span.dependence(Syms) & DepVarying))
        L.Weight = Span;
      return;
    }
    L.TripCountText =
        "ceil((" + Span.str(Syms) + ") / (" + Step.str(Syms) + "))";
  }

  void computeGeometricTrips(LoopInfo &L) {
    std::optional<int64_t> A = L.Init.getConstant();
    std::optional<int64_t> E = L.Bound.getConstant();
    const SymbolTable &Syms = B.symbols();
    if (A && E && !L.Compare.empty()) {
      int64_t Value = *A;
      int64_t N = 0;
      auto Holds = [&](int64_t X) {
        if (L.Compare == "<")
          return X < *E;
        if (L.Compare == "<=")
          return X <= *E;
        if (L.Compare == ">")
          return X > *E;
        if (L.Compare == ">=")
          return X >= *E;
        return X != *E;
      };
      while (Holds(Value) && N <= 64 && Value < (int64_t(1) << 40) &&
             Value > -(int64_t(1) << 40)) {
        ++N;
        Value = L.Growing ? Value * L.Factor : Value / L.Factor;
      }
      if (Holds(Value))
        N = 65; // Did not terminate within the simulated range.

      if (N <= 64) {
        L.TripCount = N;
        L.TripCountText = std::to_string(N);
        L.Weight = IndexExpr::constant(N);
        return;
      }
    }
    std::string Log = "log" + std::to_string(L.Factor);
    if (L.Growing && !L.BoundText.empty() && L.Init.getConstant() == 1)
      L.TripCountText = "~" + Log + "(" + L.Bound.str(Syms) + ")";
    else if (L.Growing && !L.BoundText.empty())
      L.TripCountText = "~" + Log + "((" + L.Bound.str(Syms) + ") / (" +
                        L.Init.str(Syms) + "))";
    else if (!L.Growing)
      L.TripCountText = "~" + Log + "(" + L.Init.str(Syms) + ")";
  }

  IndexExprBuilder &B;
};

} // namespace

std::vector<LoopInfo> analyzeLoops(const FunctionDecl *Kernel,
                                   IndexExprBuilder &Builder) {
  LoopFinder F(Builder);
  if (Kernel && Kernel->getBody())
    F.walk(Kernel->getBody(), -1);
  return std::move(F.Loops);
}

} // namespace cuda_opt
