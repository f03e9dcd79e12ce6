//===- BitonicSort.cpp - Host loop nests that sort with a bitonic network -===//
//
// Part of cuda-opt. See BitonicSort.h.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/BitonicSort.h"

#include "StmtPatterns.h"
#include "cuda-opt/Analysis/IndexExprBuilder.h"
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>

using namespace clang;
using namespace llvm;

namespace cuda_opt {
using stmt::assignment;
using stmt::calleeName;
using stmt::callsIn;
using stmt::isCheckCall;
using stmt::mentions;
using stmt::shortText;
using stmt::statementsOf;
using stmt::varOf;

namespace {

const Expr *strip(const Expr *E) {
  return E ? E->IgnoreParenImpCasts() : nullptr;
}

/// How many times \p S assigns, increments or takes the address of \p V.
unsigned changesOf(const Stmt *S, const VarDecl *V) {
  if (!S)
    return 0;
  unsigned N = 0;
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    N += BO->isAssignmentOp() && varOf(BO->getLHS()) == V;
  if (const auto *U = dyn_cast<UnaryOperator>(S))
    N += (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
         varOf(U->getSubExpr()) == V;
  for (const Stmt *C : S->children())
    N += changesOf(C, V);
  return N;
}

//===----------------------------------------------------------------------===//
// The compare-exchange kernel
//===----------------------------------------------------------------------===//

struct KernelRoles {
  unsigned Keys = 0, J = 0, K = 0;
  /// The count parameter n of a guard `if (i >= n) return;` (or `i < n`,
  /// `ixj < n` beside the partner test), or -1.
  int Guard = -1;
  QualType Element;
  bool Descending = false;
};

/// Reads the kernel's body: which locals are the thread's index i and its
/// partner i ^ j, and whether a statement is a comparator of the network.
class StepKernelMatcher {
public:
  StepKernelMatcher(ASTContext &Ctx, const KernelInfo &K)
      : Ctx(Ctx), KD(K.Decl), B(Ctx, K.Decl, Syms),
        Name("kernel '" + K.name() + "'") {
    IndexExpr Tid = IndexExpr::symbol(Syms.builtin(SymbolKind::ThreadIdx, 0));
    IndexExpr Bid = IndexExpr::symbol(Syms.builtin(SymbolKind::BlockIdx, 0));
    IndexExpr BDim = IndexExpr::symbol(Syms.builtin(SymbolKind::BlockDim, 0));
    Gid = Bid * BDim + Tid;
  }

  Expected<KernelRoles> match() {
    const auto *Body = dyn_cast_or_null<CompoundStmt>(KD->getBody());
    if (!Body)
      return refuse(Name + " has no body");
    if (KD->getNumParams() != 3 && KD->getNumParams() != 4)
      return refuse(Name + " has " + std::to_string(KD->getNumParams()) +
                    " parameters; a bitonic step takes the keys, j and k "
                    "(and a count guarding the threads)" +
                    Want);
    this->Body = Body;
    const IfStmt *Partner = nullptr;
    for (const Stmt *S : Body->body()) {
      if (const auto *DS = dyn_cast<DeclStmt>(S)) {
        for (const Decl *D : DS->decls()) {
          const auto *V = dyn_cast<VarDecl>(D);
          if (!V || !V->getType()->isIntegerType() || V->isStaticLocal())
            return refuse(Name + ": '" + shortText(Ctx, S) +
                          "' declares something other than integer locals" +
                          Want);
          if (V->getInit())
            Defs[V] = V->getInit();
        }
        continue;
      }
      // `i = threadIdx.x + ...;` after `unsigned i, ixj;`.
      if (const BinaryOperator *A = assignment(S)) {
        const VarDecl *V = varOf(A->getLHS());
        if (V && V->hasLocalStorage() && !isa<ParmVarDecl>(V) &&
            !V->getInit() && !Defs.count(V)) {
          Defs[V] = A->getRHS();
          continue;
        }
      }
      if (const auto *If = dyn_cast<IfStmt>(S); If && !Partner) {
        // if (i >= n) return;
        std::vector<const Stmt *> Then = statementsOf(If->getThen());
        if (!If->getElse() && Then.size() == 1 && isa<ReturnStmt>(Then[0]) &&
            !cast<ReturnStmt>(Then[0])->getRetValue() && Guard < 0) {
          if (int P = pastCount(If->getCond()); P >= 0) {
            Guard = P;
            continue;
          }
          return refuse(Name + ": '" + shortText(Ctx, If) +
                        "' returns early, but not as the guard 'if (i >= "
                        "n) return;' for a count parameter n");
        }
        Partner = If;
        continue;
      }
      return refuse(Name + ": '" + shortText(Ctx, S) +
                    "' is not part of a bitonic compare-exchange" + Want);
    }
    // Every local is set exactly once (its definition).
    for (auto &[V, E] : Defs)
      if (changesOf(Body, V) != (V->getInit() ? 0u : 1u))
        return refuse(Name + ": local '" + V->getName() +
                      "' is assigned more than once");
    for (auto &[V, E] : Defs) {
      const Expr *D = resolve(E);
      if (!wide(V->getType()) && D && D->getType()->isIntegerType() &&
          B.build(D) == Gid)
        return refuse(Name + ": local '" + V->getName() +
                      "' holds the thread index in '" +
                      V->getType().getAsString() +
                      "', which wraps before the grid ends");
    }
    if (!Partner)
      return refuse(Name + " has no 'if (ixj > i)' around its exchange" + Want);
    Expected<KernelRoles> R = partner(Partner);
    if (R && R->Guard >= 0 &&
        (R->Guard == static_cast<int>(R->J) ||
         R->Guard == static_cast<int>(R->K) ||
         R->Guard == static_cast<int>(R->Keys)))
      return refuse(Name + " guards its threads with j, k or the keys, not "
                           "with a count");
    if (R && KD->getNumParams() == 4 && R->Guard < 0)
      return refuse(Name + "'s fourth parameter is not a count guarding the "
                           "threads ('if (i >= n) return;' or 'i < n' beside "
                           "the partner test)");
    return R;
  }

private:
  /// \p E through the locals' definitions; null when a local on the way
  /// holds its value in fewer than 32 bits (a short index wraps) and
  /// \p Whole asks that none does.
  const Expr *resolve(const Expr *E, bool Whole = false) const {
    for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
      const VarDecl *V = varOf(E);
      auto It = V ? Defs.find(V) : Defs.end();
      if (It == Defs.end())
        break;
      if (Whole && !wide(V->getType()))
        return nullptr;
      E = It->second;
    }
    return strip(E);
  }

  int paramIndex(const Expr *E) const {
    const auto *P = dyn_cast_or_null<ParmVarDecl>(varOf(E));
    for (unsigned I = 0; P && I < KD->getNumParams(); ++I)
      if (KD->getParamDecl(I) == P)
        return I;
    return -1;
  }

  /// blockIdx.x * blockDim.x + threadIdx.x (in any order, through locals).
  bool isIndex(const Expr *E) {
    E = resolve(E, /*Whole=*/true);
    return E && E->getType()->isIntegerType() && B.build(E) == Gid;
  }

  /// An integer type of at least 32 bits: thread indices and the stage
  /// counts j, k of any grid up to 2^31 threads fit.
  bool wide(QualType T) const {
    return T->isIntegerType() && Ctx.getTypeSize(T) >= 32;
  }

  /// i ^ j with j an integer parameter (recorded on first sight).
  bool isPartner(const Expr *E) {
    const auto *X =
        dyn_cast_or_null<BinaryOperator>(resolve(E, /*Whole=*/true));
    if (!X || X->getOpcode() != BO_Xor)
      return false;
    for (auto [L, R] : {std::pair(X->getLHS(), X->getRHS()),
                        std::pair(X->getRHS(), X->getLHS())}) {
      int P = paramIndex(R);
      if (P < 0 || !isIndex(L) || !wide(KD->getParamDecl(P)->getType()))
        continue;
      if (J < 0)
        J = P;
      return P == J;
    }
    return false;
  }

  /// An integer parameter other than the keys', j's and k's.
  int countParam(const Expr *E) {
    int P = paramIndex(E);
    if (P < 0 || P == J || P == K || P == Keys ||
        !KD->getParamDecl(P)->getType()->isIntegerType() ||
        (Guard >= 0 && P != Guard))
      return -1;
    return P;
  }

  /// `i >= n` or `n <= i`: n's parameter, or -1.
  int pastCount(const Expr *Cond) {
    const auto *C = dyn_cast_or_null<BinaryOperator>(strip(Cond));
    if (!C)
      return -1;
    if (C->getOpcode() == BO_GE && isIndex(C->getLHS()))
      return countParam(C->getRHS());
    if (C->getOpcode() == BO_LE && isIndex(C->getRHS()))
      return countParam(C->getLHS());
    return -1;
  }

  /// `i < n`, `n > i`, `ixj < n` or `n > ixj` (for n a power of two and
  /// j < n, i < n exactly when i ^ j < n): n's parameter, or -1.
  int belowCount(const Expr *Cond) {
    const auto *C = dyn_cast_or_null<BinaryOperator>(strip(Cond));
    if (!C)
      return -1;
    const Expr *L = C->getLHS(), *R = C->getRHS();
    if (C->getOpcode() == BO_GT)
      std::swap(L, R);
    else if (C->getOpcode() != BO_LT)
      return -1;
    if (!isIndex(L) && !isPartner(L))
      return -1;
    return countParam(R);
  }

  /// `ixj > i` or `i < ixj`, alone or beside a guard `&& i < n`.
  bool isGuardedPartnerAbove(const Expr *Cond) {
    const auto *And = dyn_cast_or_null<BinaryOperator>(strip(Cond));
    if (!And || And->getOpcode() != BO_LAnd)
      return isPartnerAbove(Cond);
    for (auto [A, B] : {std::pair(And->getLHS(), And->getRHS()),
                        std::pair(And->getRHS(), And->getLHS())})
      if (isPartnerAbove(A))
        if (int P = belowCount(B); P >= 0) {
          Guard = P;
          return true;
        }
    return false;
  }

  /// `ixj > i` or `i < ixj`.
  bool isPartnerAbove(const Expr *Cond) {
    const auto *C = dyn_cast_or_null<BinaryOperator>(strip(Cond));
    if (!C)
      return false;
    if (C->getOpcode() == BO_GT)
      return isPartner(C->getLHS()) && isIndex(C->getRHS());
    if (C->getOpcode() == BO_LT)
      return isIndex(C->getLHS()) && isPartner(C->getRHS());
    return false;
  }

  /// `i & k` with k an integer parameter other than j.
  bool isDirectionBit(const Expr *E) {
    const auto *A = dyn_cast_or_null<BinaryOperator>(strip(E));
    if (!A || A->getOpcode() != BO_And)
      return false;
    for (auto [L, R] : {std::pair(A->getLHS(), A->getRHS()),
                        std::pair(A->getRHS(), A->getLHS())}) {
      int P = paramIndex(R);
      if (P < 0 || P == J || !isIndex(L) ||
          !wide(KD->getParamDecl(P)->getType()))
        continue;
      if (K < 0)
        K = P;
      return P == K;
    }
    return false;
  }

  /// `(i & k) == 0`, `!(i & k)`: 1; `(i & k) != 0`, `(i & k)`: 0; else -1.
  int bitClear(const Expr *Cond) {
    const Expr *E = strip(Cond);
    if (const auto *U = dyn_cast<UnaryOperator>(E);
        U && U->getOpcode() == UO_LNot)
      return isDirectionBit(U->getSubExpr()) ? 1 : -1;
    if (isDirectionBit(E))
      return 0;
    const auto *C = dyn_cast<BinaryOperator>(E);
    if (!C || (C->getOpcode() != BO_EQ && C->getOpcode() != BO_NE))
      return -1;
    for (auto [L, R] : {std::pair(C->getLHS(), C->getRHS()),
                        std::pair(C->getRHS(), C->getLHS())}) {
      std::optional<int64_t> Zero = evaluateIntIn(R, Ctx, Body);
      if (Zero && *Zero == 0 && isDirectionBit(L))
        return C->getOpcode() == BO_EQ ? 1 : 0;
    }
    return -1;
  }

  /// `d[i]` (Which = 0) or `d[ixj]` (Which = 1) of the keys parameter.
  int keyAt(const Expr *E) {
    const auto *A = dyn_cast_or_null<ArraySubscriptExpr>(strip(E));
    if (!A)
      return -1;
    int P = paramIndex(A->getBase());
    if (P < 0 || !KD->getParamDecl(P)->getType()->isPointerType())
      return -1;
    if (Keys < 0)
      Keys = P;
    if (P != Keys)
      return -1;
    if (isIndex(A->getIdx()))
      return 0;
    if (isPartner(A->getIdx()))
      return 1;
    return -1;
  }

  /// `T t = d[a]; d[a] = d[b]; d[b] = t;` with {a, b} = {i, ixj}.
  bool isSwap(const Stmt *S) {
    std::vector<const Stmt *> Ss = statementsOf(S);
    if (Ss.size() != 3)
      return false;
    const VarDecl *T = nullptr;
    const Expr *First = nullptr;
    if (const auto *DS = dyn_cast<DeclStmt>(Ss[0]); DS && DS->isSingleDecl()) {
      T = dyn_cast<VarDecl>(DS->getSingleDecl());
      First = T ? T->getInit() : nullptr;
    }
    if (T && !T->hasLocalStorage())
      return false;
    const BinaryOperator *A1 = assignment(Ss[1]), *A2 = assignment(Ss[2]);
    if (!T || !First || !A1 || !A2 || varOf(A2->getRHS()) != T)
      return false;
    int X = keyAt(First);
    return X >= 0 && keyAt(A1->getLHS()) == X && keyAt(A1->getRHS()) == 1 - X &&
           keyAt(A2->getLHS()) == 1 - X;
  }

  /// `if (d[i] > d[ixj]) swap;` and the like: +1 when it leaves d[i] the
  /// smaller (ascending pair), -1 when the larger, 0 when neither.
  int comparator(const Stmt *S) {
    std::vector<const Stmt *> Ss = statementsOf(S);
    const auto *If = Ss.size() == 1 ? dyn_cast<IfStmt>(Ss[0]) : nullptr;
    if (!If || If->getElse() || If->getInit() || If->getConditionVariable() ||
        !isSwap(If->getThen()))
      return 0;
    const auto *C = dyn_cast<BinaryOperator>(strip(If->getCond()));
    if (!C)
      return 0;
    int L = keyAt(C->getLHS()), R = keyAt(C->getRHS());
    if (L < 0 || R < 0 || L == R)
      return 0;
    // Swapping when d[i] > d[ixj] (or >=: equal keys swap to the same
    // values) leaves the pair ascending.
    int Sign = 0;
    switch (C->getOpcode()) {
    case BO_GT:
    case BO_GE:
      Sign = 1;
      break;
    case BO_LT:
    case BO_LE:
      Sign = -1;
      break;
    default:
      return 0;
    }
    return L == 0 ? Sign : -Sign;
  }

  Expected<KernelRoles> partner(const IfStmt *If) {
    if (If->getElse() || If->getInit() || If->getConditionVariable() ||
        !isGuardedPartnerAbove(If->getCond()))
      return refuse(Name + ": '" + shortText(Ctx, If) +
                    "' is not 'if (ixj > i)' with ixj = i ^ j" + Want);
    // Where bit k of i is clear, and where it is set: the direction of
    // the pair.
    int Clear = 0, Set = 0;
    auto Take = [&](int Bit, const Stmt *Then) {
      int D = comparator(Then);
      if (Bit < 0 || D == 0)
        return false;
      int &Slot = Bit ? Clear : Set;
      if (Slot)
        return false;
      Slot = D;
      return true;
    };
    std::vector<const Stmt *> Ss = statementsOf(If->getThen());
    bool Ok = false;
    if (Ss.size() == 1) {
      // if ((i & k) == 0) A else D
      const auto *Dir = dyn_cast<IfStmt>(Ss[0]);
      if (Dir && Dir->getElse() && !Dir->getInit()) {
        int Bit = bitClear(Dir->getCond());
        Ok = Take(Bit, Dir->getThen()) &&
             Take(Bit < 0 ? -1 : 1 - Bit, Dir->getElse());
      }
    } else if (Ss.size() == 2) {
      // if ((i & k) == 0) A   if ((i & k) != 0) D
      const auto *D1 = dyn_cast<IfStmt>(Ss[0]), *D2 = dyn_cast<IfStmt>(Ss[1]);
      Ok = D1 && D2 && !D1->getElse() && !D2->getElse() && !D1->getInit() &&
           !D2->getInit() && Take(bitClear(D1->getCond()), D1->getThen()) &&
           Take(bitClear(D2->getCond()), D2->getThen());
    }
    if (!Ok || J < 0 || K < 0 || Keys < 0)
      return refuse(Name +
                    ": the exchange under 'if (ixj > i)' is not one "
                    "comparison of d[i] with d[ixj] and a swap for "
                    "each value of the bit 'i & k'" +
                    Want);
    if (Clear == Set)
      return refuse(Name + " orders the pairs the same way whether bit k "
                           "of i is set or not: not a bitonic merge");
    KernelRoles R;
    R.Keys = Keys;
    R.J = J;
    R.K = K;
    R.Guard = Guard;
    QualType P = KD->getParamDecl(Keys)->getType()->getPointeeType();
    if (P.isConstQualified() || P.isVolatileQualified())
      return refuse(Name + "'s keys are const or volatile");
    R.Element = P.getUnqualifiedType();
    if (!R.Element->isIntegerType() && !R.Element->isRealFloatingType())
      return refuse(Name + " sorts '" + R.Element.getAsString() +
                    "', not integers or floating-point numbers");
    if (R.Element->isBooleanType())
      return refuse(Name + " sorts bool");
    R.Descending = Clear < 0;
    return R;
  }

  ASTContext &Ctx;
  const FunctionDecl *KD;
  const CompoundStmt *Body = nullptr;
  SymbolTable Syms;
  IndexExprBuilder B;
  IndexExpr Gid;
  std::string Name;
  DenseMap<const VarDecl *, const Expr *> Defs;
  int Keys = -1, J = -1, K = -1, Guard = -1;
  const std::string Want =
      " (cub-sort needs 'i = blockIdx.x * blockDim.x + threadIdx.x; ixj = "
      "i ^ j; if (ixj > i) { if ((i & k) == 0) { if (d[i] > d[ixj]) swap } "
      "else { if (d[i] < d[ixj]) swap } }')";
};

//===----------------------------------------------------------------------===//
// The host loop nest
//===----------------------------------------------------------------------===//

/// The counter of a loop's init: `v = A` or `T v = A`, and A.
const VarDecl *loopInit(const Stmt *Init, const Expr *&Value) {
  if (const BinaryOperator *A = assignment(Init)) {
    Value = A->getRHS();
    return varOf(A->getLHS());
  }
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(Init);
      DS && DS->isSingleDecl())
    if (const auto *V = dyn_cast<VarDecl>(DS->getSingleDecl())) {
      Value = V->getInit();
      return V;
    }
  return nullptr;
}

/// `E` is `V op C` (or `C op V` for commutative ops) with constant C.
bool isOpConst(ASTContext &Ctx, const Stmt *Scope, const Expr *E,
               const VarDecl *V, BinaryOperatorKind Op, int64_t C) {
  const auto *B = dyn_cast_or_null<BinaryOperator>(strip(E));
  if (!B || B->getOpcode() != Op)
    return false;
  auto Is = [&](const Expr *X, const Expr *Y) {
    std::optional<int64_t> Val = evaluateIntIn(Y, Ctx, Scope);
    return varOf(X) == V && Val && *Val == C;
  };
  return Is(B->getLHS(), B->getRHS()) ||
         ((Op == BO_Mul) && Is(B->getRHS(), B->getLHS()));
}

/// `v <<= 1`, `v *= 2`, `v = v << 1`, `v = v * 2` (Grow) or `v >>= 1`,
/// `v /= 2`, `v = v >> 1`, `v = v / 2`.
bool isStep(ASTContext &Ctx, const Stmt *Scope, const Expr *Inc,
            const VarDecl *V, bool Grow) {
  Inc = strip(Inc);
  BinaryOperatorKind Shift = Grow ? BO_Shl : BO_Shr,
                     Scale = Grow ? BO_Mul : BO_Div;
  if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Inc)) {
    if (varOf(CA->getLHS()) != V)
      return false;
    std::optional<int64_t> C = evaluateIntIn(CA->getRHS(), Ctx, Scope);
    BinaryOperatorKind Op = CA->getOpcode();
    return C && ((Op == (Grow ? BO_ShlAssign : BO_ShrAssign) && *C == 1) ||
                 (Op == (Grow ? BO_MulAssign : BO_DivAssign) && *C == 2));
  }
  const BinaryOperator *A = assignment(Inc);
  return A && varOf(A->getLHS()) == V &&
         (isOpConst(Ctx, Scope, A->getRHS(), V, Shift, 1) ||
          isOpConst(Ctx, Scope, A->getRHS(), V, Scale, 2));
}

