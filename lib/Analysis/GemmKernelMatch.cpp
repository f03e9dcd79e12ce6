//===- GemmKernelMatch.cpp - Prove a kernel is a plain row-major GEMM ----===//
//
// Part of cuda-opt.
//
// The shape recognised is the one-thread-per-output GEMM:
//
//   int row = blockIdx.y * blockDim.y + threadIdx.y;
//   int col = blockIdx.x * blockDim.x + threadIdx.x;
//   if (row < M && col < N) {
//     float acc = 0.0f;
//     for (int k = 0; k < K; ++k)
//       acc += A[row * K + k] * B[k * N + col];   // or B[col * K + k]
//     C[row * N + col] = __float2half(acc);       // or alpha * acc
//   }
//
// Every fact is checked on the kernel model: the index polynomials give the
// layouts, the loop gives K, the guard gives M and N, and the body may hold
// nothing else that touches memory.
//
// Batched: with `int b = blockIdx.z;` (any block dimension that indexes
// neither rows nor columns) guarded by `b < batch`, the indexes may add
// b * M * K, b * K * N and b * M * N (packed batches).
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/GemmKernelMatch.h"
#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Analysis/ProductAccumulation.h"
#include "cuda-opt/Support/Refusal.h"
#include "clang/Basic/SourceManager.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// The 16-bit floating-point type of a pointee, by its declared name.
enum class Elem { F16, BF16, F32, F64, Other };

Elem elementOf(QualType T) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (T->isSpecificBuiltinType(BuiltinType::Float))
    return Elem::F32;
  if (T->isSpecificBuiltinType(BuiltinType::Double))
    return Elem::F64;
  if (const auto *RD = T->getAsRecordDecl()) {
    if (RD->getName() == "__half")
      return Elem::F16;
    if (RD->getName() == "__nv_bfloat16")
      return Elem::BF16;
  }
  return Elem::Other;
}

/// Looks through the conversions a 16-bit store is written with:
/// `__float2half(x)`, `__float2bfloat16_rn(x)`, `__half(x)`, implicit
/// constructor calls and temporaries.
const Expr *stripStoreConversions(const Expr *E) {
  while (true) {
    E = E->IgnoreParenImpCasts();
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = MT->getSubExpr();
      continue;
    }
    if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = BT->getSubExpr();
      continue;
    }
    if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = FC->getSubExpr();
      continue;
    }
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      if (CE->getNumArgs() != 1)
        return E;
      E = CE->getArg(0);
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      if (!FD || Call->getNumArgs() != 1 ||
          !FD->getName().starts_with("__float2"))
        return E;
      E = Call->getArg(0);
      continue;
    }
    return E;
  }
}

class Matcher {
public:
  Matcher(ASTContext &Ctx, const KernelInfo &K)
      : Ctx(Ctx), K(K), Model(buildKernelModel(Ctx, K)), Syms(Model.Symbols) {}

  Expected<GemmKernelMatch> run();

private:
  std::string kernel() const { return "kernel '" + K.name() + "'"; }
  Error checkBodyIsOnlyTheProduct();
  Error checkTypes(const MemoryAccess &X, const MemoryAccess &Y,
                   const MemoryAccess &Out, const VarDecl *Acc);
  Error matchStore(const MemoryAccess &Out, const VarDecl *Acc);
  Error matchGuard(const MemoryAccess &Out, const IndexExpr &Row,
                   const IndexExpr &Col);
  unsigned writesTo(const VarDecl *V) const {
    return countWrites(K.Decl->getBody(), V);
  }
  /// The symbol of scalar parameter number \p I.
  std::optional<unsigned> symbolOfParam(unsigned I) const {
    for (unsigned S = 0; S < Syms.size(); ++S)
      if (Syms[S].Kind == SymbolKind::Param &&
          Syms[S].Decl == K.Decl->getParamDecl(I))
        return S;
    return std::nullopt;
  }
  unsigned paramIndex(const ValueDecl *D) const {
    return cast<ParmVarDecl>(D)->getFunctionScopeIndex();
  }
  /// A scalar parameter symbol of the polynomial \p E, when E is just that.
  std::optional<unsigned> paramSymbol(const IndexExpr &E) const {
    if (E.terms().size() != 1)
      return std::nullopt;
    const auto &[Mono, Coeff] = *E.terms().begin();
    if (Coeff != 1 || Mono.size() != 1 ||
        Syms[Mono[0]].Kind != SymbolKind::Param)
      return std::nullopt;
    return Mono[0];
  }

