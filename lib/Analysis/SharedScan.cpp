//===- SharedScan.cpp - Block-wide prefix sums in shared memory -----------===//
//
// Part of cuda-opt. See SharedScan.h.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/SharedScan.h"
#include "cuda-opt/Analysis/IndexExprBuilder.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

const Expr *strip(const Expr *E) {
  return E ? E->IgnoreParenImpCasts() : nullptr;
}

const VarDecl *varOf(const Expr *E) {
  const auto *D = dyn_cast_or_null<DeclRefExpr>(strip(E));
  return D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
}

bool isBuiltinX(const Expr *E, SymbolKind Want) {
  SymbolKind Kind;
  unsigned Dim = 0;
  return E && IndexExprBuilder::matchBuiltin(E->IgnoreParenCasts(), Kind, Dim) &&
         Kind == Want && Dim == 0;
}

bool isIntLiteral(const Expr *E, int64_t V) {
  const auto *L = dyn_cast_or_null<IntegerLiteral>(strip(E));
  return L && L->getValue() == V;
}

bool isSyncThreads(const Stmt *S) {
  const auto *CE = dyn_cast_or_null<CallExpr>(S);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  return FD && FD->getDeclName().isIdentifier() &&
         FD->getName() == "__syncthreads" && CE->getNumArgs() == 0;
}

/// Whether \p V is assigned, incremented or has its address taken in \p S.
bool isWrittenIn(const Stmt *S, const VarDecl *V) {
  class Writes : public RecursiveASTVisitor<Writes> {
  public:
    explicit Writes(const VarDecl *V) : V(V) {}
    bool VisitBinaryOperator(BinaryOperator *B) {
      Found |= B->isAssignmentOp() && varOf(B->getLHS()) == V;
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      Found |= (U->isIncrementDecrementOp() || U->getOpcode() == UO_AddrOf) &&
               varOf(U->getSubExpr()) == V;
      return true;
    }
    const VarDecl *V;
    bool Found = false;
  } W(V);
  W.TraverseStmt(const_cast<Stmt *>(S));
  return W.Found;
}

bool hasReturn(const Stmt *S) {
  if (!S)
    return false;
  if (isa<ReturnStmt>(S))
    return true;
  for (const Stmt *C : S->children())
    if (hasReturn(C))
      return true;
  return false;
}

class ScanMatcher {
public:
  ScanMatcher(ASTContext &Ctx, const KernelInfo &K) : Ctx(Ctx), K(K) {}

