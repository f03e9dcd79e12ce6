//===- ScanRoutine.cpp - Host functions that compute a device-wide scan ---===//
//
// Part of cuda-opt. See ScanRoutine.h.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/ScanRoutine.h"

#include "StmtPatterns.h"
#include "cuda-opt/Analysis/IndexExprBuilder.h"
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Analysis/SharedScan.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
using stmt::varOf;
using stmt::statementsOf;
using stmt::assignment;
using stmt::shortText;
using stmt::calleeName;

namespace {

const Expr *strip(const Expr *E) {
  return E ? IndexExprBuilder::stripCasts(E) : nullptr;
}

bool isSyncThreads(const Stmt *S) {
  const auto *CE = dyn_cast_or_null<CallExpr>(S);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  return FD && FD->getDeclName().isIdentifier() &&
         FD->getName() == "__syncthreads";
}

std::string textOf(const ASTContext &Ctx, const Stmt *S) {
  return sourceText(Ctx, S->getSourceRange());
}

//===----------------------------------------------------------------------===//
// The kernels
//===----------------------------------------------------------------------===//

/// Builds index forms inside one kernel and names the global index
/// blockIdx.x * blockDim.x + threadIdx.x.
class KernelForms {
public:
  KernelForms(ASTContext &Ctx, const FunctionDecl *K) : B(Ctx, K, Syms) {
    Tid = IndexExpr::symbol(Syms.builtin(SymbolKind::ThreadIdx, 0));
    Bid = IndexExpr::symbol(Syms.builtin(SymbolKind::BlockIdx, 0));
    BDim = IndexExpr::symbol(Syms.builtin(SymbolKind::BlockDim, 0));
    Gid = Bid * BDim + Tid;
  }
  bool is(const Expr *E, const IndexExpr &F) {
    return E && E->getType()->isIntegerType() && B.build(E) == F;
  }
  SymbolTable Syms;
  IndexExprBuilder B;
  IndexExpr Tid, Bid, BDim, Gid;
};

/// The kernel's parameter \p E names, or -1.
int paramIndex(const FunctionDecl *K, const Expr *E) {
  const auto *P = dyn_cast_or_null<ParmVarDecl>(varOf(E));
  if (!P)
    return -1;
  for (unsigned I = 0; I < K->getNumParams(); ++I)
    if (K->getParamDecl(I) == P)
      return I;
  return -1;
}

/// `p[idx]` with p a pointer parameter: its index, and \p Idx the index.
int paramElement(const FunctionDecl *K, const Expr *E, const Expr *&Idx) {
  const auto *A = dyn_cast_or_null<ArraySubscriptExpr>(strip(E));
  if (!A)
    return -1;
  int P = paramIndex(K, A->getBase());
  if (P < 0 || !K->getParamDecl(P)->getType()->isPointerType())
    return -1;
  Idx = A->getIdx();
  return P;
}

/// `a[idx]` of the shared array \p Array.
bool arrayElement(const Expr *E, const VarDecl *Array, const Expr *&Idx) {
  const auto *A = dyn_cast_or_null<ArraySubscriptExpr>(strip(E));
  if (!A || varOf(A->getBase()) != Array)
    return false;
  Idx = A->getIdx();
  return true;
}

/// `gid < n` (or `n > gid`) with n a scalar parameter: its index.
int belowCount(const FunctionDecl *K, KernelForms &F, const Expr *Cond) {
  const auto *BO = dyn_cast_or_null<BinaryOperator>(strip(Cond));
  if (!BO)
    return -1;
  const Expr *L = BO->getLHS(), *R = BO->getRHS();
  if (BO->getOpcode() == BO_GT)
    std::swap(L, R);
  else if (BO->getOpcode() != BO_LT)
    return -1;
  int P = paramIndex(K, R);
  if (P < 0 || !K->getParamDecl(P)->getType()->isIntegerType() ||
      !F.is(L, F.Gid))
    return -1;
  return P;
}

/// The one statement of an `if` without else, or null.
const Stmt *onlyThen(const IfStmt *If) {
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return nullptr;
  std::vector<const Stmt *> Body = statementsOf(If->getThen());
  return Body.size() == 1 ? Body[0] : nullptr;
}

/// A declaration of scalar locals initialised once and never changed, or
/// of the shared array \p Array.
bool isPlainDecl(ASTContext &Ctx, const DeclStmt *DS, const Stmt *Body,
                 const VarDecl *Array) {
  for (const Decl *D : DS->decls()) {
    const auto *V = dyn_cast<VarDecl>(D);
    if (!V)
      return false;
    if (V == Array)
      continue;
    if (!V->getType()->isIntegerType() || !V->getInit() ||
        !isNeverModifiedAfterInit(V, Body, Ctx))
      return false;
  }
  return true;
}

struct BlockScanRoles {
  unsigned Out = 0, Totals = 0, In = 0, Count = 0;
  const VarDecl *Array = nullptr;
  QualType Element;
};

/// The per-block scan kernel (1) of ScanRoutine.h.
Expected<BlockScanRoles> matchBlockScanKernel(ASTContext &Ctx,
                                              const KernelInfo &K) {
  std::string Name = "kernel '" + K.name() + "'";
  if (K.Template)
    return refuse(Name + " is a template");
  Expected<std::vector<SharedScan>> Scans = analyzeSharedScans(Ctx, K);
  if (!Scans)
    return Scans.takeError();
  if (Scans->size() != 1)
    return refuse(Name + " has more than one block-wide scan loop");
  const SharedScan &Sc = Scans->front();
  const FunctionDecl *KD = K.Decl;
  const auto *Body = cast<CompoundStmt>(KD->getBody());
  KernelForms F(Ctx, KD);
  BlockScanRoles R;
  R.Array = Sc.Array;
  R.Element = Sc.Element.getUnqualifiedType();
  int In = -1, Count = -1, Out = -1, Totals = -1;
  enum { Load, Barrier, Loop, Stores } Phase = Load;
  auto Refuse = [&](const Stmt *S, StringRef Why) {
    return refuse(Name + ": '" + shortText(Ctx, S) + "' " + Why +
                  " (cub-scan needs the per-block scan: load 'a[tid] = i < n "
                  "? in[i] : 0', barrier, scan loop, 'if (i < n) out[i] = "
                  "a[tid]', 'if (tid == blockDim.x - 1) totals[blockIdx.x] = "
                  "a[tid]')");
  };
  // `a[tid] = in[gid]` (with the count test outside) and `a[tid] = 0`.
  auto LoadOf = [&](const Stmt *S) -> int {
    const BinaryOperator *A = assignment(S);
    const Expr *Idx = nullptr, *InIdx = nullptr;
    if (!A || !arrayElement(A->getLHS(), Sc.Array, Idx) || !F.is(Idx, F.Tid))
      return -1;
    int P = paramElement(KD, A->getRHS(), InIdx);
    return P >= 0 && F.is(InIdx, F.Gid) ? P : -1;
  };
  auto ZeroFill = [&](const Stmt *S) {
    const BinaryOperator *A = assignment(S);
    const Expr *Idx = nullptr;
    return A && arrayElement(A->getLHS(), Sc.Array, Idx) && F.is(Idx, F.Tid) &&
           isAdditiveIdentity(Ctx, A->getRHS());
  };
  for (const Stmt *S : Body->body()) {
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      if (!isPlainDecl(Ctx, DS, Body, Sc.Array))
        return Refuse(S, "declares something other than the shared array "
                         "and integer locals set once");
      continue;
    }
    const Expr *E = dyn_cast<Expr>(S);
    switch (Phase) {
    case Load: {
      // a[tid] = gid < n ? in[gid] : 0;
      if (const BinaryOperator *A = assignment(E)) {
        const Expr *Idx = nullptr, *InIdx = nullptr;
        const auto *C =
            dyn_cast<ConditionalOperator>(A->getRHS()->IgnoreParenImpCasts());
        if (arrayElement(A->getLHS(), Sc.Array, Idx) && F.is(Idx, F.Tid) &&
            C && isAdditiveIdentity(Ctx, C->getFalseExpr())) {
          Count = belowCount(KD, F, C->getCond());
          In = paramElement(KD, C->getTrueExpr(), InIdx);
          if (Count >= 0 && In >= 0 && F.is(InIdx, F.Gid)) {
            Phase = Barrier;
            continue;
          }
        }
      }
      // if (gid < n) a[tid] = in[gid]; else a[tid] = 0;
      if (const auto *If = dyn_cast<IfStmt>(S)) {
        std::vector<const Stmt *> Then = statementsOf(If->getThen()),
                                  Else = statementsOf(If->getElse());
        Count = belowCount(KD, F, If->getCond());
        if (Count >= 0 && Then.size() == 1 && Else.size() == 1 &&
            (In = LoadOf(Then[0])) >= 0 && ZeroFill(Else[0])) {
          Phase = Barrier;
          continue;
        }
      }
      return Refuse(S, "is not the load of the block's elements padded with "
                       "zeros past n");
    }
    case Barrier:
      if (!isSyncThreads(E))
        return Refuse(S, "should be the barrier after the load");
      Phase = Loop;
      continue;
    case Loop:
      if (S != Sc.Loop)
        return Refuse(S, "should be the scan loop");
      Phase = Stores;
      continue;
    case Stores: {
      if (isSyncThreads(E))
        continue;
      const auto *If = dyn_cast<IfStmt>(S);
      const BinaryOperator *A = assignment(onlyThen(If));
      const Expr *Idx = nullptr, *OutIdx = nullptr;
      if (!A || !arrayElement(A->getRHS(), Sc.Array, Idx))
        return Refuse(S, "is neither the store of the scanned elements nor "
                         "of the block's total");
      int P = paramElement(KD, A->getLHS(), OutIdx);
      if (P < 0)
        return Refuse(S, "does not store to a parameter");
      // if (gid < n) out[gid] = a[tid];
      if (belowCount(KD, F, If->getCond()) == Count && F.is(OutIdx, F.Gid) &&
          F.is(Idx, F.Tid) && Out < 0) {
        Out = P;
        continue;
      }
      // if (tid == blockDim.x - 1) totals[blockIdx.x] = a[tid or bdim - 1];
      const auto *Eq = dyn_cast<BinaryOperator>(strip(If->getCond()));
      IndexExpr Last = F.BDim - IndexExpr::constant(1);
      if (Eq && Eq->getOpcode() == BO_EQ &&
          ((F.is(Eq->getLHS(), F.Tid) && F.is(Eq->getRHS(), Last)) ||
           (F.is(Eq->getRHS(), F.Tid) && F.is(Eq->getLHS(), Last))) &&
          F.is(OutIdx, F.Bid) && (F.is(Idx, F.Tid) || F.is(Idx, Last)) &&
          Totals < 0) {
        Totals = P;
        continue;
      }
      return Refuse(S, "is neither the store of the scanned elements nor of "
                       "the block's total");
    }
    }
  }
  if (Out < 0 || Totals < 0)
    return refuse(Name + " does not store both the scanned elements and the "
                         "block's total after its scan loop");
  if (Out == In || Out == Totals || In == Totals)
    return refuse(Name + " reads and writes the same parameter");
  for (int P : {Out, In, Totals}) {
    QualType T = KD->getParamDecl(P)->getType()->getPointeeType();
    if (!Ctx.hasSameUnqualifiedType(T, R.Element))
      return refuse(Name + ": '" + KD->getParamDecl(P)->getName() +
                    "' points to another type than the shared array's");
  }
  R.Out = Out;
  R.In = In;
  R.Totals = Totals;
  R.Count = Count;
  return R;
}

