//===- ConvKernelMatch.cpp - Prove a kernel is a direct convolution ------===//
//
// Part of cuda-opt.
//
// The shape recognised is the one-thread-per-output direct convolution
// (cross-correlation, as cuDNN and PyTorch define it), e.g.
//
//   int q = blockIdx.x * blockDim.x + threadIdx.x;        // output column
//   int p = blockIdx.y * blockDim.y + threadIdx.y;        // output row
//   int n = blockIdx.z / K, k = blockIdx.z % K;           // image, channel
//   if (q >= Q || p >= P) return;
//   float acc = 0.0f;
//   for (int c = 0; c < C; ++c)                           // any loop order
//     for (int r = 0; r < R; ++r)
//       for (int s = 0; s < S; ++s) {
//         int y = p * stride - pad + r * dil, x = q * stride - pad + s * dil;
//         if (y >= 0 && y < H && x >= 0 && x < W)
//           acc += in[((n * C + c) * H + y) * W + x] *
//                  w[((k * C + c) * R + r) * S + s];
//       }
//   out[((n * K + k) * P + p) * Q + q] = acc;
//
// or the same with NHWC input, KRSC weights and NPQK output. The output
// coordinates may also be digits of one flat index (`q = t % Q`,
// `p = (t / Q) % P`, ...).
//
// A "valid" convolution (NCHW, no padding guard: every tap read) is the same
// with padding 0; then the input index's strides give W (r's) and H (c's,
// over W), and its terms split into n, y and x.
//
// The proof, on index polynomials: the weight index fixes the roles of the
// three loops and k; the padding guard gives y, x, H and W, and from them
// strides, dilations, paddings, p and q; the input index gives n; the output
// index must then be exactly the layout's. Coverage: every output coordinate
// is a digit of a launch index (blockIdx.d * blockDim.d + threadIdx.d or
// blockIdx.d), the digits of one index form a mixed-radix chain (divisors
// 1, Q, Q*P, ...), and every guard on the store bounds a coordinate or an
// index by its extent, so the threads of a launch that supplies enough
// indices store each output element once (ConvLaunchCover).
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/ConvKernelMatch.h"
#include "GuardShape.h"
#include "cuda-opt/Analysis/IndexExprBuilder.h"
#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Analysis/LoopAnalysis.h"
#include "cuda-opt/Analysis/ProductAccumulation.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

std::string ConvKernelMatch::render(
    const IndexExpr &E, function_ref<std::string(unsigned)> Param) const {
  if (E.isZero())
    return "0";
  std::string Out;
  for (const auto &[Mono, Coeff] : E.terms()) {
    std::string Term;
    int64_t C = Coeff;
    if (!Out.empty()) {
      Out += C < 0 ? " - " : " + ";
      C = C < 0 ? -C : C;
    } else if (C < 0) {
      Out += "-";
      C = -C;
    }
    if (Mono.empty()) {
      Out += std::to_string(C);
      continue;
    }
    bool Long = Mono.size() > 1 || C != 1;
    if (C != 1)
      Term = std::to_string(C) + "LL";
    for (unsigned Sym : Mono) {
      const auto *PD = cast<ParmVarDecl>(Symbols[Sym].Decl);
      std::string V = Param(PD->getFunctionScopeIndex());
      // The first factor of a product is widened: static_cast<long long>(V).
      bool Widen = Long && Term.empty();
      if (Widen || !all_of(V, [](char Ch) {
            return isAlnum(Ch) || Ch == '_' || Ch == '.';
          }))
        V = "(" + V + ")";
      if (Widen)
        V = "static_cast<long long>" + V;
      Term += (Term.empty() ? "" : " * ") + V;
    }
    Out += Term;
  }
  return Out;
}

std::optional<int64_t> ConvKernelMatch::evaluate(
    const IndexExpr &E,
    function_ref<std::optional<int64_t>(unsigned)> Param) const {
  int64_t Sum = 0;
  for (const auto &[Mono, Coeff] : E.terms()) {
    int64_t T = Coeff;
    for (unsigned Sym : Mono) {
      const auto *PD = dyn_cast_or_null<ParmVarDecl>(Symbols[Sym].Decl);
      std::optional<int64_t> V =
          PD ? Param(PD->getFunctionScopeIndex()) : std::nullopt;
      if (!V)
        return std::nullopt;
      T *= *V;
    }
    Sum += T;
  }
  return Sum;
}

namespace {

/// \p E / \p D when \p D is one term dividing every term of \p E.
std::optional<IndexExpr> divideExact(const IndexExpr &E, const IndexExpr &D) {
  if (D.terms().size() != 1)
    return std::nullopt;
  const auto &[DM, DC] = *D.terms().begin();
  if (DC == 0)
    return std::nullopt;
  IndexExpr Out;
  for (const auto &[Mono, Coeff] : E.terms()) {
    if (Coeff % DC != 0)
      return std::nullopt;
    std::vector<unsigned> Rest = Mono;
    for (unsigned Sym : DM) {
      auto It = find(Rest, Sym);
      if (It == Rest.end())
        return std::nullopt;
      Rest.erase(It);
    }
    IndexExpr T = IndexExpr::constant(Coeff / DC);
    for (unsigned Sym : Rest)
      T = T * IndexExpr::symbol(Sym);
    Out = Out + T;
  }
  return Out;
}

/// A condition of a guard, as `D >= 0` over the integers.
struct Condition {
  IndexExpr D;
  std::string Text;
};

/// An output coordinate as a digit of a launch index:
/// (Base / Div) % Mod, Mod absent for the top digit.
struct Digit {
  IndexExpr Base;
  unsigned Dim = 0;
  bool BlocksOnly = false;
  IndexExpr Div = IndexExpr::constant(1);
  std::optional<IndexExpr> Mod;
};

class Matcher {
public:
  Matcher(ASTContext &Ctx, const KernelInfo &K)
      : Ctx(Ctx), K(K), Model(buildKernelModel(Ctx, K)),
        Syms(Model.Symbols), B(Ctx, K.Decl, Syms) {
    Loops = analyzeLoops(K.Decl, B);
  }