  ASTContext &Ctx;
  const KernelInfo &K;
  KernelModel Model;
  const SymbolTable &Syms;
  /// blockIdx.d of a batched GEMM (the batch index), if any.
  std::optional<unsigned> BatchSym;
  GemmKernelMatch Result;
};

Error Matcher::checkBodyIsOnlyTheProduct() {
  if (!Model.Shared.Arrays.empty() || !Model.Barriers.empty())
    return refuse(kernel() +
                  " stages its operands through __shared__ memory; the "
                  "layout proof covers only a GEMM that reads A and B "
                  "directly from global memory");
  if (!Model.Atomics.empty())
    return refuse(kernel() + " uses atomics (" + Model.Atomics[0].Op + " at " +
                  Model.Atomics[0].Location +
                  "), which cudaoptGemm does not reproduce");
  if (!Model.Shuffles.empty())
    return refuse(kernel() + " uses warp shuffles; only the "
                             "one-thread-per-output GEMM is recognised");
  if (!Model.Calls.empty())
    return refuse(kernel() + " calls '" + Model.Calls[0] +
                  "', whose effect cudaoptGemm would not reproduce");
  if (Model.Loops.size() != 1)
    return refuse(kernel() + " has " + Twine(Model.Loops.size()) +
                  " loops; only the single k loop of a one-thread-per-output "
                  "GEMM is recognised");
  if (Model.Accesses.size() != 3) {
    std::string List;
    for (const MemoryAccess &A : Model.Accesses)
      List += (List.empty() ? "" : ", ") + A.Text;
    return refuse(kernel() + " does extra work: it makes " +
                  Twine(Model.Accesses.size()) + " memory accesses (" + List +
                  "), not just the loads of A and B and the store of C");
  }
  return Error::success();
}

Error Matcher::checkTypes(const MemoryAccess &X, const MemoryAccess &Y,
                          const MemoryAccess &Out, const VarDecl *Acc) {
  Elem EA = elementOf(X.BaseDecl->getType()->getPointeeType());
  Elem EB = elementOf(Y.BaseDecl->getType()->getPointeeType());
  Elem EC = elementOf(Out.BaseDecl->getType()->getPointeeType());
  if (EA == Elem::F64 || EB == Elem::F64 || EC == Elem::F64)
    return refuse(kernel() + " is an fp64 GEMM; the tuned family is fp16, "
                             "bf16 and fp32 only");
  if (EA != EB || EB != EC ||
      (EA != Elem::F16 && EA != Elem::BF16 && EA != Elem::F32))
    return refuse(kernel() + " mixes element types (A: " + X.ElementType +
                  ", B: " + Y.ElementType + ", C: " + Out.ElementType +
                  "); cudaoptGemm needs A, B and C all __half, all "
                  "__nv_bfloat16 or all float");
  Result.BF16 = EA == Elem::BF16;
  // fp32: the runtime's CUDA-core kernel computes the same FMA chain over k
  // as `acc += A * B` does (runtime/gemm/lib/Sgemm.cu); no tensor cores.
  Result.F32 = EA == Elem::F32;
  QualType AccType = Acc->getType().getCanonicalType().getUnqualifiedType();
  if (!AccType->isSpecificBuiltinType(BuiltinType::Float))
    return refuse(kernel() + " accumulates in '" +
                  Acc->getType().getAsString() +
                  "'; cudaoptGemm accumulates in fp32, which would change "
                  "the results");
  return Error::success();
}