  /// The scan in \p FS, or why it is not one ("" when it does not look like
  /// one at all).
  Expected<SharedScan> match(const ForStmt *FS);

private:
  /// `tid`: threadIdx.x, or a local initialised with it and never written.
  bool isTid(const Expr *E) {
    if (isBuiltinX(E, SymbolKind::ThreadIdx))
      return true;
    const VarDecl *V = varOf(E);
    if (!V || !V->hasLocalStorage() || !V->getType()->isIntegerType() ||
        !V->getInit() || !isBuiltinX(V->getInit(), SymbolKind::ThreadIdx))
      return false;
    if (isWrittenIn(K.Decl->getBody(), V))
      return false;
    Tid = V->getNameAsString();
    return true;
  }
  /// `a[tid]` of a __shared__ array; sets Array.
  bool isOwnSlot(const Expr *E) {
    const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(strip(E));
    if (!AS || !isTid(AS->getIdx()))
      return false;
    return sameArray(AS->getBase());
  }
  bool sameArray(const Expr *Base) {
    const VarDecl *A = varOf(Base);
    if (!A || !A->hasAttr<CUDASharedAttr>() || !A->getType()->isArrayType())
      return false;
    if (Array && Array != A)
      return false;
    Array = A;
    return true;
  }
  /// `tid >= d` or `d <= tid`.
  bool isInRange(const Expr *E, const VarDecl *D) {
    const auto *B = dyn_cast_or_null<BinaryOperator>(strip(E));
    if (!B)
      return false;
    return (B->getOpcode() == BO_GE && isTid(B->getLHS()) &&
            varOf(B->getRHS()) == D) ||
           (B->getOpcode() == BO_LE && varOf(B->getLHS()) == D &&
            isTid(B->getRHS()));
  }
  /// `a[tid - d]`.
  bool isLowerSlot(const Expr *E, const VarDecl *D) {
    const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(strip(E));
    if (!AS || !sameArray(AS->getBase()))
      return false;
    const auto *B = dyn_cast<BinaryOperator>(strip(AS->getIdx()));
    return B && B->getOpcode() == BO_Sub && isTid(B->getLHS()) &&
           varOf(B->getRHS()) == D;
  }
  /// `d *= 2`, `d <<= 1`, `d = d * 2`, `d = 2 * d`, `d += d`.
  bool isDoubling(const Expr *E, const VarDecl *D) {
    E = strip(E);
    if (const auto *CA = dyn_cast<CompoundAssignOperator>(E)) {
      if (varOf(CA->getLHS()) != D)
        return false;
      return (CA->getOpcode() == BO_MulAssign && isIntLiteral(CA->getRHS(), 2)) ||
             (CA->getOpcode() == BO_ShlAssign && isIntLiteral(CA->getRHS(), 1)) ||
             (CA->getOpcode() == BO_AddAssign && varOf(CA->getRHS()) == D);
    }
    const auto *A = dyn_cast<BinaryOperator>(E);
    if (!A || A->getOpcode() != BO_Assign || varOf(A->getLHS()) != D)
      return false;
    const auto *M = dyn_cast<BinaryOperator>(strip(A->getRHS()));
    if (!M)
      return false;
    if (M->getOpcode() == BO_Mul)
      return (varOf(M->getLHS()) == D && isIntLiteral(M->getRHS(), 2)) ||
             (isIntLiteral(M->getLHS(), 2) && varOf(M->getRHS()) == D);
    if (M->getOpcode() == BO_Shl)
      return varOf(M->getLHS()) == D && isIntLiteral(M->getRHS(), 1);
    if (M->getOpcode() == BO_Add)
      return varOf(M->getLHS()) == D && varOf(M->getRHS()) == D;
    return false;
  }
  /// `a[tid] += v` or `a[tid] = a[tid] + v` (either order).
  bool isAccumulate(const Stmt *S, const VarDecl *V) {
    const auto *E = dyn_cast_or_null<Expr>(S);
    if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(strip(E)))
      return CA->getOpcode() == BO_AddAssign && isOwnSlot(CA->getLHS()) &&
             varOf(CA->getRHS()) == V;
    const auto *A = dyn_cast_or_null<BinaryOperator>(strip(E));
    if (!A || A->getOpcode() != BO_Assign || !isOwnSlot(A->getLHS()))
      return false;
    const auto *P = dyn_cast<BinaryOperator>(strip(A->getRHS()));
    return P && P->getOpcode() == BO_Add &&
           ((isOwnSlot(P->getLHS()) && varOf(P->getRHS()) == V) ||
            (varOf(P->getLHS()) == V && isOwnSlot(P->getRHS())));
  }

  ASTContext &Ctx;
  const KernelInfo &K;
  const VarDecl *Array = nullptr;
  std::string Tid = "threadIdx.x";
};