  Expected<ConvKernelMatch> run();

private:
  std::string kernel() const { return "kernel '" + K.name() + "'"; }
  std::string str(const IndexExpr &E) const { return E.str(Syms); }
  bool overParams(const IndexExpr &E) const {
    for (const auto &[Mono, Coeff] : E.terms())
      for (unsigned Sym : Mono)
        if (Syms[Sym].Kind != SymbolKind::Param)
          return false;
    return true;
  }
  std::optional<unsigned> iterOf(int Loop) const {
    for (unsigned S = 0; S < Syms.size(); ++S)
      if (Syms[S].Kind == SymbolKind::LoopIter && Syms[S].Loop == Loop)
        return S;
    return std::nullopt;
  }
  Error checkBody();
  Error collectConditions(const Expr *E, bool Negated,
                          std::vector<Condition> &Out);
  Error matchLoops(const ProductAccumulation &PA);
  Error matchPadding(const std::vector<Condition> &Pad);
  Error matchUnpadded(const IndexExpr &II);
  Error matchOutputGuard(const MemoryAccess &Out,
                         std::vector<Condition> &Guard);
  std::optional<Digit> digitOf(const IndexExpr &X, unsigned Depth = 0);
  std::optional<Digit> digitOfExpr(const Expr *E, unsigned Depth);
  Error matchCoverage(const std::vector<Condition> &Guard);
  Expected<ConvKernelMatch> attempt(bool Nhwc, const MemoryAccess &In,
                                    const MemoryAccess &Wt,
                                    const MemoryAccess &Out,
                                    const std::vector<Condition> &Pad,
                                    const std::vector<Condition> &Guard,
                                    unsigned &Stage);

  ASTContext &Ctx;
  const KernelInfo &K;
  KernelModel Model;
  SymbolTable Syms;
  IndexExprBuilder B;
  std::vector<LoopInfo> Loops;
  /// Division and remainder expressions of the body, by their text (the
  /// name of their opaque symbol).
  StringMap<const Expr *> Opaque;
  /// The bias load of `out[...] = acc + bias[k]`, if any.
  const MemoryAccess *BiasA = nullptr;
  /// `if (outside) continue;` padding guards (early exits that are fine).
  unsigned PadContinues = 0;