Error Matcher::matchStore(const MemoryAccess &Out, const VarDecl *Acc) {
  // The store is `C[i] = value`, as a builtin or an overloaded assignment.
  const Expr *Value = nullptr;
  DynTypedNodeList Parents = Ctx.getParents(*Out.E);
  while (Parents.size() == 1 && Parents[0].get<ImplicitCastExpr>())
    Parents = Ctx.getParents(*Parents[0].get<Expr>());
  if (Parents.size() == 1) {
    if (const auto *BO = Parents[0].get<BinaryOperator>()) {
      if (BO->getOpcode() == BO_Assign)
        Value = BO->getRHS();
    } else if (const auto *OC = Parents[0].get<CXXOperatorCallExpr>()) {
      if (OC->getOperator() == OO_Equal && OC->getNumArgs() == 2)
        Value = OC->getArg(1);
    }
  }
  if (!Value)
    return refuse(kernel() +
                  " does not store its result with a plain "
                  "assignment at " +
                  Out.Location);
  const Expr *V = stripStoreConversions(Value);
  if (refVar(V) == Acc)
    return Error::success();
  // alpha * acc, with alpha a float parameter.
  if (const auto *BO = dyn_cast<BinaryOperator>(V)) {
    if (BO->getOpcode() == BO_Mul) {
      const VarDecl *L = refVar(BO->getLHS()), *R = refVar(BO->getRHS());
      const VarDecl *Scale = L == Acc ? R : R == Acc ? L : nullptr;
      const auto *P = dyn_cast_or_null<ParmVarDecl>(Scale);
      if (P && P->getType()->isRealFloatingType() && writesTo(P) == 0) {
        Result.Alpha = P->getFunctionScopeIndex();
        return Error::success();
      }
    }
  }
  std::string Text =
      Lexer::getSourceText(
          CharSourceRange::getTokenRange(Value->getSourceRange()),
          Ctx.getSourceManager(), Ctx.getLangOpts())
          .str();
  return refuse(kernel() + " stores `" + Text + "` at " + Out.Location +
                ", not the accumulator (or a scalar parameter times it); an "
                "epilogue such as a bias, an activation or beta * C has no "
                "equivalent in cudaoptGemm");
}

/// One comparison of a bounds guard: `Var < Param` (or its negation in an
/// early return, `Var >= Param`).
struct Bound {
  const VarDecl *Var = nullptr;
  const ParmVarDecl *Limit = nullptr;
};

/// The `a < b` comparisons of a conjunction (\p Negated: the `a >= b` of a
/// disjunction guarding an early return). False when some operand of the
/// conjunction is anything else.
bool collectBounds(const Expr *E, bool Negated, SmallVectorImpl<Bound> &Out) {
  E = E->IgnoreParenImpCasts();
  const auto *BO = dyn_cast<BinaryOperator>(E);
  if (!BO)
    return false;
  if (BO->getOpcode() == (Negated ? BO_LOr : BO_LAnd)) {
    bool L = collectBounds(BO->getLHS(), Negated, Out);
    bool R = collectBounds(BO->getRHS(), Negated, Out);
    return L && R;
  }
  BinaryOperatorKind Less = Negated ? BO_GE : BO_LT;
  BinaryOperatorKind Greater = Negated ? BO_LE : BO_GT;
  const Expr *VarSide = nullptr, *LimitSide = nullptr;
  if (BO->getOpcode() == Less) {
    VarSide = BO->getLHS();
    LimitSide = BO->getRHS();
  } else if (BO->getOpcode() == Greater) {
    VarSide = BO->getRHS();
    LimitSide = BO->getLHS();
  } else {
    return false;
  }
  Bound B;
  B.Var = refVar(VarSide);
  B.Limit = dyn_cast_or_null<ParmVarDecl>(refVar(LimitSide));
  if (!B.Var || !B.Limit)
    return false;
  Out.push_back(B);
  return true;
}