struct OffsetRoles {
  unsigned Out = 0, Offsets = 0, Count = 0;
  /// The chunk: a parameter, or a constant in the kernel.
  int ChunkParam = -1;
  std::optional<int64_t> ChunkValue;
};

/// The kernel (3) of ScanRoutine.h: `if (gid < n && gid >= chunk)
/// out[gid] += offsets[gid / chunk - 1];`.
Expected<OffsetRoles> matchOffsetKernel(ASTContext &Ctx, const KernelInfo &K) {
  std::string Name = "kernel '" + K.name() + "'";
  if (K.Template)
    return refuse(Name + " is a template");
  const FunctionDecl *KD = K.Decl;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(KD->getBody());
  if (!Body)
    return refuse(Name + " has no body");
  KernelForms F(Ctx, KD);
  OffsetRoles R;
  const IfStmt *Guarded = nullptr;
  for (const Stmt *S : Body->body()) {
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      if (!isPlainDecl(Ctx, DS, Body, nullptr))
        return refuse(Name + ": '" + shortText(Ctx, S) +
                      "' declares something other than integer locals");
      continue;
    }
    if (Guarded || !isa<IfStmt>(S))
      return refuse(Name + ": '" + shortText(Ctx, S) +
                    "' is not the one guarded update of the output");
    Guarded = cast<IfStmt>(S);
  }
  std::string Want = " (cub-scan needs 'if (i < n && i >= chunk) out[i] += "
                     "scanned[i / chunk - 1]' with i = blockIdx.x * blockDim.x "
                     "+ threadIdx.x)";
  if (!Guarded)
    return refuse(Name + " has no guarded update" + Want);
  // The chunk as written: a parameter or a constant.
  auto Chunk = [&](const Expr *E, int &Param, std::optional<int64_t> &Value) {
    Param = paramIndex(KD, E);
    if (Param >= 0)
      return KD->getParamDecl(Param)->getType()->isIntegerType() &&
             isNeverModifiedAfterInit(KD->getParamDecl(Param), Body, Ctx);
    Value = evaluateIntIn(E, Ctx, Body);
    return Value.has_value();
  };
  const auto *And = dyn_cast<BinaryOperator>(strip(Guarded->getCond()));
  if (!And || And->getOpcode() != BO_LAnd)
    return refuse(Name + "'s guard is not 'i < n && i >= chunk'" + Want);
  int Count = -1;
  const Expr *Lower = nullptr;
  for (const Expr *Side : {And->getLHS(), And->getRHS()}) {
    if (int P = belowCount(KD, F, Side); P >= 0 && Count < 0)
      Count = P;
    else
      Lower = Side;
  }
  const auto *Ge = dyn_cast_or_null<BinaryOperator>(strip(Lower));
  if (Count < 0 || !Ge || Ge->getOpcode() != BO_GE ||
      !F.is(Ge->getLHS(), F.Gid) ||
      !Chunk(Ge->getRHS(), R.ChunkParam, R.ChunkValue))
    return refuse(Name + "'s guard is not 'i < n && i >= chunk'" + Want);
  // out[gid] += offsets[gid / chunk - 1]  (or out[gid] = out[gid] + ...).
  const Stmt *Update = onlyThen(Guarded);
  const Expr *OutIdx = nullptr, *Added = nullptr;
  int Out = -1;
  if (const auto *CA = dyn_cast_or_null<CompoundAssignOperator>(Update);
      CA && CA->getOpcode() == BO_AddAssign) {
    Out = paramElement(KD, CA->getLHS(), OutIdx);
    Added = CA->getRHS();
  } else if (const BinaryOperator *A = assignment(Update)) {
    Out = paramElement(KD, A->getLHS(), OutIdx);
    const auto *Sum = dyn_cast<BinaryOperator>(strip(A->getRHS()));
    const Expr *SameIdx = nullptr;
    if (Sum && Sum->getOpcode() == BO_Add &&
        paramElement(KD, Sum->getLHS(), SameIdx) == Out && Out >= 0 &&
        F.is(SameIdx, F.Gid))
      Added = Sum->getRHS();
  }
  const Expr *OffIdx = nullptr;
  int Offsets = paramElement(KD, Added, OffIdx);
  if (Out < 0 || !F.is(OutIdx, F.Gid) || Offsets < 0 || Offsets == Out)
    return refuse(Name + "'s update is not 'out[i] += scanned[...]'" + Want);
  // gid / chunk - 1, the chunk the same as in the guard.
  const auto *Minus = dyn_cast<BinaryOperator>(strip(OffIdx));
  const auto *Div =
      Minus ? dyn_cast<BinaryOperator>(strip(Minus->getLHS())) : nullptr;
  std::optional<int64_t> One =
      Minus ? evaluateIntIn(Minus->getRHS(), Ctx, Body) : std::nullopt;
  int DivParam = -1;
  std::optional<int64_t> DivValue;
  if (!Minus || Minus->getOpcode() != BO_Sub || !One || *One != 1 || !Div ||
      Div->getOpcode() != BO_Div || !F.is(Div->getLHS(), F.Gid) ||
      !Chunk(Div->getRHS(), DivParam, DivValue) ||
      DivParam != R.ChunkParam || DivValue != R.ChunkValue)
    return refuse(Name + " adds scanned[" + shortText(Ctx, OffIdx) +
                  "], not the total of the blocks before, scanned[i / chunk "
                  "- 1]" + Want);
  const auto *OutT = KD->getParamDecl(Out)->getType()->getAs<PointerType>();
  const auto *OffT =
      KD->getParamDecl(Offsets)->getType()->getAs<PointerType>();
  if (!Ctx.hasSameUnqualifiedType(OutT->getPointeeType(),
                                  OffT->getPointeeType()))
    return refuse(Name + " adds offsets of another type than the output's");
  R.Out = Out;
  R.Offsets = Offsets;
  R.Count = Count;
  return R;
}