  // Filled in as the proof goes.
  IndexExpr It[3]; ///< iteration symbols of the c, r, s loops
  IndexExpr Kc, Nc, Pc, Qc, Y, X;
  ConvKernelMatch Result;
};

Error Matcher::checkBody() {
  if (K.Template)
    return refuse(kernel() + " is a template; conv-cudnn needs concrete "
                             "element types");
  if (!Model.Shared.Arrays.empty() || !Model.Barriers.empty())
    return refuse(kernel() + " stages data through __shared__ memory; only "
                             "the one-thread-per-output direct convolution "
                             "is recognised");
  if (!Model.Atomics.empty())
    return refuse(kernel() + " uses atomics (" + Model.Atomics[0].Op + ")");
  if (!Model.Shuffles.empty())
    return refuse(kernel() + " uses warp shuffles");
  if (!Model.Calls.empty())
    return refuse(kernel() + " calls '" + Model.Calls[0] +
                  "', whose effect cuDNN would not reproduce");
  if (Loops.size() != 3)
    return refuse(kernel() + " has " + Twine(Loops.size()) +
                  " loops; a direct 2-D convolution has three, over input "
                  "channels and filter rows and columns");
  if (Model.Accesses.size() != 3 && Model.Accesses.size() != 4) {
    std::string List;
    for (const MemoryAccess &A : Model.Accesses)
      List += (List.empty() ? "" : ", ") + A.Text;
    return refuse(kernel() + " makes " + Twine(Model.Accesses.size()) +
                  " memory accesses (" + List +
                  "), not just the loads of the input, the weights and a "
                  "bias and the store of the output");
  }
  return Error::success();
}

Error Matcher::collectConditions(const Expr *Cond, bool Negated,
                                 std::vector<Condition> &Out) {
  SmallVector<const Expr *, 4> Leaves;
  flattenLogical(Cond, Negated ? BO_LOr : BO_LAnd, Leaves);
  for (const Expr *E : Leaves) {
    E = E->IgnoreParenImpCasts();
    const auto *BO = dyn_cast<BinaryOperator>(E);
    std::string Text = B.text(E);
    if (!BO || !BO->isRelationalOp())
      return refuse(kernel() + " has a guard `" + Text +
                    "` that is not a conjunction of <, <=, > and >= "
                    "comparisons");
    if (!BO->getLHS()->getType()->isSignedIntegerType() ||
        !BO->getRHS()->getType()->isSignedIntegerType())
      return refuse(kernel() + " compares unsigned values in `" + Text +
                    "`; the bounds proof needs signed integers");
    IndexExpr L = B.build(BO->getLHS()), R = B.build(BO->getRHS());
    BinaryOperatorKind Op = BO->getOpcode();
    if (Negated)
      Op = Op == BO_LT   ? BO_GE
           : Op == BO_LE ? BO_GT
           : Op == BO_GT ? BO_LE
                         : BO_LT;
    IndexExpr One = IndexExpr::constant(1);
    Condition C;
    C.Text = Text;
    switch (Op) {
    case BO_LT: C.D = R - L - One; break;
    case BO_LE: C.D = R - L; break;
    case BO_GT: C.D = L - R - One; break;
    default: C.D = L - R; break;
    }
    Out.push_back(std::move(C));
  }
  return Error::success();
}

Error Matcher::matchLoops(const ProductAccumulation &PA) {
  // The three loops nest, the innermost holds the accumulation.
  for (int I = 0; I < 3; ++I) {
    const LoopInfo &L = Loops[I];
    if (L.Step != StepKind::Additive || L.Init.getConstant() != 0 ||
        L.Stride.getConstant() != 1 || L.Compare != "<" ||
        !overParams(L.Bound))
      return refuse(kernel() + "'s loop at " + L.Location +
                    " is not `for (v = 0; v < bound; ++v)` with a bound "
                    "made of parameters and constants");
    if (!containsStmt(L.S, PA.S))
      return refuse(kernel() + "'s loop at " + L.Location +
                    " does not hold the accumulation");
    std::optional<unsigned> Iter = iterOf(I);
    if (!Iter)
      return refuse(kernel() + "'s loop at " + L.Location +
                    " has no affine induction variable");
  }
  return Error::success();
}

Error Matcher::matchPadding(const std::vector<Condition> &Pad) {
  IndexExpr Ir = It[1], Is = It[2];
  auto Coef = [&](const IndexExpr &E, unsigned Sym) {
    return E.coefficientOf(Sym).value_or(IndexExpr());
  };
  unsigned RSym = Ir.terms().begin()->first[0];
  unsigned SSym = Is.terms().begin()->first[0];
  auto Positive = [](const IndexExpr &E) {
    auto Lead = E.leadingTerm();
    return Lead && Lead->second > 0;
  };
  std::optional<IndexExpr> Hgt, Wgt; // H - 1 - y and W - 1 - x
  std::optional<IndexExpr> Ylo, Xlo;
  for (const Condition &C : Pad) {
    IndexExpr CR = Coef(C.D, RSym), CS = Coef(C.D, SSym);
    if (!CR.isZero() == !CS.isZero())
      return refuse(kernel() + "'s padding guard `" + C.Text +
                    "` does not bound one input coordinate");
    bool Rows = !CR.isZero();
    auto &Lo = Rows ? Ylo : Xlo;
    auto &Hi = Rows ? Hgt : Wgt;
    auto &Slot = Positive(Rows ? CR : CS) ? Lo : Hi;
    if (Slot)
      return refuse(kernel() + " bounds an input coordinate twice (`" +
                    C.Text + "`)");
    Slot = C.D;
  }
  if (!Ylo || !Hgt || !Xlo || !Wgt)
    return refuse(kernel() + "'s padding guard does not bound both input "
                             "coordinates from below by 0 and from above by "
                             "the input's height and width");
  Y = *Ylo;
  X = *Xlo;
  IndexExpr One = IndexExpr::constant(1);
  Result.H = *Hgt + Y + One;
  Result.W = *Wgt + X + One;
  if (!overParams(Result.H) || !overParams(Result.W))
    return refuse(kernel() + "'s padding guard bounds the input by `" +
                  str(Result.H) + "` and `" + str(Result.W) +
                  "`, not by parameters");
  return Error::success();
}

/// No padding guard: every tap is read, so the convolution is a "valid"
/// one (padding 0). In NCHW the input index is
/// n*C*H*W + c*H*W + y*W + x with s at stride 1 in x and r at stride 1 in y
/// (no dilation): r's coefficient is W and c's is H*W. The terms that W
/// does not divide are x; of the rest over W, those C*H does not divide are
/// y. Any split the later checks accept is exact: they rebuild the input
/// and output indices from it, and the launch asks cuDNN for the output
/// extents of padding 0, which keep every tap inside the input.
Error Matcher::matchUnpadded(const IndexExpr &II) {
  const std::string Needs =
      " reads its input without a padding guard `y >= 0 && y < H && x >= 0 "
      "&& x < W`; without one conv-cudnn needs a \"valid\" NCHW "
      "convolution: in[((n*C + c)*H + p*stride + r)*W + q*stride + s]";
  unsigned CSym = It[0].terms().begin()->first[0];
  unsigned RSym = It[1].terms().begin()->first[0];
  unsigned SSym = It[2].terms().begin()->first[0];
  std::optional<IndexExpr> CC = II.coefficientOf(CSym),
                           CR = II.coefficientOf(RSym),
                           CS = II.coefficientOf(SSym);
  if (!CC || !CR || !CS || *CS != IndexExpr::constant(1) || !overParams(*CR))
    return refuse(kernel() + Needs);
  std::optional<IndexExpr> HF = divideExact(*CC, *CR);
  if (!HF || !overParams(*HF))
    return refuse(kernel() + Needs);
  Result.W = *CR;
  Result.H = *HF;
  // Split the terms of \p E by whether \p D divides them.
  auto Split = [&](const IndexExpr &E, const IndexExpr &D, IndexExpr &Whole,
                   IndexExpr &Rest) {
    Whole = IndexExpr();
    Rest = IndexExpr();
    for (const auto &[Mono, Coeff] : E.terms()) {
      IndexExpr T = IndexExpr::constant(Coeff);
      for (unsigned Sym : Mono)
        T = T * IndexExpr::symbol(Sym);
      if (std::optional<IndexExpr> Q = divideExact(T, D))
        Whole = Whole + *Q;
      else
        Rest = Rest + T;
    }
  };
  IndexExpr Rows, Images;
  Split(II - It[0] * *CC, Result.W, Rows, X);
  Split(Rows, Result.C * Result.H, Images, Y);
  return Error::success();
}

/// The strided part of a coordinate: \p E = Stride * Coord + Offset with
/// Offset invariant and Stride the common factor (constant and parameters)
/// of the varying terms.
void splitStrided(const IndexExpr &E, const SymbolTable &Syms,
                  IndexExpr &Varying, IndexExpr &Offset, IndexExpr &Stride) {
  Varying = IndexExpr();
  Offset = IndexExpr();
  for (const auto &[Mono, Coeff] : E.terms()) {
    IndexExpr T = IndexExpr::constant(Coeff);
    unsigned Deps = 0;
    for (unsigned Sym : Mono) {
      T = T * IndexExpr::symbol(Sym);
      Deps |= Syms[Sym].Deps;
      if (Syms[Sym].Kind == SymbolKind::ThreadIdx ||
          Syms[Sym].Kind == SymbolKind::BlockIdx)
        Deps |= DepThread;
    }
    (Deps & DepVarying ? Varying : Offset) = (Deps & DepVarying ? Varying
                                                                : Offset) +
                                             T;
  }
  // gcd of the coefficients and the parameters common to every term.
  int64_t G = 0;
  std::vector<unsigned> Common;
  bool First = true;
  for (const auto &[Mono, Coeff] : Varying.terms()) {
    G = std::gcd(G, Coeff < 0 ? -Coeff : Coeff);
    std::vector<unsigned> Params;
    for (unsigned Sym : Mono)
      if (Syms[Sym].Kind == SymbolKind::Param)
        Params.push_back(Sym);
    if (First) {
      Common = Params;
      First = false;
      continue;
    }
    std::vector<unsigned> Keep;
    for (unsigned Sym : Params) {
      auto It = find(Common, Sym);
      if (It != Common.end()) {
        Keep.push_back(Sym);
        Common.erase(It);
      }
    }
    Common = Keep;
  }
  Stride = IndexExpr::constant(G ? G : 1);
  for (unsigned Sym : Common)
    Stride = Stride * IndexExpr::symbol(Sym);
}

Error Matcher::matchOutputGuard(const MemoryAccess &Out,
                                std::vector<Condition> &Guard) {
  // `if (...) { ... out[...] = acc; }` around the store.
  DynTypedNodeList Parents = Ctx.getParents(*Out.E);
  const Stmt *Child = Out.E;
  while (Parents.size() == 1 && !Parents[0].get<FunctionDecl>()) {
    const Stmt *P = Parents[0].get<Stmt>();
    if (!P)
      break;
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      if (If->getThen() != Child || If->getElse())
        return refuse(kernel() + " stores its output in an if with an else "
                                 "branch (at " +
                      Out.Location + ")");
      if (Error E = collectConditions(If->getCond(), false, Guard))
        return E;
    } else if (!isa<Expr>(P) && !isa<CompoundStmt>(P)) {
      return refuse(kernel() + " stores its output under a '" +
                    P->getStmtClassName() + "' statement (at " +
                    Out.Location + ")");
    }
    Child = P;
    Parents = Ctx.getParents(*P);
  }
  // `if (...) return;` at the top level of the body.
  unsigned Returns = 0;
  if (const auto *Body = dyn_cast<CompoundStmt>(K.Decl->getBody()))
    for (const Stmt *S : Body->body())
      if (const auto *If = dyn_cast<IfStmt>(S))
        if (!If->getElse() && isBareReturn(If->getThen())) {
          if (Error E = collectConditions(If->getCond(), true, Guard))
            return E;
          ++Returns;
        }
  if (countEarlyExits(K.Decl->getBody()) != Returns + PadContinues)
    return refuse(kernel() + " has a return, break, continue or goto other "
                             "than an early `if (...) return;` at the top "
                             "of its body and `if (...) continue;` padding "
                             "guards");
  return Error::success();
}