Error Matcher::matchGuard(const MemoryAccess &Out, const IndexExpr &Row,
                          const IndexExpr &Col) {
  SmallVector<Bound, 4> Bounds;
  std::string Where = " (at " + Out.Location + ")";
  // `if (row < M && col < N) { ... C[...] = ...; }` around the store, and
  // no other control flow.
  DynTypedNodeList Parents = Ctx.getParents(*Out.E);
  const Stmt *Child = Out.E;
  while (Parents.size() == 1 && !Parents[0].get<FunctionDecl>()) {
    const Stmt *P = Parents[0].get<Stmt>();
    if (!P)
      break;
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      if (If->getThen() != Child || If->getElse() ||
          !collectBounds(If->getCond(), /*Negated=*/false, Bounds))
        return refuse(kernel() +
                      " stores C under a condition other than "
                      "`row < M && col < N`" +
                      Where);
    } else if (!isa<Expr>(P) && !isa<CompoundStmt>(P)) {
      return refuse(kernel() + " stores C under a '" + P->getStmtClassName() +
                    "' statement" + Where);
    }
    Child = P;
    Parents = Ctx.getParents(*P);
  }
  // `if (row >= M || col >= N) return;` at the top level of the body; no
  // other early exit.
  unsigned BoundExits = 0;
  if (const auto *Body = dyn_cast<CompoundStmt>(K.Decl->getBody()))
    for (const Stmt *S : Body->body())
      if (const auto *If = dyn_cast<IfStmt>(S))
        if (isa_and_nonnull<ReturnStmt>(If->getThen()) && !If->getElse() &&
            collectBounds(If->getCond(), /*Negated=*/true, Bounds))
          ++BoundExits;
  if (countEarlyExits(K.Decl->getBody()) != BoundExits)
    return refuse(kernel() + " has a return, break, continue or goto other "
                             "than an early `if (row >= M || col >= N) "
                             "return;`");

  auto FormOf = [&](const VarDecl *V) -> const IndexExpr * {
    for (const ThreadIndexVar &T : Model.ThreadIndices)
      if (T.Decl == V)
        return &T.Form;
    return nullptr;
  };
  std::optional<unsigned> RowLimit, ColLimit;
  for (const Bound &B : Bounds) {
    const IndexExpr *F = FormOf(B.Var);
    if (F && BatchSym && *F == IndexExpr::symbol(*BatchSym)) {
      Result.Batch = B.Limit->getFunctionScopeIndex();
      continue;
    }
    if (!F || (*F != Row && *F != Col))
      return refuse(kernel() + " bounds '" + B.Var->getName() +
                    "', which is neither the row nor the column of C");
    if (*F == Row)
      RowLimit = B.Limit->getFunctionScopeIndex();
    else if (*F == Col)
      ColLimit = B.Limit->getFunctionScopeIndex();
  }
  if (!RowLimit || !ColLimit)
    return refuse(kernel() + " has no guard `row < M && col < N` (or an "
                             "early `if (row >= M || col >= N) return;`) "
                             "around the store of C, so the extent of C is "
                             "unknown");
  if (*ColLimit != Result.N)
    return refuse(kernel() + " bounds its columns by '" +
                  K.Decl->getParamDecl(*ColLimit)->getName() +
                  "' but C's rows are '" +
                  K.Decl->getParamDecl(Result.N)->getName() +
                  "' long; cudaoptGemm needs the column bound to be N");
  Result.M = *RowLimit;
  return Error::success();
}