//===----------------------------------------------------------------------===//
// The host function
//===----------------------------------------------------------------------===//

/// Calls a scan function may make besides its launches and its recursion:
/// checks, its temporaries' allocation and release, synchronisation.
bool isHarmlessCall(StringRef N) {
  static const StringSet<> Names = {
      "cudaGetLastError", "cudaPeekAtLastError", "cudaDeviceSynchronize",
      "cudaGetErrorString", "cudaGetErrorName", "printf", "fprintf", "fputs",
      "puts", "exit", "abort", "_exit", "cudaMalloc", "cudaFree"};
  return Names.contains(N);
}

void collectCalls(const Stmt *S, std::vector<const CallExpr *> &Out) {
  if (!S)
    return;
  if (const auto *CE = dyn_cast<CallExpr>(S))
    Out.push_back(CE);
  for (const Stmt *C : S->children())
    collectCalls(C, Out);
}

/// The scalar a dim3 launch argument stands for (`blocks`, `dim3(blocks)`),
/// or null when it has a y or z other than 1.
const Expr *scalarDim(ASTContext &Ctx, const Expr *E) {
  while (E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(E))
      E = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(E))
      E = B->getSubExpr();
    else if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
      E = FC->getSubExpr();
    else
      break;
  }
  if (!E)
    return nullptr;
  if (E->getType()->isIntegerType())
    return E;
  const auto *CE = dyn_cast<CXXConstructExpr>(E);
  if (!CE || CE->getNumArgs() < 1)
    return nullptr;
  if (CE->getNumArgs() == 1 && !CE->getArg(0)->getType()->isIntegerType())
    return scalarDim(Ctx, CE->getArg(0));
  for (unsigned I = 1; I < CE->getNumArgs(); ++I) {
    const Expr *A = CE->getArg(I);
    Expr::EvalResult R;
    if (!isa<CXXDefaultArgExpr>(A) &&
        !(A->EvaluateAsInt(R, Ctx) && R.Val.getInt() == 1))
      return nullptr;
  }
  return CE->getArg(0);
}