/// \p S calls only error checks (at least one) and assigns nothing.
bool isCheckOnly(const Stmt *S) {
  std::vector<const CallExpr *> Calls = callsIn(S);
  std::function<bool(const Stmt *)> Assigns = [&](const Stmt *X) {
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(X);
        BO && BO->isAssignmentOp())
      return true;
    return X && any_of(X->children(), Assigns);
  };
  return !Calls.empty() && !Assigns(S) &&
         all_of(Calls, [](const CallExpr *CE) {
           return !isa<CUDAKernelCallExpr>(CE) && isCheckCall(calleeName(CE));
         });
}

/// Whether evaluating \p E (a launch dimension) may have effects: dim3's
/// constructors (the conversion of an int included) have none of their own.
bool hasEffects(ASTContext &Ctx, const Expr *E) {
  E = E->IgnoreImplicit();
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    const CXXRecordDecl *RD = CE->getType()->getAsCXXRecordDecl();
    if (!RD || RD->getName() != "dim3")
      return true;
    for (const Expr *A : CE->arguments())
      if (!isa<CXXDefaultArgExpr>(A) && hasEffects(Ctx, A))
        return true;
    return false;
  }
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
    return hasEffects(Ctx, FC->getSubExpr());
  return E->HasSideEffects(Ctx);
}