std::optional<Digit> Matcher::digitOfExpr(const Expr *E, unsigned Depth) {
  E = E->IgnoreParenImpCasts();
  const auto *BO = dyn_cast<BinaryOperator>(E);
  if (!BO || (BO->getOpcode() != BO_Div && BO->getOpcode() != BO_Rem))
    return digitOf(B.build(E), Depth + 1);
  std::optional<Digit> Inner = digitOfExpr(BO->getLHS(), Depth + 1);
  IndexExpr F = B.build(BO->getRHS());
  if (!Inner || Inner->Mod || !overParams(F) || F.isZero())
    return std::nullopt;
  if (BO->getOpcode() == BO_Div)
    Inner->Div = Inner->Div * F;
  else
    Inner->Mod = F;
  return Inner;
}

std::optional<Digit> Matcher::digitOf(const IndexExpr &X, unsigned Depth) {
  if (Depth > 16)
    return std::nullopt;
  Digit D;
  D.Base = X;
  if (std::optional<unsigned> Dim = globalIndexDim(X, Syms)) {
    D.Dim = *Dim;
    return D;
  }
  for (unsigned Dim = 0; Dim < 3; ++Dim)
    if (std::optional<unsigned> Bi = Syms.findBuiltin(SymbolKind::BlockIdx, Dim);
        Bi && X == IndexExpr::symbol(*Bi)) {
      D.Dim = Dim;
      D.BlocksOnly = true;
      return D;
    }
  // A single opaque symbol: a division or remainder of a launch index.
  if (X.terms().size() != 1 || X.terms().begin()->second != 1 ||
      X.terms().begin()->first.size() != 1)
    return std::nullopt;
  const IndexSymbol &Sym = Syms[X.terms().begin()->first[0]];
  if (Sym.Kind != SymbolKind::Opaque)
    return std::nullopt;
  auto It = Opaque.find(Sym.Name);
  if (It == Opaque.end())
    return std::nullopt;
  return digitOfExpr(It->second, Depth);
}