/// \p E as a * N + b with N the variable \p N (a, b constants in \p Scope).
bool linearIn(ASTContext &Ctx, const Expr *E, const VarDecl *N,
              const Stmt *Scope, int64_t &A, int64_t &B) {
  E = strip(E);
  if (varOf(E) == N) {
    A = 1;
    B = 0;
    return true;
  }
  if (std::optional<int64_t> C = evaluateIntIn(E, Ctx, Scope)) {
    A = 0;
    B = *C;
    return true;
  }
  const auto *BO = dyn_cast_or_null<BinaryOperator>(E);
  int64_t A1, B1, A2, B2;
  if (!BO || (BO->getOpcode() != BO_Add && BO->getOpcode() != BO_Sub) ||
      !linearIn(Ctx, BO->getLHS(), N, Scope, A1, B1) ||
      !linearIn(Ctx, BO->getRHS(), N, Scope, A2, B2))
    return false;
  int64_t S = BO->getOpcode() == BO_Add ? 1 : -1;
  A = A1 + S * A2;
  B = B1 + S * B2;
  return true;
}

/// `(n + d - 1) / d` with d the constant \p D.
bool isCeilDiv(ASTContext &Ctx, const Expr *E, const VarDecl *N, int64_t D,
               const Stmt *Scope) {
  const auto *BO = dyn_cast_or_null<BinaryOperator>(strip(E));
  int64_t A, B;
  std::optional<int64_t> Den =
      BO ? evaluateIntIn(BO->getRHS(), Ctx, Scope) : std::nullopt;
  return BO && BO->getOpcode() == BO_Div && Den && *Den == D &&
         linearIn(Ctx, BO->getLHS(), N, Scope, A, B) && A == 1 && B == D - 1;
}