bool callsSynchronize(const Stmt *S) {
  return any_of(callsIn(S), [](const CallExpr *CE) {
    return calleeName(CE) == "cudaDeviceSynchronize";
  });
}

bool isZero(ASTContext &Ctx, const Expr *E, const Stmt *Scope) {
  if (!E || isa<CXXDefaultArgExpr>(E))
    return true;
  std::optional<int64_t> V = evaluateIntIn(E, Ctx, Scope);
  if (V)
    return *V == 0;
  return E->IgnoreParenImpCasts()->isNullPointerConstant(
      Ctx, Expr::NPC_ValueDependentIsNotNull);
}

} // namespace

Expected<BitonicSort> matchBitonicSort(ASTContext &Ctx, const ForStmt *Outer,
                                       const FunctionDecl *Host,
                                       const std::vector<KernelInfo> &Kernels) {
  const Stmt *Scope = Host ? Host->getBody() : nullptr;
  if (!Outer || !Scope)
    return refuse("no loop");
  std::string Want = " (cub-sort needs 'for (k = 2; k <= n; k <<= 1) for (j "
                     "= k >> 1; j > 0; j >>= 1) step<<<grid, block>>>(d, j, "
                     "k);')";
  std::string Where = "the loop at " + describeLocation(Ctx.getSourceManager(),
                                                        Outer->getBeginLoc());
  // for (k = 2; k <= n; k <<= 1)
  const Expr *KStart = nullptr;
  const VarDecl *KV = loopInit(Outer->getInit(), KStart);
  std::optional<int64_t> Two =
      KStart ? evaluateIntIn(KStart, Ctx, Scope) : std::nullopt;
  const auto *KCond = dyn_cast_or_null<BinaryOperator>(strip(Outer->getCond()));
  const Expr *Count = nullptr;
  if (KCond && KCond->getOpcode() == BO_LE && varOf(KCond->getLHS()) == KV)
    Count = KCond->getRHS();
  if (KCond && KCond->getOpcode() == BO_GE && varOf(KCond->getRHS()) == KV)
    Count = KCond->getLHS();
  if (!KV || !KV->getType()->isIntegerType() ||
      Ctx.getTypeSize(KV->getType()) < 32 || !Two || *Two != 2 || !Count ||
      !isStep(Ctx, Scope, Outer->getInc(), KV, /*Grow=*/true))
    return refuse(Where + " is not 'for (k = 2; k <= n; k <<= 1)'" + Want);
  // for (j = k >> 1; j > 0; j >>= 1)
  std::vector<const Stmt *> OuterBody = statementsOf(Outer->getBody());
  const auto *Inner =
      OuterBody.size() == 1 ? dyn_cast<ForStmt>(OuterBody[0]) : nullptr;
  if (!Inner)
    return refuse(Where + ": its body is not one loop over j" + Want);
  const Expr *JStart = nullptr;
  const VarDecl *JV = loopInit(Inner->getInit(), JStart);
  bool JStartOk = JStart && (isOpConst(Ctx, Scope, JStart, KV, BO_Shr, 1) ||
                             isOpConst(Ctx, Scope, JStart, KV, BO_Div, 2));
  const auto *JCond = dyn_cast_or_null<BinaryOperator>(strip(Inner->getCond()));
  bool JCondOk = false;
  if (JCond && JV) {
    BinaryOperatorKind Op = JCond->getOpcode();
    const Expr *L = JCond->getLHS(), *R = JCond->getRHS();
    if (Op == BO_LT || Op == BO_LE) {
      std::swap(L, R);
      Op = Op == BO_LT ? BO_GT : BO_GE;
    }
    std::optional<int64_t> C = evaluateIntIn(R, Ctx, Scope);
    JCondOk = varOf(L) == JV && C &&
              ((Op == BO_GT && *C == 0) || (Op == BO_GE && *C == 1));
  }
  if (!JV || JV == KV || !JV->getType()->isIntegerType() ||
      Ctx.getTypeSize(JV->getType()) < 32 || !JStartOk || !JCondOk ||
      !isStep(Ctx, Scope, Inner->getInc(), JV, /*Grow=*/false))
    return refuse(Where +
                  ": the inner loop is not 'for (j = k >> 1; j > 0; "
                  "j >>= 1)'" +
                  Want);
  // One launch, and error checks.
  const CUDAKernelCallExpr *Launch = nullptr;
  bool Synchronizes = false;
  for (const Stmt *S : statementsOf(Inner->getBody())) {
    const auto *E = dyn_cast<Expr>(S);
    const auto *KC =
        E ? dyn_cast<CUDAKernelCallExpr>(E->IgnoreImplicit()) : nullptr;
    if (KC && !Launch) {
      Launch = KC;
      continue;
    }
    if (!isCheckOnly(S))
      return refuse(Where + ": '" + shortText(Ctx, S) +
                    "' is neither the step's launch nor an error check");
    Synchronizes |= callsSynchronize(S);
  }
  if (!Launch)
    return refuse(Where + " launches no kernel");
  int KI = -1;
  for (unsigned I = 0; I < Kernels.size() && KI < 0; ++I)
    for (const LaunchSite &L : Kernels[I].Launches)
      if (L.Call == Launch)
        KI = I;
  if (KI < 0)
    return refuse(Where + " launches a kernel not defined in this file");
  if (Kernels[KI].Template)
    return refuse("kernel '" + Kernels[KI].name() + "' is a template");
  Expected<KernelRoles> Roles = StepKernelMatcher(Ctx, Kernels[KI]).match();
  if (!Roles)
    return Roles.takeError();
  // step<<<grid, block>>>(d, j, k): the loop counters in their roles.
  const VarDecl *Keys = varOf(Launch->getArg(Roles->Keys));
  if (varOf(Launch->getArg(Roles->J)) != JV ||
      varOf(Launch->getArg(Roles->K)) != KV || !Keys ||
      !Keys->getType()->isPointerType())
    return refuse(Where +
                  " does not pass a pointer variable, j and k to "
                  "kernel '" +
                  Kernels[KI].name() + "' in their roles");
  const Expr *GuardArg =
      Roles->Guard >= 0 ? Launch->getArg(Roles->Guard) : nullptr;
  const CallExpr *Config = Launch->getConfig();
  if (!Config || Config->getNumArgs() < 2)
    return refuse(Where + ": the launch has no configuration");
  if (Config->getNumArgs() >= 3 && !isZero(Ctx, Config->getArg(2), Scope))
    return refuse(Where + ": the step is launched with dynamic shared memory");
  if (Config->getNumArgs() >= 4 && !isZero(Ctx, Config->getArg(3), Scope))
    return refuse(Where + ": the step is launched on a stream; the rewrite "
                          "sorts on the default stream");
  const Expr *Grid = Config->getArg(0), *Block = Config->getArg(1);
  // n, the grid and the block are read again where the nest was: they
  // must not change inside it, depend on the counters or have effects.
  for (const Expr *E : {Count, Grid, Block, GuardArg})
    if (E && (hasEffects(Ctx, E) || mentions(E, KV) || mentions(E, JV)))
      return refuse(Where + ": '" + shortText(Ctx, E) +
                    "' depends on the loop counters or has side effects");
  if (changesOf(Outer, Keys))
    return refuse(Where + " changes the keys' pointer '" + Keys->getName() +
                  "'");
  // Counters declared outside the nest keep their last values there; the
  // rewrite does not run the loops, so nothing may read them afterwards.
  for (const VarDecl *V : {KV, JV}) {
    if (!V->hasLocalStorage() || isa<ParmVarDecl>(V))
      return refuse(Where + ": the counter '" + V->getName() +
                    "' is not a local variable");
    class After : public RecursiveASTVisitor<After> {
    public:
      After(const SourceManager &SM, const VarDecl *V, SourceLocation End)
          : SM(SM), V(V), End(End) {}
      bool VisitDeclRefExpr(DeclRefExpr *D) {
        Found |= D->getDecl() == V &&
                 SM.isBeforeInTranslationUnit(End, D->getBeginLoc());
        return true;
      }
      const SourceManager &SM;
      const VarDecl *V;
      SourceLocation End;
      bool Found = false;
    } A(Ctx.getSourceManager(), V, Outer->getEndLoc());
    A.TraverseStmt(const_cast<Stmt *>(Scope));
    if (A.Found)
      return refuse(Where + ": '" + V->getName() +
                    "' is read after the loops (the rewrite would leave it "
                    "unset)");
  }
  QualType Pointee = Keys->getType()->getPointeeType().getUnqualifiedType();
  if (!Ctx.hasSameType(Pointee, Roles->Element))
    return refuse(Where + " passes '" + Keys->getName() +
                  "' of another type "
                  "than the kernel's keys");
  BitonicSort S;
  S.Nest = Outer;
  S.Host = Host;
  S.Kernel = KI;
  S.Launch = Launch;
  S.KeysArg = Roles->Keys;
  S.Keys = Keys;
  S.Element = Roles->Element;
  S.Descending = Roles->Descending;
  S.Count = Count;
  S.Grid = Grid;
  S.Block = Block;
  S.Synchronizes = Synchronizes;
  S.Guard = GuardArg;
  return S;
}