Expected<SharedScan> ScanMatcher::match(const ForStmt *FS) {
  // for (int d = 1; d < blockDim.x; d *= 2)
  const auto *Init = dyn_cast_or_null<DeclStmt>(FS->getInit());
  const VarDecl *D = Init && Init->isSingleDecl()
                         ? dyn_cast<VarDecl>(Init->getSingleDecl())
                         : nullptr;
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(strip(FS->getCond()));
  if (!D || !D->getType()->isIntegerType() || !isIntLiteral(D->getInit(), 1) ||
      !Cond || Cond->getOpcode() != BO_LT || varOf(Cond->getLHS()) != D ||
      !isBuiltinX(Cond->getRHS(), SymbolKind::BlockDim) ||
      !isDoubling(FS->getInc(), D))
    return refuse("");
  const auto *Body = dyn_cast_or_null<CompoundStmt>(FS->getBody());
  if (!Body)
    return refuse("");
  SmallVector<const Stmt *, 5> S(Body->body_begin(), Body->body_end());
  // T v = 0; if (tid >= d) v = a[tid - d];   or   T v = tid >= d ? a[tid - d] : 0;
  const auto *VDecl = S.empty() ? nullptr : dyn_cast<DeclStmt>(S[0]);
  const VarDecl *V = VDecl && VDecl->isSingleDecl()
                         ? dyn_cast<VarDecl>(VDecl->getSingleDecl())
                         : nullptr;
  if (!V || !V->getInit())
    return refuse("");
  unsigned Next = 1;
  if (const auto *C = dyn_cast<ConditionalOperator>(strip(V->getInit()))) {
    if (!isInRange(C->getCond(), D) || !isLowerSlot(C->getTrueExpr(), D) ||
        !isAdditiveIdentity(Ctx, C->getFalseExpr()))
      return refuse("");
  } else {
    const auto *If = S.size() > 1 ? dyn_cast<IfStmt>(S[1]) : nullptr;
    const Stmt *Then = If ? If->getThen() : nullptr;
    if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Then))
      Then = CS->size() == 1 ? CS->body_front() : nullptr;
    const auto *Set = dyn_cast_or_null<BinaryOperator>(
        dyn_cast_or_null<Expr>(Then) ? strip(cast<Expr>(Then)) : nullptr);
    if (!isAdditiveIdentity(Ctx, V->getInit()) || !If || If->getElse() ||
        If->getInit() || If->getConditionVariable() ||
        !isInRange(If->getCond(), D) || !Set ||
        Set->getOpcode() != BO_Assign || varOf(Set->getLHS()) != V ||
        !isLowerSlot(Set->getRHS(), D))
      return refuse("");
    Next = 2;
  }
  // __syncthreads(); a[tid] += v; __syncthreads();
  if (S.size() != Next + 3 || !isSyncThreads(S[Next]) ||
      !isAccumulate(S[Next + 1], V) || !isSyncThreads(S[Next + 2]))
    return refuse("");

  // The shape matches; now the conditions a rewrite needs.
  std::string Loop = "the scan loop at " +
                     FS->getBeginLoc().printToString(Ctx.getSourceManager());
  QualType Elem = cast<ArrayType>(Array->getType().getCanonicalType())
                      ->getElementType()
                      .getUnqualifiedType();
  if (!Elem->isIntegerType() && !Elem->isRealFloatingType())
    return refuse(Loop + " sums elements of type '" + Elem.getAsString() +
                  "', not an integer or floating-point type");
  if (!Ctx.hasSameUnqualifiedType(V->getType(), Elem))
    return refuse(Loop + " adds a '" + V->getType().getAsString() +
                  "' to elements of type '" + Elem.getAsString() +
                  "' (the sum's type would change)");
  if (isWrittenIn(Body, D))
    return refuse(Loop + " changes its step inside the body");
  SharedScan Out;
  Out.Loop = FS;
  Out.Array = Array;
  Out.Element = Elem;
  Out.Tid = Tid;
  return Out;
}

} // namespace

bool isAdditiveIdentity(const ASTContext &Ctx, const Expr *E) {
  Expr::EvalResult R;
  if (!E || E->HasSideEffects(Ctx) || !E->EvaluateAsRValue(R, Ctx))
    return false;
  if (R.Val.isInt())
    return R.Val.getInt() == 0;
  if (R.Val.isFloat())
    return R.Val.getFloat().isZero();
  return false;
}

Expected<std::vector<SharedScan>> analyzeSharedScans(ASTContext &Ctx,
                                                     const KernelInfo &K) {
  std::string Kernel = "kernel '" + K.name() + "'";
  const auto *Body = dyn_cast_or_null<CompoundStmt>(K.Decl->getBody());
  if (!Body)
    return refuse(Kernel + " has no body");
  std::vector<SharedScan> Found;
  std::string Why;
  bool SeenReturn = false;
  // Only loops at the top level of the kernel: every thread of the block
  // runs them (the rewrite's shuffles and barriers need the whole block).
  for (const Stmt *S : Body->body()) {
    const auto *FS = dyn_cast<ForStmt>(S);
    if (FS) {
      ScanMatcher M(Ctx, K);
      Expected<SharedScan> Scan = M.match(FS);
      if (Scan) {
        if (SeenReturn) {
          Why = "the scan loop at " +
                FS->getBeginLoc().printToString(Ctx.getSourceManager()) +
                " follows a 'return', so some threads may not reach it";
        } else {
          Found.push_back(*Scan);
        }
      } else {
        std::string E = toString(Scan.takeError());
        if (!E.empty() && Why.empty())
          Why = E;
      }
    }
    SeenReturn |= hasReturn(S);
  }
  if (Found.empty())
    return refuse(Why.empty()
                      ? Kernel + " has no block-wide prefix sum over a "
                                 "__shared__ array at its top level ('for "
                                 "(int d = 1; d < blockDim.x; d *= 2) { T v "
                                 "= 0; if (tid >= d) v = a[tid - d]; "
                                 "__syncthreads(); a[tid] += v; "
                                 "__syncthreads(); }')"
                      : Why);
  return Found;
}

} // namespace cuda_opt