Error Matcher::matchCoverage(const std::vector<Condition> &Guard) {
  struct Coord {
    const char *Name;
    IndexExpr *Form;
    IndexExpr *Extent;
    Digit D;
    std::optional<IndexExpr> Bound;
  };
  std::vector<Coord> Coords = {{"n", &Nc, &Result.N, {}, {}},
                               {"k", &Kc, &Result.K, {}, {}},
                               {"p", &Pc, &Result.P, {}, {}},
                               {"q", &Qc, &Result.Q, {}, {}}};
  for (Coord &C : Coords) {
    std::optional<Digit> D = digitOf(*C.Form);
    if (!D)
      return refuse(kernel() + "'s output coordinate " + C.Name + " = `" +
                    str(*C.Form) +
                    "` is not blockIdx * blockDim + threadIdx, blockIdx, or a "
                    "division / remainder of one by parameters");
    C.D = *D;
  }
  // Each guard bounds a coordinate or a launch index by an extent.
  struct BaseBound {
    IndexExpr Base;
    IndexExpr Limit;
  };
  std::vector<BaseBound> BaseBounds;
  for (const Condition &G : Guard) {
    bool Used = false;
    for (Coord &C : Coords) {
      IndexExpr L = G.D + *C.Form + IndexExpr::constant(1);
      if (G.D == *C.Form) { // coord >= 0: true of a digit
        Used = true;
        break;
      }
      if (overParams(L) && !L.isZero()) {
        C.Bound = L;
        Used = true;
        break;
      }
    }
    if (Used)
      continue;
    for (Coord &C : Coords) {
      IndexExpr L = G.D + C.D.Base + IndexExpr::constant(1);
      if (G.D == C.D.Base) {
        Used = true;
        break;
      }
      if (overParams(L)) {
        BaseBounds.push_back({C.D.Base, L});
        Used = true;
        break;
      }
    }
    if (!Used)
      return refuse(kernel() + " stores under `" + G.Text +
                    "`, which does not bound an output coordinate or a "
                    "thread index by parameters: it may compute only part of "
                    "the output");
  }
  // Per launch index, the digits form a mixed-radix chain.
  std::vector<bool> Done(Coords.size());
  for (size_t I = 0; I < Coords.size(); ++I) {
    if (Done[I])
      continue;
    std::vector<Coord *> Chain;
    for (size_t J = I; J < Coords.size(); ++J)
      if (!Done[J] && Coords[J].D.Base == Coords[I].D.Base) {
        Chain.push_back(&Coords[J]);
        Done[J] = true;
      }
    const IndexExpr &Base = Coords[I].D.Base;
    std::optional<IndexExpr> BaseLimit;
    for (const BaseBound &BB : BaseBounds)
      if (BB.Base == Base)
        BaseLimit = BB.Limit;
    IndexExpr Div = IndexExpr::constant(1);
    IndexExpr Total = IndexExpr::constant(1);
    bool Guarded = BaseLimit.has_value();
    for (size_t Step = 0; Step < Chain.size(); ++Step) {
      Coord *Next = nullptr;
      for (Coord *C : Chain)
        if (C->D.Div == Div)
          Next = C;
      if (!Next)
        return refuse(kernel() + "'s output coordinates taken from `" +
                      str(Base) +
                      "` are not the digits of one mixed-radix index (no "
                      "digit divides it by `" +
                      str(Div) + "`)");
      bool Top = Step + 1 == Chain.size();
      if (Next->D.Mod) {
        if (Next->Bound && *Next->Bound != *Next->D.Mod)
          return refuse(kernel() + " bounds output coordinate " + Next->Name +
                        " by `" + str(*Next->Bound) + "` but takes it modulo `" +
                        str(*Next->D.Mod) + "`");
        *Next->Extent = *Next->D.Mod;
      } else if (!Top) {
        return refuse(kernel() + "'s output coordinate " + Next->Name +
                      " is not reduced modulo its extent, but another "
                      "coordinate is taken from the same index above it");
      } else if (Next->Bound) {
        *Next->Extent = *Next->Bound;
        Guarded = true;
      } else if (BaseLimit) {
        std::optional<IndexExpr> E = divideExact(*BaseLimit, Div);
        if (!E)
          return refuse(kernel() + " bounds `" + str(Base) + "` by `" +
                        str(*BaseLimit) + "`, which is not a multiple of `" +
                        str(Div) + "`");
        *Next->Extent = *E;
      } else {
        return refuse(kernel() + "'s output coordinate " + Next->Name +
                      " has no upper bound: no guard `" + Next->Name +
                      " < extent` on the store");
      }
      if (Next->Bound && !Next->D.Mod && !Top)
        Guarded = true;
      Total = Total * *Next->Extent;
      Div = Div * *Next->Extent;
    }
    if (BaseLimit && *BaseLimit != Total)
      return refuse(kernel() + " bounds `" + str(Base) + "` by `" +
                    str(*BaseLimit) + "`, not by the product of its digits' "
                    "extents `" +
                    str(Total) + "`");
    ConvLaunchCover Cov;
    Cov.Dim = Coords[I].D.Dim;
    Cov.BlocksOnly = Coords[I].D.BlocksOnly;
    Cov.Exact = !Guarded;
    Cov.Extent = Total;
    for (const ConvLaunchCover &Other : Result.Covers)
      if (Other.Dim == Cov.Dim)
        return refuse(kernel() + " takes output coordinates from two "
                                 "different indices of launch dimension " +
                      Twine("xyz"[Cov.Dim]));
    Result.Covers.push_back(Cov);
  }
  return Error::success();
}