std::vector<BitonicSort>
findBitonicSortsOf(ASTContext &Ctx, int Kernel,
                   const std::vector<KernelInfo> &Kernels,
                   std::string &FirstRefusal) {
  std::vector<BitonicSort> Out;
  if (Kernel < 0 || static_cast<size_t>(Kernel) >= Kernels.size())
    return Out;
  // The loops two levels above each launch of the kernel.
  for (const LaunchSite &L : Kernels[Kernel].Launches) {
    const Stmt *Cur = L.Call;
    const ForStmt *Loops[2] = {nullptr, nullptr};
    unsigned Found = 0;
    for (unsigned Up = 0; Up < 8 && Found < 2; ++Up) {
      auto Parents = Ctx.getParents(*Cur);
      if (Parents.empty())
        break;
      Cur = Parents[0].get<Stmt>();
      if (!Cur)
        break;
      if (const auto *FS = dyn_cast<ForStmt>(Cur))
        Loops[Found++] = FS;
    }
    if (Found < 2) {
      if (FirstRefusal.empty())
        FirstRefusal =
            "the launch of kernel '" + Kernels[Kernel].name() + "' at " +
            describeLocation(Ctx.getSourceManager(), L.Call->getBeginLoc()) +
            " is not inside two loops (a bitonic network's k and "
            "j)";
      continue;
    }
    Expected<BitonicSort> S =
        matchBitonicSort(Ctx, Loops[1], L.Caller, Kernels);
    if (!S) {
      std::string Why = toString(S.takeError());
      if (FirstRefusal.empty())
        FirstRefusal = Why;
      continue;
    }
    Out.push_back(*S);
  }
  return Out;
}

} // namespace cuda_opt