Expected<GemmKernelMatch> Matcher::run() {
  if (K.Template)
    return refuse(kernel() + " is a template; gemm-specialize needs concrete "
                             "element types");
  // The analysis's idiom is a hint; the proof below is what counts (it also
  // sees through the conversions of 16-bit loads).
  std::vector<ProductAccumulation> Found =
      findProductAccumulations(Ctx, K.Decl->getBody());
  if (Found.empty())
    return refuse(kernel() + " is not a GEMM (" +
                  (Model.Idiom.Kind == Idiom::Gemm
                       ? std::string("no `acc += A[...] * B[...]` into a "
                                     "local variable")
                       : Model.Idiom.Evidence) +
                  ")");
  if (Error E = checkBodyIsOnlyTheProduct())
    return std::move(E);
  if (Found.size() != 1)
    return refuse(kernel() + " has " + Twine(Found.size()) +
                  " product accumulations; only a single `acc += A[...] * "
                  "B[...]` is mapped to cudaoptGemm");
  const ProductAccumulation &PA = Found[0];
  auto AccessOf = [&](const Expr *Factor) {
    return loadAccessOfFactor(Model.Accesses, Factor);
  };
  const MemoryAccess *XP = AccessOf(PA.X), *YP = AccessOf(PA.Y);
  if (!XP || !YP || XP == YP)
    return refuse(
        kernel() + "'s product at " +
        describeLocation(Ctx.getSourceManager(), PA.S->getBeginLoc()) +
        " does not multiply two loads from memory");
  const MemoryAccess &X = *XP, &Y = *YP;
  int AccLoop = -1;
  for (size_t I = 0; I < Model.Loops.size(); ++I)
    if (containsStmt(Model.Loops[I].S, PA.S) &&
        (AccLoop < 0 || Model.Loops[I].Depth > Model.Loops[AccLoop].Depth))
      AccLoop = I;
  if (AccLoop < 0)
    return refuse(kernel() + "'s product is not accumulated in a loop");
  // Every iteration adds its product: no condition around it.
  for (DynTypedNodeList P = Ctx.getParents(*PA.S);
       P.size() == 1 && P[0].get<Stmt>() != Model.Loops[AccLoop].S;
       P = Ctx.getParents(P[0])) {
    const Stmt *S = P[0].get<Stmt>();
    if (!S || (!isa<CompoundStmt>(S) && !isa<Expr>(S)))
      return refuse(kernel() + " accumulates under a condition (" +
                    (S ? S->getStmtClassName() : "declaration") +
                    " in the k loop)");
  }
  const MemoryAccess *OutP = nullptr;
  for (const MemoryAccess &A : Model.Accesses)
    if (&A != &X && &A != &Y)
      OutP = &A;
  const MemoryAccess &Out = *OutP;
  for (const MemoryAccess *A : {&X, &Y, &Out})
    if (A->Space != MemorySpace::Global ||
        !isa_and_nonnull<ParmVarDecl>(A->BaseDecl))
      return refuse(kernel() + " accesses '" + A->Text +
                    "', which is not a global-memory pointer parameter");
  if (Out.Kind != AccessKind::Write || Out.Loop >= 0)
    return refuse(kernel() +
                  " does not store its result once per thread "
                  "after the k loop (at " +
                  Out.Location + ")");

  // Batched: strip the batch terms b * stride off every index; the strides
  // are checked once M, N and K are known.
  IndexExpr XI = X.Index, YI = Y.Index, OI = Out.Index;
  std::optional<IndexExpr> SX, SY, SO;
  for (unsigned D = 0; D < 3 && !BatchSym; ++D) {
    std::optional<unsigned> Bi = Syms.findBuiltin(SymbolKind::BlockIdx, D);
    if (!Bi || !OI.mentions(*Bi))
      continue;
    std::optional<unsigned> Bd = Syms.findBuiltin(SymbolKind::BlockDim, D);
    std::optional<unsigned> Ti = Syms.findBuiltin(SymbolKind::ThreadIdx, D);
    auto Threads = [&](const IndexExpr &E) {
      return (Bd && E.mentions(*Bd)) || (Ti && E.mentions(*Ti));
    };
    if (Threads(XI) || Threads(YI) || Threads(OI))
      continue; // Dimension D indexes rows or columns.
    auto Stride = [&](const IndexExpr &E) -> std::optional<IndexExpr> {
      std::optional<IndexExpr> C = E.coefficientOf(*Bi);
      if (!C || (C->dependence(Syms) & DepVarying))
        return std::nullopt;
      return C;
    };
    SX = Stride(XI);
    SY = Stride(YI);
    SO = Stride(OI);
    if (!SX || !SY || !SO)
      return refuse(kernel() + " indexes by blockIdx." + Twine("xyz"[D]) +
                    " other than as a batch offset b * stride of A, B and C "
                    "with loop-invariant strides");
    IndexExpr Bv = IndexExpr::symbol(*Bi);
    XI = XI - Bv * *SX;
    YI = YI - Bv * *SY;
    OI = OI - Bv * *SO;
    BatchSym = *Bi;
  }
  auto IndexOf = [&](const MemoryAccess *A) -> const IndexExpr & {
    return A == &X ? XI : A == &Y ? YI : OI;
  };

  const VarDecl *AccVar = PA.Acc;
  if (Error E = checkTypes(X, Y, Out, AccVar))
    return std::move(E);
  std::optional<llvm::APFloat> Init;
  if (const Expr *I = AccVar->getInit()) {
    Expr::EvalResult R;
    if (I->EvaluateAsRValue(R, Ctx) && R.Val.isFloat() &&
        R.Val.getFloat().isZero())
      Init = R.Val.getFloat();
  }
  if (!Init || writesTo(AccVar) != 1)
    return refuse(kernel() + " does not start '" + AccVar->getName() +
                  "' at zero and only add products to it");

  // The k loop: for (k = 0; k < K; ++k), K a parameter.
  const LoopInfo &L = Model.Loops[AccLoop];
  std::optional<unsigned> KSym = paramSymbol(L.Bound);
  if (L.Step != StepKind::Additive || L.Init.getConstant() != 0 ||
      L.Stride.getConstant() != 1 || L.Compare != "<" || !KSym)
    return refuse(kernel() + "'s k loop at " + L.Location +
                  " is not `for (k = 0; k < K; ++k)` with K a parameter");
  std::optional<unsigned> Iter;
  for (unsigned S = 0; S < Syms.size(); ++S)
    if (Syms[S].Kind == SymbolKind::LoopIter && Syms[S].Loop == AccLoop)
      Iter = S;
  if (!Iter)
    return refuse(kernel() + "'s k loop has no affine induction variable");
  IndexExpr KE = IndexExpr::symbol(*KSym), It = IndexExpr::symbol(*Iter);

  // A[row * K + k]: try both factors as A.
  const MemoryAccess *AAcc = nullptr, *BAcc = nullptr;
  IndexExpr Row;
  for (auto [First, Second] : {std::pair{&X, &Y}, std::pair{&Y, &X}}) {
    IndexExpr Rest = IndexOf(First) - It;
    std::optional<IndexExpr> R = Rest.coefficientOf(*KSym);
    if (!R || R->isZero() || Rest != *R * KE || R->mentions(*Iter) ||
        R->mentions(*KSym))
      continue;
    AAcc = First;
    BAcc = Second;
    Row = *R;
    break;
  }
  if (!AAcc)
    return refuse(kernel() + " reads neither factor as A[row * K + k] (" +
                  X.Text + ", " + Y.Text +
                  "): A is not provably row-major M x K");
  std::optional<unsigned> RowDim = globalIndexDim(Row, Syms);
  if (!RowDim)
    return refuse(kernel() + "'s row index '" + Row.str(Syms) +
                  "' is not blockIdx * blockDim + threadIdx in one dimension");

  // C[row * N + col].
  std::optional<unsigned> NSym;
  IndexExpr Col;
  for (unsigned S = 0; S < Syms.size(); ++S) {
    if (Syms[S].Kind != SymbolKind::Param)
      continue;
    std::optional<IndexExpr> R = OI.coefficientOf(S);
    if (!R || *R != Row)
      continue;
    IndexExpr C = OI - Row * IndexExpr::symbol(S);
    if (C.mentions(S))
      continue;
    NSym = S;
    Col = C;
  }
  std::optional<unsigned> ColDim =
      NSym ? globalIndexDim(Col, Syms) : std::nullopt;
  if (!NSym || !ColDim || *ColDim == *RowDim)
    return refuse(kernel() + " stores '" + Out.Text +
                  "', not C[row * N + col] with col a thread index in "
                  "another dimension: C is not provably row-major M x N");
  IndexExpr NE = IndexExpr::symbol(*NSym);

  // B[k * N + col] (row-major K x N) or B[col * K + k] (stored N x K).
  if (IndexOf(BAcc) == It * NE + Col)
    Result.BColumnMajor = false;
  else if (IndexOf(BAcc) == Col * KE + It)
    Result.BColumnMajor = true;
  else
    return refuse(kernel() + " reads B as '" + BAcc->Text +
                  "', neither B[k * N + col] nor B[col * K + k]: the layout "
                  "of B is unknown");

  Result.A = paramIndex(AAcc->BaseDecl);
  Result.B = paramIndex(BAcc->BaseDecl);
  Result.C = paramIndex(Out.BaseDecl);
  Result.K = paramIndex(cast<ValueDecl>(Syms[*KSym].Decl));
  Result.N = paramIndex(cast<ValueDecl>(Syms[*NSym].Decl));
  Result.RowDim = *RowDim;
  Result.ColDim = *ColDim;
  if (Result.A == Result.C || Result.B == Result.C)
    return refuse(kernel() + " reads and writes the same parameter");
  if (Error E = matchStore(Out, AccVar))
    return std::move(E);
  if (Error E = matchGuard(Out, Row, Col))
    return std::move(E);
  if (BatchSym) {
    std::optional<unsigned> MSym = symbolOfParam(Result.M);
    const IndexExpr &SA = AAcc == &X ? *SX : *SY;
    const IndexExpr &SB = AAcc == &X ? *SY : *SX;
    if (!MSym) // M is read, so it has a symbol; be safe anyway.
      return refuse(kernel() + "'s row bound is not a plain parameter");
    IndexExpr ME = IndexExpr::symbol(*MSym);
    if (SA != ME * KE || SB != KE * NE || *SO != ME * NE)
      return refuse(kernel() + "'s batch strides (A: " + SA.str(Syms) +
                    ", B: " + SB.str(Syms) + ", C: " + SO->str(Syms) +
                    ") are not the packed M * K, K * N and M * N");
    if (!Result.Batch)
      return refuse(kernel() + " has no guard `b < batch` on its batch "
                               "index, so the number of batches is unknown");
    Result.BatchDim = Syms[*BatchSym].Dim;
  }
  return Result;
}

} // namespace