Expected<ConvKernelMatch> Matcher::run() {
  std::vector<ProductAccumulation> Found =
      findProductAccumulations(Ctx, K.Decl->getBody());
  if (Found.empty())
    return refuse(kernel() + " is not a convolution (no `acc += in[...] * "
                             "w[...]` into a local variable)");
  if (Error E = checkBody())
    return std::move(E);
  if (Found.size() != 1)
    return refuse(kernel() + " has " + Twine(Found.size()) +
                  " product accumulations; a direct convolution has one");
  const ProductAccumulation &PA = Found[0];
  if (Error E = matchLoops(PA))
    return std::move(E);

  // Division and remainder expressions, by the text their symbols carry.
  struct OpaqueFinder : RecursiveASTVisitor<OpaqueFinder> {
    IndexExprBuilder *B;
    StringMap<const Expr *> *Out;
    bool VisitBinaryOperator(BinaryOperator *BO) {
      if (BO->getOpcode() == BO_Div || BO->getOpcode() == BO_Rem)
        Out->try_emplace(B->text(BO), BO);
      return true;
    }
  } OF;
  OF.B = &B;
  OF.Out = &Opaque;
  OF.TraverseStmt(K.Decl->getBody());

  // The accesses: two loads multiplied, one store after the loops.
  auto AccessOf = [&](const Expr *Factor) {
    return loadAccessOfFactor(Model.Accesses, Factor);
  };
  const MemoryAccess *XA = AccessOf(PA.X), *YA = AccessOf(PA.Y);
  if (!XA || !YA || XA == YA)
    return refuse(kernel() + "'s product does not multiply two loads from "
                             "memory");
  const MemoryAccess *OutA = nullptr;
  for (const MemoryAccess &A : Model.Accesses)
    if (&A != XA && &A != YA)
      (A.Kind == AccessKind::Write && !OutA ? OutA : BiasA) = &A;
  if (!OutA)
    return refuse(kernel() + " stores no output");
  for (const MemoryAccess *A : {XA, YA, OutA, BiasA}) {
    if (!A)
      continue;
    if (A->Space != MemorySpace::Global ||
        !isa_and_nonnull<ParmVarDecl>(A->BaseDecl))
      return refuse(kernel() + " accesses '" + A->Text +
                    "', which is not a global-memory pointer parameter");
    QualType T = A->BaseDecl->getType()->getPointeeType();
    if (!T.getCanonicalType()->isSpecificBuiltinType(BuiltinType::Float))
      return refuse(kernel() + " accesses '" + A->Text + "' of type '" +
                    T.getAsString() +
                    "'; conv-cudnn handles fp32 tensors only");
  }
  if (OutA->Kind != AccessKind::Write || OutA->Loop >= 0)
    return refuse(kernel() + " does not store its result once per thread "
                             "after the loops (at " +
                  OutA->Location + ")");
  const VarDecl *Acc = PA.Acc;
  if (!Acc->getType().getCanonicalType()->isSpecificBuiltinType(
          BuiltinType::Float))
    return refuse(kernel() + " accumulates in '" + Acc->getType().getAsString() +
                  "'; cuDNN's fp32 convolution accumulates in fp32");
  {
    Expr::EvalResult R;
    const Expr *I = Acc->getInit();
    if (!I || !I->EvaluateAsRValue(R, Ctx) || !R.Val.isFloat() ||
        !R.Val.getFloat().isZero() || countWrites(K.Decl->getBody(), Acc) != 1)
      return refuse(kernel() + " does not start '" + Acc->getName() +
                    "' at zero and only add products to it");
  }
  // The store is `out[...] = acc` or `out[...] = acc + bias[k]` (the
  // bias's index is checked once k is known).
  {
    const Expr *Value = nullptr;
    DynTypedNodeList Parents = Ctx.getParents(*OutA->E);
    while (Parents.size() == 1 && Parents[0].get<ImplicitCastExpr>())
      Parents = Ctx.getParents(*Parents[0].get<Expr>());
    if (Parents.size() == 1)
      if (const auto *BO = Parents[0].get<BinaryOperator>();
          BO && BO->getOpcode() == BO_Assign)
        Value = BO->getRHS();
    bool Plain = Value && refVar(Value) == Acc && !BiasA;
    bool Biased = false;
    if (const auto *Add = dyn_cast_or_null<BinaryOperator>(
            Value ? Value->IgnoreParenImpCasts() : nullptr);
        Add && Add->getOpcode() == BO_Add && BiasA && BiasA->Loop < 0 &&
        BiasA->Kind == AccessKind::Read)
      for (auto [A, B] : {std::pair{Add->getLHS(), Add->getRHS()},
                          std::pair{Add->getRHS(), Add->getLHS()}})
        Biased |= refVar(A) == Acc &&
                  loadAccessOfFactor(Model.Accesses, B) == BiasA;
    if (!Plain && !Biased)
      return refuse(kernel() + " does not store the accumulator, or the "
                               "accumulator plus a bias load, at " +
                    OutA->Location +
                    " (an activation or a scale has no cuDNN "
                    "forward-convolution equivalent here)");
  }
  // The loops precede the store in the same block.
  const Stmt *Outer = nullptr;
  for (const LoopInfo &L : Loops)
    if (L.Parent < 0)
      Outer = L.S;
  {
    DynTypedNodeList LP = Ctx.getParents(*Outer);
    const Stmt *Block = LP.size() == 1 ? LP[0].get<CompoundStmt>() : nullptr;
    if (!Block || !containsStmt(Block, OutA->E))
      return refuse(kernel() + "'s loops and its store are not in the same "
                               "block");
  }

  // The path from the accumulation to the outer loop: blocks, the loops and
  // `if`s without else (the padding guard).
  // A `if (outside) continue;` before the path in a block of a loop body
  // guards the rest of the iteration like `if (!outside)` around it.
  std::vector<Condition> Pad;
  const Stmt *Child = PA.S;
  for (DynTypedNodeList P = Ctx.getParents(*PA.S);
       P.size() == 1 && P[0].get<Stmt>() != Outer;
       Child = P[0].get<Stmt>(), P = Ctx.getParents(P[0])) {
    const Stmt *S = P[0].get<Stmt>();
    if (!S)
      return refuse(kernel() + " accumulates inside a declaration");
    if (const auto *Block = dyn_cast<CompoundStmt>(S)) {
      for (const Stmt *Before : Block->body()) {
        if (Before == Child)
          break;
        const auto *If = dyn_cast<IfStmt>(Before);
        if (!If || If->getElse() || !isa<ContinueStmt>(If->getThen()))
          continue;
        if (Error E = collectConditions(If->getCond(), true, Pad))
          return std::move(E);
        ++PadContinues;
      }
      continue;
    }
    if (isa<Expr>(S) || isa<ForStmt>(S))
      continue;
    const auto *If = dyn_cast<IfStmt>(S);
    if (!If || If->getElse())
      return refuse(kernel() + " accumulates under a '" +
                    S->getStmtClassName() +
                    "'; only `if (guard)` without else (the padding guard) "
                    "may hold the accumulation");
    if (Error E = collectConditions(If->getCond(), false, Pad))
      return std::move(E);
  }

  // The guard of the store (the same for every attempt below).
  std::vector<Condition> Guard;
  if (Error E = matchOutputGuard(*OutA, Guard))
    return std::move(E);

  // Which factor is the input and which the weights, and the loops' roles:
  // the attempt that gets furthest explains a refusal.
  std::optional<Error> Best;
  unsigned BestStage = 0;
  for (bool Nhwc : {false, true})
    for (auto [In, Wt] : {std::pair{XA, YA}, std::pair{YA, XA}}) {
      unsigned Stage = 0;
      Expected<ConvKernelMatch> M =
          attempt(Nhwc, *In, *Wt, *OutA, Pad, Guard, Stage);
      if (M) {
        if (Best)
          consumeError(std::move(*Best));
        return M;
      }
      if (!Best || Stage > BestStage) {
        if (Best)
          consumeError(std::move(*Best));
        Best = M.takeError();
        BestStage = Stage;
      } else {
        consumeError(M.takeError());
      }
    }
  return std::move(*Best);
}