class RoutineMatcher {
public:
  RoutineMatcher(ASTContext &Ctx, const FunctionDecl *F,
                 const std::vector<KernelInfo> &Kernels)
      : Ctx(Ctx), F(F), Kernels(Kernels) {}

  Expected<ScanRoutine> match() {
    Name = "function '" + F->getNameAsString() + "'";
    const auto *Body = dyn_cast_or_null<CompoundStmt>(F->getBody());
    if (!Body)
      return refuse(Name + " has no body");
    this->Body = Body;
    if (F->isTemplated() || isa<CXXMethodDecl>(F))
      return refuse(Name + " is a template or a method");
    if (!F->getReturnType()->isVoidType() &&
        !F->getReturnType()->isIntegerType())
      return refuse(Name + " returns neither void nor an integer status");
    // Exactly two launches: the block scan and the offsets.
    std::vector<const CallExpr *> All;
    collectCalls(Body, All);
    std::vector<const CUDAKernelCallExpr *> Launches;
    for (const CallExpr *CE : All)
      if (const auto *KC = dyn_cast<CUDAKernelCallExpr>(CE))
        Launches.push_back(KC);
    if (Launches.size() != 2)
      return refuse(Name + " launches " + std::to_string(Launches.size()) +
                    " kernels, not a block scan and an offset addition");
    std::vector<const Stmt *> Top(Body->body_begin(), Body->body_end());
    for (size_t I = 0; I < Top.size(); ++I) {
      const Stmt *S = Top[I];
      if (const auto *RS = dyn_cast<ReturnStmt>(S)) {
        if (I + 1 != Top.size())
          return refuse(Name + " returns before its last statement");
        if (const Expr *V = RS->getRetValue()) {
          Expr::EvalResult R;
          if (!V->EvaluateAsInt(R, Ctx))
            return refuse(Name + " returns '" + shortText(Ctx, V) +
                          "', not a constant status");
          R_.SuccessValue = textOf(Ctx, V);
        }
        continue;
      }
      if (const auto *If = dyn_cast<IfStmt>(S); If && recursesIn(If)) {
        if (Error E = branch(If))
          return std::move(E);
        continue;
      }
      if (Error E = plainStatement(S, /*InBranch=*/false))
        return std::move(E);
    }
    if (R_.BlockKernel < 0)
      return refuse(Name + " launches no per-block scan at its top level");
    if (R_.OffsetKernel < 0)
      return refuse(Name + " does not scan the block totals recursively ('if "
                           "(blocks > 1) { " + F->getNameAsString() +
                    "(scanned, sums, blocks); add_offsets<<<...>>>(out, "
                    "scanned, chunk, n); }')");
    if (!F->getReturnType()->isVoidType() && R_.SuccessValue.empty())
      return refuse(Name + " does not end with 'return <status>;'");
    if (Error E = checkVariables())
      return std::move(E);
    R_.Function = F;
    return R_;
  }

private:
  bool recursesIn(const Stmt *S) const {
    std::vector<const CallExpr *> Calls;
    collectCalls(S, Calls);
    return any_of(Calls, [&](const CallExpr *CE) { return isSelf(CE); });
  }
  bool isSelf(const CallExpr *CE) const {
    const FunctionDecl *D = CE->getDirectCallee();
    return D && D->getCanonicalDecl() == F->getCanonicalDecl();
  }