Expected<GemmKernelMatch> matchGemmKernel(ASTContext &Ctx,
                                          const KernelInfo &K) {
  return Matcher(Ctx, K).run();
}

Expected<GemmProblem> problemAtLaunch(ASTContext &Ctx, const KernelInfo &K,
                                      const GemmKernelMatch &Match,
                                      const LaunchSite &L) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::string Where = describeLocation(SM, L.Call->getBeginLoc());
  if (L.Call->getNumArgs() != K.Decl->getNumParams())
    return refuse("the launch at " + Where + " does not pass every argument");
  auto Arg = [&](unsigned I) {
    return sourceText(Ctx, L.Call->getArg(I)->getSourceRange());
  };
  SmallVector<unsigned, 8> Used = {Match.A, Match.B, Match.C,
                                   Match.M, Match.N, Match.K};
  if (Match.Alpha)
    Used.push_back(*Match.Alpha);
  if (Match.Batch)
    Used.push_back(*Match.Batch);
  for (unsigned I : Used)
    if (L.Call->getArg(I)->HasSideEffects(Ctx))
      return refuse("argument '" + Arg(I) + "' of the launch at " + Where +
                    " has side effects; the rewrite would repeat it");

  // When the launch and the extents are constants, the grid must cover
  // M x N: otherwise the kernel computes only part of C.
  std::optional<Dim3> Grid = evaluateDim3(launchGridExpr(L), Ctx);
  std::optional<Dim3> Block = evaluateDim3(launchBlockExpr(L), Ctx);
  std::optional<Dim3> M = evaluateDim3(L.Call->getArg(Match.M), Ctx);
  std::optional<Dim3> N = evaluateDim3(L.Call->getArg(Match.N), Ctx);
  if (Grid && Block && M && N) {
    int64_t Rows = (*Grid)[Match.RowDim] * (*Block)[Match.RowDim];
    int64_t Cols = (*Grid)[Match.ColDim] * (*Block)[Match.ColDim];
    if (Rows < (*M)[0] || Cols < (*N)[0])
      return refuse("the launch at " + Where + " covers " + Twine(Rows) +
                    " x " + Twine(Cols) + " outputs of the " + Twine((*M)[0]) +
                    " x " + Twine((*N)[0]) +
                    " C; cudaoptGemm would compute all of C");
  }
  if (Match.Batch && Grid) {
    std::optional<Dim3> Batch = evaluateDim3(L.Call->getArg(*Match.Batch), Ctx);
    if (Batch && (*Grid)[Match.BatchDim] < (*Batch)[0])
      return refuse("the launch at " + Where + " covers " +
                    Twine((*Grid)[Match.BatchDim]) + " of the " +
                    Twine((*Batch)[0]) +
                    " batches; cudaoptGemm would compute all of them");
  }

  GemmProblem P;
  auto ArgAs = [&](unsigned I, QualType T) {
    return convertedText(Ctx, L.Call->getArg(I), T);
  };
  P.M = ArgAs(Match.M, Ctx.IntTy);
  P.N = ArgAs(Match.N, Ctx.IntTy);
  P.K = ArgAs(Match.K, Ctx.IntTy);
  P.Type = Match.F32    ? "CUDAOPT_GEMM_F32"
           : Match.BF16 ? "CUDAOPT_GEMM_BF16"
                        : "CUDAOPT_GEMM_F16";
  P.LayoutB = Match.BColumnMajor ? "CUDAOPT_GEMM_B_COL" : "CUDAOPT_GEMM_B_ROW";
  P.A = Arg(Match.A);
  P.Lda = P.K;
  P.B = Arg(Match.B);
  P.Ldb = Match.BColumnMajor ? P.K : P.N;
  P.C = Arg(Match.C);
  P.Ldc = P.N;
  if (Match.Alpha)
    P.Alpha = ArgAs(*Match.Alpha, Ctx.FloatTy);
  if (Match.Batch) {
    // Packed batches (the matcher proved the strides).
    auto Product = [](const std::string &X, const std::string &Y) {
      return "static_cast<long long>(" + X + ") * (" + Y + ")";
    };
    P.Batch = ArgAs(*Match.Batch, Ctx.IntTy);
    P.StrideA = Product(P.M, P.K);
    P.StrideB = Product(P.K, P.N);
    P.StrideC = Product(P.M, P.N);
  }
  return P;
}

} // namespace cuda_opt