Expected<ConvKernelMatch>
Matcher::attempt(bool Nhwc, const MemoryAccess &InA, const MemoryAccess &WtA,
                 const MemoryAccess &OutAcc, const std::vector<Condition> &Pad,
                 const std::vector<Condition> &Guard, unsigned &Stage) {
  const MemoryAccess *In = &InA, *Wt = &WtA, *OutA = &OutAcc;
  const std::string NoWeights =
      kernel() + " reads no factor as weights w[((k*C + c)*R + r)*S + s] "
                 "(KCRS) or w[((k*R + r)*S + s)*C + c] (KRSC) over its three "
                 "loops";
  Result = ConvKernelMatch();
  Result.Nhwc = Nhwc;
  // The weight index fixes the loops: KCRS has s at stride 1, r at S,
  // c at R*S; KRSC has c at 1, s at C, r at S*C.
  int Role[3] = {-1, -1, -1}; // c, r, s
  IndexExpr Bound[3];
  const IndexExpr &WI = Wt->Index;
  std::optional<IndexExpr> Coefs[3];
  for (int L = 0; L < 3; ++L)
    Coefs[L] = WI.coefficientOf(*iterOf(L));
  auto Find = [&](const IndexExpr &Want, int Skip1, int Skip2) {
    for (int L = 0; L < 3; ++L)
      if (L != Skip1 && L != Skip2 && Coefs[L] && *Coefs[L] == Want)
        return L;
    return -1;
  };
  IndexExpr One = IndexExpr::constant(1);
  int First = Find(One, -1, -1);
  if (First < 0)
    return refuse(NoWeights);
  int Second = Find(Loops[First].Bound, First, -1);
  if (Second < 0)
    return refuse(NoWeights);
  int Third = Find(Loops[First].Bound * Loops[Second].Bound, First, Second);
  if (Third < 0)
    return refuse(NoWeights);
  if (!Nhwc) { // s, r, c
    Role[2] = First, Role[1] = Second, Role[0] = Third;
  } else { // c, s, r
    Role[0] = First, Role[2] = Second, Role[1] = Third;
  }
  for (int I = 0; I < 3; ++I) {
    Bound[I] = Loops[Role[I]].Bound;
    It[I] = IndexExpr::symbol(*iterOf(Role[I]));
  }
  Result.C = Bound[0];
  Result.R = Bound[1];
  Result.S = Bound[2];
  IndexExpr CRS = Result.C * Result.R * Result.S;
  IndexExpr WRest = WI - It[0] * *Coefs[Role[0]] - It[1] * *Coefs[Role[1]] -
                    It[2] * *Coefs[Role[2]];
  std::optional<IndexExpr> KForm = divideExact(WRest, CRS);
  if (!KForm || KForm->mentions(*iterOf(0)) ||
      KForm->mentions(*iterOf(1)) || KForm->mentions(*iterOf(2)))
    return refuse(NoWeights);
  Kc = *KForm;
  Stage = 1;

  // The padding guard: y, x, H, W.
  Y = IndexExpr();
  X = IndexExpr();
  const IndexExpr &II = In->Index;
  if (Pad.empty() && Nhwc) {
    // An input read as NHWC (c at stride 1, s at stride C): this refusal
    // explains more than the NCHW attempt's, whatever stage that reaches.
    std::optional<IndexExpr> CC = II.coefficientOf(*iterOf(Role[0])),
                             CS = II.coefficientOf(*iterOf(Role[2]));
    if (CC && CS && *CC == One && *CS == Result.C)
      Stage = 4;
    return refuse(kernel() + " reads its input without a padding guard; "
                             "without one conv-cudnn needs a \"valid\" NCHW "
                             "convolution, in[((n*C + c)*H + p*stride + r)*W "
                             "+ q*stride + s]");
  }
  if (Error E = Pad.empty() ? matchUnpadded(II) : matchPadding(Pad))
    return std::move(E);
  unsigned RSym = It[1].terms().begin()->first[0];
  unsigned SSym = It[2].terms().begin()->first[0];
  std::optional<IndexExpr> DH = Y.coefficientOf(RSym);
  std::optional<IndexExpr> DW = X.coefficientOf(SSym);
  if (!DH || !DW || !overParams(*DH) || !overParams(*DW) ||
      Y.mentions(SSym) || X.mentions(RSym) ||
      Y.mentions(*iterOf(Role[0])) || X.mentions(*iterOf(Role[0])))
    return refuse(kernel() + "'s input coordinates `" + str(Y) + "` and `" +
                  str(X) + "` are not p * stride - pad + r * dilation "
                           "and q * stride - pad + s * dilation");
  Result.DilH = *DH;
  Result.DilW = *DW;
  IndexExpr YV, YO, XV, XO;
  splitStrided(Y - It[1] * *DH, Syms, YV, YO, Result.StrideH);
  splitStrided(X - It[2] * *DW, Syms, XV, XO, Result.StrideW);
  Result.PadH = IndexExpr() - YO;
  Result.PadW = IndexExpr() - XO;
  std::optional<IndexExpr> PF = divideExact(YV, Result.StrideH);
  std::optional<IndexExpr> QF = divideExact(XV, Result.StrideW);
  if (!PF || !QF || !overParams(Result.PadH) || !overParams(Result.PadW) ||
      !overParams(Result.StrideH) || !overParams(Result.StrideW))
    return refuse(kernel() + "'s input coordinates `" + str(Y) + "` and `" +
                  str(X) + "` have no parameter stride and padding");
  if (Pad.empty() && (!Result.PadH.isZero() || !Result.PadW.isZero()))
    return refuse(kernel() + " reads its input at `" + str(Y) + "`, `" +
                  str(X) + "` without a padding guard: an offset tap (padding " +
                  str(Result.PadH) + ", " + str(Result.PadW) +
                  ") would read outside the input, which a convolution with "
                  "zero padding does not do");
  Pc = *PF;
  Qc = *QF;
  // The input index gives n.
  const IndexExpr &H = Result.H, &W = Result.W, &C = Result.C;
  IndexExpr Known = Nhwc ? It[0] + X * C + Y * W * C
                         : It[0] * H * W + Y * W + X;
  std::optional<IndexExpr> NForm =
      divideExact(II - Known, Nhwc ? H * W * C : C * H * W);
  if (!NForm || NForm->mentions(*iterOf(0)) ||
      NForm->mentions(*iterOf(1)) || NForm->mentions(*iterOf(2)))
    return refuse(kernel() + " reads the input as '" + In->Text +
                  "', not in[((n*C + c)*H + y)*W + x] (NCHW) or "
                  "in[((n*H + y)*W + x)*C + c] (NHWC) with the weights' "
                  "layout");
  Nc = *NForm;
  Stage = 2;
  // The output's guard and coverage give the extents.
  if (Error E = matchCoverage(Guard))
    return std::move(E);
  Stage = 3;
  const IndexExpr &Kx = Result.K, &Px = Result.P, &Qx = Result.Q;
  IndexExpr Want = Nhwc ? ((Nc * Px + Pc) * Qx + Qc) * Kx + Kc
                        : ((Nc * Kx + Kc) * Px + Pc) * Qx + Qc;
  if (OutA->Index != Want)
    return refuse(kernel() + " stores '" + OutA->Text + "', not out[" +
                  str(Want) + "]: the output's layout does not match the " +
                  (Nhwc ? "NHWC" : "NCHW") + " input's");
  Result.In = cast<ParmVarDecl>(In->BaseDecl)->getFunctionScopeIndex();
  Result.Weight = cast<ParmVarDecl>(Wt->BaseDecl)->getFunctionScopeIndex();
  Result.Out = cast<ParmVarDecl>(OutA->BaseDecl)->getFunctionScopeIndex();
  if (Result.Out == Result.In || Result.Out == Result.Weight)
    return refuse(kernel() + " reads and writes the same parameter");
  for (const IndexExpr *E : {&Result.N, &Result.K, &Result.P, &Result.Q})
    if (!overParams(*E))
      return refuse(kernel() + "'s output extent `" + str(*E) +
                    "` is not made of parameters");
  if (BiasA) {
    if (BiasA->Index != Kc)
      return refuse(kernel() + " adds '" + BiasA->Text +
                    "', not the bias of the output channel k = " + str(Kc));
    Result.Bias = cast<ParmVarDecl>(BiasA->BaseDecl)->getFunctionScopeIndex();
  }
  Result.Symbols = Syms;
  return Result;
}

} // namespace

Expected<ConvKernelMatch> matchConvKernel(ASTContext &Ctx,
                                          const KernelInfo &K) {
  return Matcher(Ctx, K).run();
}

} // namespace cuda_opt