  /// A declaration, a launch, or a statement whose calls are all harmless
  /// (checks, allocations of temporaries); \p InBranch: inside the
  /// recursion's branch.
  Error plainStatement(const Stmt *S, bool InBranch) {
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls()) {
        const auto *V = dyn_cast<VarDecl>(D);
        if (!V)
          return refuse(Name + ": '" + shortText(Ctx, S) +
                        "' declares something other than variables");
        if (V->getType()->isPointerType() &&
            (!V->getInit() || V->getInit()->isNullPointerConstant(
                                  Ctx, Expr::NPC_ValueDependentIsNotNull))) {
          Temps.insert(V);
          continue;
        }
        if (V->getType()->isIntegerType() && V->getInit() &&
            isNeverModifiedAfterInit(V, Body, Ctx))
          continue;
        return refuse(Name + ": '" + V->getName() + "' is neither an integer "
                      "set once nor a device temporary");
      }
      return Error::success();
    }
    const Expr *E = dyn_cast<Expr>(S);
    if (E)
      E = E->IgnoreImplicit();
    if (const auto *KC = dyn_cast_or_null<CUDAKernelCallExpr>(E))
      return InBranch ? offsetLaunch(KC) : blockLaunch(KC);
    std::vector<const CallExpr *> Calls;
    collectCalls(S, Calls);
    if (Calls.empty())
      return refuse(Name + ": '" + shortText(Ctx, S) + "' is not a launch, "
                    "an allocation, a free or an error check");
    bool Syncs = false;
    for (const CallExpr *CE : Calls) {
      StringRef N = calleeName(CE);
      if (!isHarmlessCall(N))
        return refuse(Name + ": '" + shortText(Ctx, S) + "' calls '" +
                      (N.empty() ? StringRef("an indirect function") : N) +
                      "', which cub-scan does not model");
      Syncs |= N == "cudaDeviceSynchronize";
      if (N == "cudaMalloc" && R_.CheckMacro.empty() && !SawMalloc) {
        SawMalloc = true;
        // `CK(cudaMalloc(...))`: the same wrapper around the new calls.
        std::string T = textOf(Ctx, S);
        size_t Paren = T.find('(');
        StringRef Head = StringRef(T).take_front(Paren).trim();
        if (Paren != std::string::npos && Head != "cudaMalloc" &&
            !Head.empty() &&
            all_of(Head, [](char C) { return isAlnum(C) || C == '_'; }) &&
            StringRef(T).drop_front(Paren + 1).ltrim().starts_with(
                "cudaMalloc"))
          R_.CheckMacro = Head.str();
      }
    }
    if (Syncs && !InBranch) {
      // A macro's invocation (`CK(cudaDeviceSynchronize())`) comes without
      // its `;`.
      R_.FinalSync = StringRef(textOf(Ctx, S)).rtrim().str();
      if (!StringRef(R_.FinalSync).ends_with(";") &&
          !StringRef(R_.FinalSync).ends_with("}"))
        R_.FinalSync += ";";
    }
    return Error::success();
  }

  Error blockLaunch(const CUDAKernelCallExpr *KC) {
    if (R_.BlockKernel >= 0)
      return refuse(Name + " launches two kernels at its top level");
    int KI = kernelOf(KC);
    if (KI < 0)
      return refuse(Name + " launches a kernel not defined in this file");
    Expected<BlockScanRoles> Roles = matchBlockScanKernel(Ctx, Kernels[KI]);
    if (!Roles)
      return Roles.takeError();
    const CallExpr *Config = KC->getConfig();
    if (!Config || Config->getNumArgs() < 2)
      return refuse(Name + ": the launch of the block scan has no "
                           "configuration");
    if (Config->getNumArgs() >= 3 && !isa<CXXDefaultArgExpr>(Config->getArg(2)))
      if (std::optional<int64_t> Sh = evaluateIntIn(Config->getArg(2), Ctx, Body);
          !Sh || *Sh != 0)
        return refuse(Name + ": the block scan is launched with dynamic "
                             "shared memory");
    if (Config->getNumArgs() >= 4 && !isa<CXXDefaultArgExpr>(Config->getArg(3)))
      if (std::optional<int64_t> St = evaluateIntIn(Config->getArg(3), Ctx, Body);
          !St || *St != 0)
        return refuse(Name + ": the block scan is launched on a stream");
    std::optional<int64_t> C =
        evaluateIntIn(scalarDim(Ctx, Config->getArg(1)), Ctx, Body);
    if (!C || *C < 2 || *C > 1024)
      return refuse(Name + ": the block scan's block size is not a constant "
                           "from 2 to 1024 threads along x");
    const auto *Arr = Ctx.getAsConstantArrayType(Roles->Array->getType());
    if (!Arr || Arr->getSize().getZExtValue() < static_cast<uint64_t>(*C))
      return refuse(Name + ": the shared array of kernel '" +
                    Kernels[KI].name() + "' is smaller than its block");
    // Its arguments: F's out, in and n, and a temporary for the totals.
    auto Arg = [&](unsigned P) { return KC->getArg(P); };
    const auto *Out = dyn_cast_or_null<ParmVarDecl>(varOf(Arg(Roles->Out)));
    const auto *In = dyn_cast_or_null<ParmVarDecl>(varOf(Arg(Roles->In)));
    N = dyn_cast_or_null<ParmVarDecl>(varOf(Arg(Roles->Count)));
    Sums = varOf(Arg(Roles->Totals));
    if (!Out || !In || !N || Out == In || !Sums || !Temps.contains(Sums))
      return refuse(Name + " does not pass its own output, input and count "
                           "and a temporary for the block totals to kernel '" +
                    Kernels[KI].name() + "'");
    // The grid: one block per chunk of n.
    const Expr *Grid = scalarDim(Ctx, Config->getArg(0));
    Blocks = varOf(Grid);
    const Expr *GridValue =
        Blocks && Blocks->getInit() && isNeverModifiedAfterInit(Blocks, Body, Ctx)
            ? Blocks->getInit()
            : Grid;
    if (!isCeilDiv(Ctx, GridValue, N, *C, Body))
      return refuse(Name + ": the block scan's grid is not (" +
                    N->getNameAsString() + " + " + std::to_string(*C) +
                    " - 1) / " + std::to_string(*C) + " blocks");
    if (GridValue == Grid)
      Blocks = nullptr;
    for (unsigned I = 0; I < F->getNumParams(); ++I) {
      if (F->getParamDecl(I) == Out)
        R_.Out = I;
      if (F->getParamDecl(I) == In)
        R_.In = I;
      if (F->getParamDecl(I) == N)
        R_.Count = I;
    }
    R_.Element = Roles->Element;
    R_.BlockKernel = KI;
    R_.Chunk = *C;
    return Error::success();
  }

  /// `if (blocks > 1) { ...; F(scanned, sums, blocks); add<<<>>>(...); }`.
  Error branch(const IfStmt *If) {
    if (R_.BlockKernel < 0)
      return refuse(Name + " recurses before it launches the block scan");
    if (If->getElse() || If->getInit() || If->getConditionVariable() ||
        recursesIn(If->getCond()))
      return refuse(Name + ": the recursion's 'if' has an else, an "
                           "initialiser or a call in its condition");
    // blocks > 1, blocks >= 2, 1 < blocks, n > chunk.
    const auto *C = dyn_cast<BinaryOperator>(strip(If->getCond()));
    bool Ok = false;
    if (C) {
      const Expr *L = C->getLHS(), *R = C->getRHS();
      BinaryOperatorKind Op = C->getOpcode();
      if (Op == BO_LT || Op == BO_LE) {
        std::swap(L, R);
        Op = Op == BO_LT ? BO_GT : BO_GE;
      }
      std::optional<int64_t> V = evaluateIntIn(R, Ctx, Body);
      bool IsBlocks = (Blocks && varOf(L) == Blocks) ||
                      isCeilDiv(Ctx, L, N, R_.Chunk, Body);
      Ok = V && ((IsBlocks && ((Op == BO_GT && *V == 1) ||
                               (Op == BO_GE && *V == 2))) ||
                 (varOf(L) == N && ((Op == BO_GT && *V == R_.Chunk) ||
                                    (Op == BO_GE && *V == R_.Chunk + 1))));
    }
    if (!Ok)
      return refuse(Name + ": the recursion runs under '" +
                    shortText(Ctx, If->getCond()) + "', not 'blocks > 1'");
    bool Recursed = false;
    for (const Stmt *S : statementsOf(If->getThen())) {
      if (recursesIn(S)) {
        if (Recursed)
          return refuse(Name + " calls itself twice");
        if (Error E = recursion(S))
          return E;
        Recursed = true;
        continue;
      }
      const Expr *E = dyn_cast<Expr>(S);
      if (E && isa<CUDAKernelCallExpr>(E->IgnoreImplicit()) && !Recursed)
        return refuse(Name + " launches a kernel before its recursive call");
      if (Error E = plainStatement(S, /*InBranch=*/true))
        return E;
    }
    if (R_.OffsetKernel < 0)
      return refuse(Name + " launches no offset addition after its "
                           "recursive call");
    return Error::success();
  }

  /// `F(scanned, sums, blocks);`, `CK(F(...))` or `if (F(...)) return 1;`.
  Error recursion(const Stmt *S) {
    std::vector<const CallExpr *> Calls;
    collectCalls(S, Calls);
    const CallExpr *Self = nullptr;
    for (const CallExpr *CE : Calls) {
      if (isSelf(CE)) {
        Self = CE;
        continue;
      }
      StringRef Callee = calleeName(CE);
      if (!isHarmlessCall(Callee) || Callee == "cudaMalloc" ||
          Callee == "cudaFree")
        return refuse(Name + ": '" + shortText(Ctx, S) + "' also calls '" +
                      Callee + "'");
    }
    if (Self->getNumArgs() != F->getNumParams())
      return refuse(Name + "'s recursive call passes default arguments");
    for (unsigned I = 0; I < F->getNumParams(); ++I) {
      if (I == R_.Out || I == R_.In || I == R_.Count)
        continue;
      return refuse(Name + " has parameters other than the output, the "
                           "input and the count");
    }
    Scanned = varOf(Self->getArg(R_.Out));
    const Expr *Count = Self->getArg(R_.Count);
    bool CountOk = (Blocks && varOf(Count) == Blocks) ||
                   isCeilDiv(Ctx, Count, N, R_.Chunk, Body);
    if (!Scanned || !Temps.contains(Scanned) || Scanned == Sums ||
        varOf(Self->getArg(R_.In)) != Sums || !CountOk)
      return refuse(Name + "'s recursive call does not scan the block totals "
                           "'" + (Sums ? Sums->getName() : "?") +
                    "' into a temporary of its own");
    return Error::success();
  }

  Error offsetLaunch(const CUDAKernelCallExpr *KC) {
    if (R_.OffsetKernel >= 0 || !Scanned)
      return refuse(Name + " launches a kernel in its recursion branch "
                           "other than the offset addition after the call");
    int KI = kernelOf(KC);
    if (KI < 0)
      return refuse(Name + " launches a kernel not defined in this file");
    Expected<OffsetRoles> Roles = matchOffsetKernel(Ctx, Kernels[KI]);
    if (!Roles)
      return Roles.takeError();
    const CallExpr *Config = KC->getConfig();
    if (!Config || Config->getNumArgs() < 2 ||
        (Config->getNumArgs() >= 4 &&
         !isa<CXXDefaultArgExpr>(Config->getArg(3))))
      return refuse(Name + ": the offset addition is launched on a stream or "
                           "without a configuration");
    if (varOf(KC->getArg(Roles->Out)) != F->getParamDecl(R_.Out) ||
        varOf(KC->getArg(Roles->Offsets)) != Scanned ||
        varOf(KC->getArg(Roles->Count)) != N)
      return refuse(Name + " does not pass its output, the scanned totals "
                           "and its count to kernel '" +
                    Kernels[KI].name() + "'");
    std::optional<int64_t> Chunk =
        Roles->ChunkParam >= 0
            ? evaluateIntIn(KC->getArg(Roles->ChunkParam), Ctx, Body)
            : Roles->ChunkValue;
    if (!Chunk || *Chunk != R_.Chunk)
      return refuse(Name + ": kernel '" + Kernels[KI].name() +
                    "' adds totals per " +
                    (Chunk ? std::to_string(*Chunk) : std::string("?")) +
                    " elements, the block scan scans " +
                    std::to_string(R_.Chunk));
    // Its grid covers n: (n + b - 1) / b blocks of b, or the scan's grid.
    std::optional<int64_t> B =
        evaluateIntIn(scalarDim(Ctx, Config->getArg(1)), Ctx, Body);
    const Expr *Grid = scalarDim(Ctx, Config->getArg(0));
    bool Covers =
        B && *B > 0 &&
        (isCeilDiv(Ctx, Grid, N, *B, Body) ||
         (*B == R_.Chunk &&
          ((Blocks && varOf(Grid) == Blocks) ||
           isCeilDiv(Ctx, Grid, N, R_.Chunk, Body))));
    if (!Covers)
      return refuse(Name + ": the offset addition's grid does not cover '" +
                    N->getNameAsString() + "' threads");
    R_.OffsetKernel = KI;
    return Error::success();
  }

  /// Parameters never reassigned; temporaries written only by cudaMalloc.
  Error checkVariables() {
    for (unsigned I : {R_.Out, R_.In, R_.Count})
      if (!isNeverModifiedAfterInit(F->getParamDecl(I), Body, Ctx) &&
          !(F->getParamDecl(I)->getType()->isPointerType() &&
            onlyPassed(F->getParamDecl(I))))
        return refuse(Name + " changes its parameter '" +
                      F->getParamDecl(I)->getName() + "'");
    for (const VarDecl *T : Temps)
      if (!onlyPassed(T))
        return refuse(Name + " changes its temporary '" + T->getName() +
                      "' other than by cudaMalloc");
    QualType OutT = F->getParamDecl(R_.Out)->getType()->getPointeeType();
    QualType InT = F->getParamDecl(R_.In)->getType()->getPointeeType();
    if (!Ctx.hasSameUnqualifiedType(OutT, R_.Element) ||
        !Ctx.hasSameUnqualifiedType(InT, R_.Element) ||
        OutT.isConstQualified())
      return refuse(Name + "'s output and input are not both '" +
                    R_.Element.getAsString() + "'");
    return Error::success();
  }

  /// \p V is never assigned and its address is only taken by cudaMalloc.
  bool onlyPassed(const VarDecl *V) {
    class Uses : public RecursiveASTVisitor<Uses> {
    public:
      explicit Uses(const VarDecl *V) : V(V) {}
      bool VisitCallExpr(CallExpr *CE) {
        if (calleeName(CE) == "cudaMalloc" && CE->getNumArgs() >= 1)
          Allowed.insert(strip(CE->getArg(0)));
        return true;
      }
      bool VisitBinaryOperator(BinaryOperator *B) {
        Bad |= B->isAssignmentOp() && varOf(B->getLHS()) == V;
        return true;
      }
      bool VisitUnaryOperator(UnaryOperator *U) {
        if (varOf(U->getSubExpr()) != V)
          return true;
        Bad |= U->isIncrementDecrementOp();
        if (U->getOpcode() == UO_AddrOf)
          AddrOf.push_back(U);
        return true;
      }
      const VarDecl *V;
      bool Bad = false;
      SmallPtrSet<const Expr *, 4> Allowed;
      std::vector<const UnaryOperator *> AddrOf;
    } U(V);
    U.TraverseStmt(const_cast<CompoundStmt *>(Body));
    if (U.Bad)
      return false;
    for (const UnaryOperator *A : U.AddrOf)
      if (!U.Allowed.contains(A))
        return false;
    return true;
  }

  int kernelOf(const CUDAKernelCallExpr *KC) const {
    for (unsigned I = 0; I < Kernels.size(); ++I)
      for (const LaunchSite &L : Kernels[I].Launches)
        if (L.Call == KC)
          return I;
    return -1;
  }

  ASTContext &Ctx;
  const FunctionDecl *F;
  const std::vector<KernelInfo> &Kernels;
  const CompoundStmt *Body = nullptr;
  std::string Name;
  ScanRoutine R_;
  SmallPtrSet<const VarDecl *, 4> Temps;
  const ParmVarDecl *N = nullptr;
  const VarDecl *Sums = nullptr, *Scanned = nullptr, *Blocks = nullptr;
  bool SawMalloc = false;
};

} // namespace

Expected<ScanRoutine> matchScanRoutine(ASTContext &Ctx, const FunctionDecl *F,
                                       const std::vector<KernelInfo> &Kernels) {
  if (!F)
    return refuse("no function");
  if (const FunctionDecl *Def = F->getDefinition())
    F = Def;
  return RoutineMatcher(Ctx, F, Kernels).match();
}

} // namespace cuda_opt
