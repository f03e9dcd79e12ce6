//===- FuseLaunches.cpp - Two back-to-back map launches become one --------===//
//
// Part of cuda-opt.
//
// fuse-launches rewrites the launch of a one-element-per-thread kernel and
// the launch that follows it in the same host region (only error checks
// between them), when both map the same 1-D index space:
//
//   scale<<<(n + 255) / 256, 256>>>(tmp, x, alpha, n);
//   CK(cudaGetLastError());
//   bias_relu<<<(n + 255) / 256, 256>>>(y, tmp, beta, n);
//
// into one launch of a new kernel that does both kernels' work per element:
//
//   __global__ void scale_bias_relu(const float *x, float alpha, float *y,
//                                   float beta, int n) {
//     int i = blockIdx.x * blockDim.x + threadIdx.x;
//     if (i < n) {
//       float tmp_i = alpha * x[i];
//       y[i] = fmaxf(tmp_i + beta, 0.0f);
//     }
//   }
//
// Legality (each refusal says which rule failed):
//  * both kernels have the one-element-per-thread shape over .x with the
//    same index type and guard form, and their bounds are passed the same
//    host expression; the two launches have the same grid and block text,
//    no shared memory or stream arguments, and no side effects;
//  * no barrier, shared memory, atomic, warp shuffle, call of a function
//    whose body is not analysed, or `return` inside the work;
//  * every pointer the kernels access is a host variable that only ever
//    holds its own cudaMalloc result (so two names are two allocations),
//    and a buffer that one kernel writes and the other accesses is
//    accessed by both only at the thread's own index `p[i]`. Then every
//    element such a buffer shares between the kernels is touched by one
//    thread, in the original order, so the fused kernel computes what the
//    two launches did.
// A buffer the first kernel writes once (`tmp[i] = e;`, a top-level
// statement of its work) and only the second kernel reads, and that the
// host function names nowhere else except its cudaMalloc and cudaFree, is
// dead after the pair: its element is kept in a local instead of memory.
// The original kernels stay in the file.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/HostRegions.h"
#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Analysis/LaunchAliasing.h"
#include "cuda-opt/Analysis/ThreadMapping.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"
#include "cuda-opt/Transforms/Utils/SourceEdits.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

using Edit = std::pair<SourceRange, std::string>;

/// One parameter of the fused kernel and the host expression it is passed.
struct FusedParam {
  std::string Name, Type, Arg;
  const ParmVarDecl *Decl = nullptr; ///< The first kernel parameter it feeds.
};

struct FuseLaunchesPlan : TransformPlan {
  const CUDAKernelCallExpr *First = nullptr, *Second = nullptr;
  std::string KernelText; ///< The fused kernel's definition.
  std::string LaunchText; ///< Replaces the first launch expression.
  SourceLocation InsertAfter; ///< End of the later kernel's definition.
};

/// One of the two kernels being fused, with what the rewrite needs.
struct Part {
  const KernelInfo *K = nullptr;
  const CUDAKernelCallExpr *Call = nullptr;
  ThreadMapping M;
  KernelModel Model;
  /// The host variable each pointer parameter is passed (null: a scalar
  /// argument or not a plain variable).
  DenseMap<const ParmVarDecl *, const VarDecl *> BufferOf;
  /// The statements of the work (inside the guard's braces).
  SmallVector<const Stmt *, 8> Work;
  StringSet<> Locals;
  /// The second kernel of a map -> consumer fusion (a reduction, say): any
  /// kernel, kept whole after the map's work; M is empty.
  bool Consumer = false;
};

const Expr *strip(const Expr *E) {
  return E ? E->IgnoreParenImpCasts() : nullptr;
}

std::string squeeze(StringRef S) {
  std::string Out;
  for (char C : S)
    if (!isspace(static_cast<unsigned char>(C)))
      Out += C;
  return Out;
}

/// The work's statements without the braces of `if (i < n) { ... }`.
SmallVector<const Stmt *, 8> workStatements(const ThreadMapping &M) {
  SmallVector<const Stmt *, 8> Out;
  if (!M.EarlyReturn && M.Body.size() == 1)
    if (const auto *CS = dyn_cast<CompoundStmt>(M.Body.front())) {
      Out.append(CS->body_begin(), CS->body_end());
      return Out;
    }
  Out.append(M.Body.begin(), M.Body.end());
  return Out;
}

/// What the work contains that fusion cannot keep in order.
class WorkScan : public RecursiveASTVisitor<WorkScan> {
public:
  WorkScan(const VarDecl *Index, bool AllowReturn)
      : Index(Index), AllowReturn(AllowReturn) {}
  bool VisitReturnStmt(ReturnStmt *) {
    if (!AllowReturn)
      Problem = Problem.empty() ? "a 'return' inside its work" : Problem;
    return true;
  }
  bool VisitVarDecl(VarDecl *V) {
    Locals.insert(V->getName());
    return true;
  }
  bool VisitBinaryOperator(BinaryOperator *B) {
    if (Index && B->isAssignmentOp() && refersTo(B->getLHS(), Index))
      Problem = "an assignment to its index '" + Index->getName().str() + "'";
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *U) {
    if (Index && U->isIncrementDecrementOp() &&
        refersTo(U->getSubExpr(), Index))
      Problem = "an assignment to its index '" + Index->getName().str() + "'";
    return true;
  }
  const VarDecl *Index;
  bool AllowReturn;
  std::string Problem;
  StringSet<> Locals;
};

/// The subscript assigned by a statement `p[e] = v;` (a built-in assignment
/// or a class type's operator=, as for __half), or null.
const ArraySubscriptExpr *assignedSubscript(const Stmt *S) {
  const Expr *LHS = nullptr;
  if (const auto *E = dyn_cast<Expr>(S))
    S = E->IgnoreImplicit(); // The cleanups of `p[i] = __hmul(a, b);`.
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    if (BO->getOpcode() == BO_Assign)
      LHS = BO->getLHS();
  } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S)) {
    if (OC->getOperator() == OO_Equal && OC->getNumArgs() == 2)
      LHS = OC->getArg(0);
  }
  return LHS ? dyn_cast<ArraySubscriptExpr>(LHS->IgnoreParenImpCasts())
             : nullptr;
}

/// The assigned value of a statement found by assignedSubscript.
const Expr *assignedValue(const Stmt *S) {
  if (const auto *E = dyn_cast<Expr>(S))
    S = E->IgnoreImplicit();
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    return BO->getRHS();
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S))
    return OC->getArg(1);
  return nullptr;
}

/// When \p E is a multiplication the compiler may contract into a later
/// addition (`a * b`, `__hmul(a, b)`), the round-to-nearest function that
/// it may not contract, and the two operands.
std::optional<std::tuple<std::string, const Expr *, const Expr *>>
contractibleProduct(const Expr *E) {
  E = E->IgnoreImplicit()->IgnoreParens()->IgnoreImplicit();
  auto Half = [](QualType T) -> std::string {
    std::string N = T.getUnqualifiedType().getCanonicalType().getAsString();
    if (StringRef(N).ends_with("__half") ||
        StringRef(N).ends_with("__nv_bfloat16"))
      return "__hmul_rn";
    if (StringRef(N).ends_with("__half2") ||
        StringRef(N).ends_with("__nv_bfloat162"))
      return "__hmul2_rn";
    return "";
  };
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->getOpcode() != BO_Mul)
      return std::nullopt;
    const BuiltinType *BT = BO->getType()->getAs<BuiltinType>();
    if (BT && BT->getKind() == BuiltinType::Float)
      return std::make_tuple(std::string("__fmul_rn"), BO->getLHS(),
                             BO->getRHS());
    if (BT && BT->getKind() == BuiltinType::Double)
      return std::make_tuple(std::string("__dmul_rn"), BO->getLHS(),
                             BO->getRHS());
    return std::nullopt;
  }
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
    std::string F = Half(OC->getType());
    if (OC->getOperator() == OO_Star && OC->getNumArgs() == 2 && !F.empty())
      return std::make_tuple(F, OC->getArg(0), OC->getArg(1));
    return std::nullopt;
  }
  if (const auto *CE = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *F = CE->getDirectCallee();
    if (!F || !F->getDeclName().isIdentifier() || CE->getNumArgs() != 2)
      return std::nullopt;
    if (F->getName() == "__hmul" || F->getName() == "__hmul2")
      return std::make_tuple(F->getName().str() + "_rn", CE->getArg(0),
                             CE->getArg(1));
  }
  return std::nullopt;
}

/// \p In lies inside \p Out (both token ranges).
bool within(const SourceManager &SM, SourceRange In, SourceRange Out) {
  SourceLocation IB = SM.getExpansionLoc(In.getBegin()),
                 IE = SM.getExpansionLoc(In.getEnd()),
                 OB = SM.getExpansionLoc(Out.getBegin()),
                 OE = SM.getExpansionLoc(Out.getEnd());
  return !SM.isBeforeInTranslationUnit(IB, OB) &&
         !SM.isBeforeInTranslationUnit(OE, IE);
}

/// `p[i]` with \p Index the thread's own index.
bool atOwnIndex(const MemoryAccess &A, const VarDecl *Index) {
  const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(A.E);
  return AS && refersTo(AS->getIdx(), Index);
}

class FuseLaunches : public TransformWithPlan<FuseLaunchesPlan> {
public:
  StringRef getName() const override { return "fuse-launches"; }
  StringRef getSummary() const override {
    return "fuse a map kernel's launch with the next launch over the same "
           "elements into one kernel (host region rewrite)";
  }
  bool changesLaunchConfig(const ParamValues &) const override { return true; }
  bool rewritesHostRegion() const override { return true; }
  /// Each element's operations stay as they were: a value handed from the
  /// first kernel to the second keeps its rounding (roundHandedOver).
  FpEffect fpEffect(const ParamValues &) const override {
    return FpEffect::Preserves;
  }

  Expected<FuseLaunchesPlan> makePlan(const KernelTarget &T,
                                      const ParamValues &) const override {
    std::vector<KernelInfo> Kernels = findKernels(T.Ctx);
    std::vector<HostRegion> Regions = findHostRegions(T.Ctx, Kernels);
    std::string FirstWhy;
    bool SawLaunch = false;
    for (const HostRegion &R : Regions)
      for (size_t S = 0; S < R.Steps.size(); ++S) {
        const RegionStep &St = R.Steps[S];
        if (St.Kind != RegionStep::Launch ||
            Kernels[St.Kernel].Decl != T.Kernel.Decl)
          continue;
        SawLaunch = true;
        size_t Next = S + 1;
        while (Next < R.Steps.size() &&
               R.Steps[Next].Kind == RegionStep::Check)
          ++Next;
        std::string Why;
        if (Next == R.Steps.size() ||
            R.Steps[Next].Kind != RegionStep::Launch) {
          Why = "its launch at " + describeLocation(T.getSourceManager(),
                                                    St.S->getBeginLoc()) +
                " is not followed by another launch in its host region";
        } else {
          Expected<FuseLaunchesPlan> P =
              planPair(T.Ctx, Kernels, R, S, Next);
          if (P)
            return P;
          Why = toString(P.takeError());
        }
        if (FirstWhy.empty())
          FirstWhy = Why;
      }
    if (!SawLaunch)
      return refuse("kernel '" + T.Kernel.name() +
                    "' is not launched in a host region of two or more "
                    "launches (cuda-opt --list-regions shows them)");
    return refuse(FirstWhy);
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const FuseLaunchesPlan &P) const override {
    const SourceManager &SM = T.getSourceManager();
    tooling::Replacements R;
    CharSourceRange First = CharSourceRange::getTokenRange(
        SM.getExpansionLoc(P.First->getBeginLoc()),
        SM.getExpansionLoc(P.First->getEndLoc()));
    if (Error E = R.add(tooling::Replacement(SM, First, P.LaunchText)))
      return std::move(E);
    Expected<CharSourceRange> Second = statementRange(T.Ctx, P.Second);
    if (!Second)
      return Second.takeError();
    // The whole line when the launch is alone on it.
    CharSourceRange Gone = *Second;
    {
      unsigned B = SM.getFileOffset(Gone.getBegin());
      unsigned E = SM.getFileOffset(Gone.getEnd());
      StringRef Buf = SM.getBufferData(SM.getFileID(Gone.getBegin()));
      unsigned LineStart = B;
      while (LineStart > 0 && (Buf[LineStart - 1] == ' ' ||
                               Buf[LineStart - 1] == '\t'))
        --LineStart;
      unsigned LineEnd = E;
      while (LineEnd < Buf.size() &&
             (Buf[LineEnd] == ' ' || Buf[LineEnd] == '\t'))
        ++LineEnd;
      if ((LineStart == 0 || Buf[LineStart - 1] == '\n') &&
          LineEnd < Buf.size() && Buf[LineEnd] == '\n')
        Gone = CharSourceRange::getCharRange(
            Gone.getBegin().getLocWithOffset(
                -static_cast<int>(B - LineStart)),
            Gone.getEnd().getLocWithOffset(LineEnd + 1 - E));
    }
    if (Error E = R.add(tooling::Replacement(SM, Gone, "")))
      return std::move(E);
    if (Error E = R.add(tooling::Replacement(SM, P.InsertAfter, 0,
                                             "\n\n" + P.KernelText)))
      return std::move(E);
    return R;
  }

private:
  /// The launch step \p St of \p R: its kernel, launch and the host
  /// variable passed for each pointer parameter.
  Expected<Part> launchedPart(ASTContext &Ctx,
                              const std::vector<KernelInfo> &Ks,
                              const HostRegion &R,
                              const RegionStep &St) const {
    Part P;
    P.K = &Ks[St.Kernel];
    std::string Name = P.K->name();
    const Expr *S = St.S ? dyn_cast<Expr>(St.S) : nullptr;
    if (const auto *EWC = dyn_cast_or_null<ExprWithCleanups>(S))
      S = EWC->getSubExpr();
    P.Call = dyn_cast_or_null<CUDAKernelCallExpr>(S);
    if (!P.Call)
      return refuse("the launch of '" + Name +
                    "' is not a statement of its own");
    if (P.K->Template)
      return refuse("'" + Name + "' is a template kernel");
    if (!P.K->DeviceLaunches.empty())
      return refuse("'" + Name + "' is also launched from device code");
    const FunctionDecl *FD = P.K->Decl;
    if (P.Call->getNumArgs() != FD->getNumParams())
      return refuse("the launch of '" + Name + "' passes " +
                    Twine(P.Call->getNumArgs()) + " arguments for " +
                    Twine(FD->getNumParams()) + " parameters");
    for (unsigned I = 0; I < FD->getNumParams(); ++I) {
      if (P.Call->getArg(I)->HasSideEffects(Ctx))
        return refuse("an argument of the launch of '" + Name +
                      "' has side effects");
      if (I < St.Args.size() && St.Args[I] >= 0)
        P.BufferOf[FD->getParamDecl(I)] = R.Buffers[St.Args[I]].Var;
    }
    P.Model = buildKernelModel(Ctx, *P.K);
    return P;
  }

  Expected<Part> makePart(ASTContext &Ctx, const std::vector<KernelInfo> &Ks,
                          const HostRegion &R, const RegionStep &St) const {
    Expected<Part> Base = launchedPart(Ctx, Ks, R, St);
    if (!Base)
      return Base.takeError();
    Part &P = *Base;
    std::string Name = P.K->name();
    Expected<ThreadMapping> M = analyzeThreadMapping(Ctx, *P.K);
    if (!M)
      return refuse("'" + Name + "': " + toString(M.takeError()));
    if (M->rank() != 1)
      return refuse("'" + Name + "' maps a 2-D index space (only 1-D maps "
                    "are fused)");
    P.M = std::move(*M);
    if (!P.Model.Barriers.empty())
      return refuse("'" + Name + "' synchronises threads (" +
                    P.Model.Barriers.front().Kind + ")");
    if (!P.Model.Atomics.empty())
      return refuse("'" + Name + "' uses atomics");
    if (!P.Model.Shuffles.empty())
      return refuse("'" + Name + "' exchanges values between threads (" +
                    P.Model.Shuffles.front().Op + ")");
    if (!P.Model.Calls.empty())
      return refuse("'" + Name + "' calls '" + P.Model.Calls.front() +
                    "', whose memory accesses cuda-opt does not see");
    for (const MemoryAccess &A : P.Model.Accesses) {
      if (A.Space == MemorySpace::Shared)
        return refuse("'" + Name + "' uses shared memory");
      if (A.Space == MemorySpace::Constant && A.Kind == AccessKind::Read)
        continue;
      const auto *PD = dyn_cast_or_null<ParmVarDecl>(A.BaseDecl);
      if (!PD)
        return refuse("'" + Name + "' accesses '" + A.Base +
                      "', which is not a pointer parameter");
      if (A.Kind != AccessKind::Read && A.Kind != AccessKind::Write)
        return refuse("'" + Name + "' reads and writes '" + A.Text +
                      "' in one operation");
    }
    P.Work = workStatements(P.M);
    WorkScan Scan(P.M.x().Var, /*AllowReturn=*/false);
    for (const Stmt *S : P.Work)
      Scan.TraverseStmt(const_cast<Stmt *>(S));
    if (!Scan.Problem.empty())
      return refuse("'" + Name + "' has " + Scan.Problem);
    P.Locals = std::move(Scan.Locals);
    for (const Stmt *S : P.Work)
      if (inMacro(S->getSourceRange()))
        return refuse("the work of '" + Name + "' is written in a macro");
    // Nothing but the index, the guard and the work: a statement before
    // the guard (a local the work reads) would be left behind.
    for (const Stmt *S : cast<CompoundStmt>(P.K->Decl->getBody())->body()) {
      if (S == P.M.x().Decl || S == P.M.Guard || is_contained(P.M.Body, S) ||
          isa<NullStmt>(S))
        continue;
      return refuse("'" + Name + "' has a statement outside its guarded work "
                    "at " + describeLocation(Ctx.getSourceManager(),
                                             S->getBeginLoc()));
    }
    return Base;
  }

  /// The second kernel of a map -> consumer fusion: any kernel whose
  /// memory the analysis sees (its body is kept whole).
  Expected<Part> makeConsumer(ASTContext &Ctx,
                              const std::vector<KernelInfo> &Ks,
                              const HostRegion &R,
                              const RegionStep &St) const {
    Expected<Part> Base = launchedPart(Ctx, Ks, R, St);
    if (!Base)
      return Base.takeError();
    Part &P = *Base;
    P.Consumer = true;
    std::string Name = P.K->name();
    if (!P.Model.Calls.empty())
      return refuse("'" + Name + "' calls '" + P.Model.Calls.front() +
                    "', whose memory accesses cuda-opt does not see");
    for (const MemoryAccess &A : P.Model.Accesses)
      if (A.Space == MemorySpace::Global && !isa_and_nonnull<ParmVarDecl>(A.BaseDecl))
        return refuse("'" + Name + "' accesses '" + A.Base +
                      "', which is not a pointer parameter");
    const auto *Body = cast<CompoundStmt>(P.K->Decl->getBody());
    P.Work.append(Body->body_begin(), Body->body_end());
    WorkScan Scan(nullptr, /*AllowReturn=*/true);
    // (Its text is taken between the braces: `__shared__` is a macro.)
    for (const Stmt *S : P.Work)
      Scan.TraverseStmt(const_cast<Stmt *>(S));
    P.Locals = std::move(Scan.Locals);
    return Base;
  }

  /// The read \p AS of the consumer \p B is `t[j]` with j the global index
  /// over .x, and sits where `j < N` holds (an `if` or `?:` condition, or a
  /// conjunct of one) with N passed \p Bound: the element the map's thread
  /// j wrote.
  const VarDecl *readOfOwnMappedElement(ASTContext &Ctx, const Part &B,
                                        const ArraySubscriptExpr *AS,
                                        StringRef Bound) const {
    const auto *JRef = dyn_cast<DeclRefExpr>(strip(AS->getIdx()));
    const auto *J = JRef ? dyn_cast<VarDecl>(JRef->getDecl()) : nullptr;
    if (!J)
      return nullptr;
    bool Global = any_of(B.Model.ThreadIndices, [&](const ThreadIndexVar &T) {
      return T.Decl == J && T.Role == "global linear index x";
    });
    if (!Global)
      return nullptr;
    // j is never assigned after its declaration.
    WorkScan Assign(J, /*AllowReturn=*/true);
    for (const Stmt *S : B.Work)
      Assign.TraverseStmt(const_cast<Stmt *>(S));
    if (!Assign.Problem.empty())
      return nullptr;
    auto Guards = [&](const Expr *Cond) {
      SmallVector<const Expr *, 4> Leaves;
      std::function<void(const Expr *)> Flatten = [&](const Expr *E) {
        E = strip(E);
        if (const auto *BO = dyn_cast<BinaryOperator>(E))
          if (BO->getOpcode() == BO_LAnd) {
            Flatten(BO->getLHS());
            Flatten(BO->getRHS());
            return;
          }
        Leaves.push_back(E);
      };
      Flatten(Cond);
      for (const Expr *L : Leaves)
        if (const auto *C = dyn_cast<BinaryOperator>(L))
          if (C->getOpcode() == BO_LT && refersTo(C->getLHS(), J))
            if (const auto *N = dyn_cast<DeclRefExpr>(strip(C->getRHS())))
              if (const auto *PD = dyn_cast<ParmVarDecl>(N->getDecl()))
                if (squeeze(sourceText(
                        Ctx, B.Call->getArg(PD->getFunctionScopeIndex())
                                 ->getSourceRange())) == Bound)
                  return true;
      return false;
    };
    DynTypedNode Child = DynTypedNode::create(*AS);
    for (unsigned Depth = 0; Depth < 32; ++Depth) {
      DynTypedNodeList Parents = Ctx.getParents(Child);
      if (Parents.size() != 1)
        return nullptr;
      const DynTypedNode &P = Parents[0];
      if (const auto *CO = P.get<ConditionalOperator>()) {
        if (CO->getTrueExpr() == Child.get<Expr>() && Guards(CO->getCond()))
          return J;
      } else if (const auto *If = P.get<IfStmt>()) {
        if (If->getThen() == Child.get<Stmt>() && Guards(If->getCond()))
          return J;
      } else if (P.get<FunctionDecl>()) {
        return nullptr;
      }
      Child = P;
    }
    return nullptr;
  }

  /// Map -> consumer: \p A's work is one store `t[i] = e;` into a dead
  /// buffer that the consumer \p B reads only at the element A's thread of
  /// the same index wrote. The fused kernel is B with each such read
  /// replaced by `e` at B's index (B keeps its shape, so the rewrites that
  /// know it, block-reduce for a reduction, still apply).
  Expected<FuseLaunchesPlan> planConsumer(ASTContext &Ctx,
                                          const HostRegion &R, const Part &A,
                                          const Part &B,
                                          StringRef Pair) const {
    std::string Why = launchMismatch(Ctx, A, B);
    if (!Why.empty())
      return refuse(Pair + Why);
    std::optional<std::string> Bound = boundArg(Ctx, A);
    if (!Bound)
      return refuse(Pair + "the map's bound is not a parameter");
    const VarDecl *T = nullptr;
    for (const MemoryAccess &M : A.Model.Accesses) {
      if (M.Kind != AccessKind::Write)
        continue;
      const VarDecl *V =
          A.BufferOf.lookup(dyn_cast_or_null<ParmVarDecl>(M.BaseDecl));
      if (!V || (T && T != V))
        return refuse(Pair + "the map writes more than one buffer");
      if (T)
        return refuse(Pair + "the map writes '" + V->getName().str() +
                      "' twice");
      T = V;
    }
    if (!T)
      return refuse(Pair + "the map writes nothing");
    if (A.Work.size() != 1 || !A.Locals.empty())
      return refuse(Pair + "the map's work is more than one store");
    if (!topLevelStore(A, T) ||
        !onlyAllocatedAndPassed(Ctx, R.Host, T, {A.Call, B.Call}))
      return refuse(Pair + "'" + T->getName().str() +
                    "' is needed after the two launches (or not stored as "
                    "'t[i] = e;')");
    SmallPtrSet<const VarDecl *, 8> ReadByA, All;
    for (const MemoryAccess &M : A.Model.Accesses)
      if (const VarDecl *V =
              A.BufferOf.lookup(dyn_cast_or_null<ParmVarDecl>(M.BaseDecl))) {
        All.insert(V);
        if (M.Kind == AccessKind::Read)
          ReadByA.insert(V);
      }
    bool ReadsT = false;
    const VarDecl *J = nullptr;
    for (const MemoryAccess &M : B.Model.Accesses) {
      const auto *PD = dyn_cast_or_null<ParmVarDecl>(M.BaseDecl);
      const VarDecl *V = PD ? B.BufferOf.lookup(PD) : nullptr;
      if (!PD || M.Space != MemorySpace::Global)
        continue;
      if (!V)
        return refuse(Pair + "'" + B.K->name() + "' is passed something "
                      "other than a buffer variable for '" +
                      PD->getName().str() + "'");
      All.insert(V);
      if (V == T) {
        const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(M.E);
        const VarDecl *ReadAt =
            M.Kind == AccessKind::Read && AS
                ? readOfOwnMappedElement(Ctx, B, AS, *Bound)
                : nullptr;
        if (!ReadAt || (J && J != ReadAt))
          return refuse(Pair + "'" + B.K->name() + "' accesses '" +
                        M.Text + "' other than as the element its thread's "
                        "global index names, under 'j < " + *Bound + "'");
        J = ReadAt;
        ReadsT = true;
      } else if (M.Kind != AccessKind::Read && ReadByA.count(V)) {
        return refuse(Pair + "'" + B.K->name() + "' writes '" +
                      V->getName().str() + "', which the map reads");
      }
    }
    if (!ReadsT)
      return refuse(Pair + "'" + B.K->name() + "' does not read '" +
                    T->getName().str() + "'");
    for (const VarDecl *V : All)
      if (std::optional<std::string> Alias = notOwnAllocation(Ctx, V))
        return refuse(Pair + "'" + V->getName().str() +
                      "' may share memory with another pointer: " + *Alias);
    SmallSetVector<const VarDecl *, 4> Dead;
    Dead.insert(T);
    return buildPlan(Ctx, A, B, Dead, J);
  }

  /// Why launch \p A and \p B differ in shape, or "".
  std::string launchMismatch(ASTContext &Ctx, const Part &A,
                             const Part &B) const {
    const CallExpr *CA = A.Call->getConfig(), *CB = B.Call->getConfig();
    for (unsigned I = 2; I < 4; ++I) {
      for (const CallExpr *C : {CA, CB})
        if (I < C->getNumArgs() && !isa<CXXDefaultArgExpr>(C->getArg(I))) {
          Expr::EvalResult Zero;
          if (I == 3 || !C->getArg(I)->EvaluateAsInt(Zero, Ctx) ||
              Zero.Val.getInt() != 0)
            return I == 2 ? "a launch passes dynamic shared memory"
                          : "a launch names a stream";
        }
    }
    for (unsigned I = 0; I < 2; ++I)
      if (squeeze(sourceText(Ctx, CA->getArg(I)->getSourceRange())) !=
          squeeze(sourceText(Ctx, CB->getArg(I)->getSourceRange())))
        return std::string("the launches' ") + (I ? "block" : "grid") +
               " expressions differ ('" +
               sourceText(Ctx, CA->getArg(I)->getSourceRange()) + "' and '" +
               sourceText(Ctx, CB->getArg(I)->getSourceRange()) + "')";
    return "";
  }

  /// The host expression passed for the bound of \p P's guard.
  std::optional<std::string> boundArg(ASTContext &Ctx, const Part &P) const {
    const auto *DRE = dyn_cast_or_null<DeclRefExpr>(strip(P.M.x().Bound));
    const auto *PD = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
    if (!PD)
      return std::nullopt;
    return squeeze(sourceText(
        Ctx, P.Call->getArg(PD->getFunctionScopeIndex())->getSourceRange()));
  }

  Expected<FuseLaunchesPlan> planPair(ASTContext &Ctx,
                                      const std::vector<KernelInfo> &Ks,
                                      const HostRegion &R, size_t S1,
                                      size_t S2) const {
    Expected<Part> A = makePart(Ctx, Ks, R, R.Steps[S1]);
    if (!A)
      return A.takeError();
    Expected<Part> B = makePart(Ctx, Ks, R, R.Steps[S2]);
    if (!B) {
      // Not a map: the map's work can still run first in the consumer.
      std::string NotMap = toString(B.takeError());
      Expected<Part> C = makeConsumer(Ctx, Ks, R, R.Steps[S2]);
      if (!C)
        return refuse(NotMap + "; as a consumer: " + toString(C.takeError()));
      std::string Pair = "'" + A->K->name() + "' then '" + C->K->name() + "': ";
      Expected<FuseLaunchesPlan> P = planConsumer(Ctx, R, *A, *C, Pair);
      if (P)
        return P;
      return refuse(NotMap + "; as a consumer: " + toString(P.takeError()));
    }
    std::string Pair = "'" + A->K->name() + "' then '" + B->K->name() + "': ";
    std::string Why = launchMismatch(Ctx, *A, *B);
    if (!Why.empty())
      return refuse(Pair + Why);
    std::optional<std::string> BA = boundArg(Ctx, *A), BB = boundArg(Ctx, *B);
    if (!BA || !BB)
      return refuse(Pair + "a guard's bound is not a parameter");
    if (*BA != *BB)
      return refuse(Pair + "the kernels are passed different bounds ('" +
                    *BA + "' and '" + *BB + "')");
    if (A->M.x().Inclusive != B->M.x().Inclusive)
      return refuse(Pair + "one guard is '<' and the other '<='");
    QualType IA = A->M.x().Var->getType(), IB = B->M.x().Var->getType();
    if (!Ctx.hasSameUnqualifiedType(IA, IB))
      return refuse(Pair + "the index variables have different types");

    // Buffers: every accessed pointer is a host variable holding its own
    // allocation; shared buffers that are written are accessed at p[i].
    struct Use {
      bool ReadA = false, WriteA = false, ReadB = false, WriteB = false;
      bool AllOwnIndex = true;
      unsigned WritesA = 0;
    };
    MapVector<const VarDecl *, Use> Uses;
    for (const Part *P : {&*A, &*B}) {
      bool IsA = P == &*A;
      for (const MemoryAccess &M : P->Model.Accesses) {
        const auto *PD = dyn_cast_or_null<ParmVarDecl>(M.BaseDecl);
        if (!PD)
          continue; // __constant__ reads.
        const VarDecl *V = P->BufferOf.lookup(PD);
        if (!V)
          return refuse(Pair + "'" + P->K->name() + "' is passed '" +
                        sourceText(Ctx, P->Call->getArg(
                                             PD->getFunctionScopeIndex())
                                            ->getSourceRange()) +
                        "' for '" + PD->getName().str() +
                        "', which is not a buffer variable");
        Use &U = Uses[V];
        bool W = M.Kind == AccessKind::Write;
        (IsA ? (W ? U.WriteA : U.ReadA) : (W ? U.WriteB : U.ReadB)) = true;
        U.WritesA += IsA && W;
        U.AllOwnIndex &= atOwnIndex(M, P->M.x().Var);
      }
    }
    for (auto &[V, U] : Uses) {
      if (std::optional<std::string> Alias = notOwnAllocation(Ctx, V))
        return refuse(Pair + "'" + V->getName().str() +
                      "' may share memory with another pointer: " + *Alias);
      bool Shared = (U.ReadA || U.WriteA) && (U.ReadB || U.WriteB);
      bool Written = U.WriteA || U.WriteB;
      if (Shared && Written && !U.AllOwnIndex)
        return refuse(Pair + "'" + V->getName().str() +
                      "' is written by one kernel and accessed by the other "
                      "at another element than the thread's own");
    }

    // Dead intermediates: written once by A at the top level of its work,
    // only read by B, named nowhere else in the host function.
    SmallSetVector<const VarDecl *, 4> Dead;
    for (auto &[V, U] : Uses)
      if (U.WriteA && !U.ReadA && U.ReadB && !U.WriteB && U.WritesA == 1 &&
          U.AllOwnIndex && topLevelStore(*A, V) &&
          onlyAllocatedAndPassed(Ctx, R.Host, V, {A->Call, B->Call}))
        Dead.insert(V);

    return buildPlan(Ctx, *A, *B, Dead);
  }

  /// The store to \p V in \p P's work is an expression statement `p[i] = e;`
  /// at the top level of the work.
  bool topLevelStore(const Part &P, const VarDecl *V) const {
    for (const Stmt *S : P.Work) {
      const ArraySubscriptExpr *AS = assignedSubscript(S);
      if (!AS)
        continue;
      const auto *DRE = dyn_cast<DeclRefExpr>(strip(AS->getBase()));
      const auto *PD = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
      if (PD && P.BufferOf.lookup(PD) == V)
        return true;
    }
    return false;
  }

  /// \p V is named in \p Host only in its declaration, `cudaMalloc(&V,...)`,
  /// `cudaFree(V)` and the launches \p Launches.
  bool onlyAllocatedAndPassed(ASTContext &Ctx, const FunctionDecl *Host,
                              const VarDecl *V,
                              ArrayRef<const CUDAKernelCallExpr *> Launches) const {
    if (!V->hasLocalStorage() || isa<ParmVarDecl>(V) || !Host)
      return false;
    class Names : public RecursiveASTVisitor<Names> {
    public:
      Names(const VarDecl *V, ArrayRef<const CUDAKernelCallExpr *> L)
          : V(V), Launches(L) {}
      bool TraverseCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
        if (is_contained(Launches, E))
          return true;
        return RecursiveASTVisitor::TraverseCUDAKernelCallExpr(E);
      }
      bool TraverseCallExpr(CallExpr *CE) {
        const FunctionDecl *F = CE->getDirectCallee();
        StringRef N = F && F->getDeclName().isIdentifier() ? F->getName() : "";
        if ((N == "cudaMalloc" || N == "cudaFree") && CE->getNumArgs() >= 1) {
          const Expr *A0 = strip(CE->getArg(0));
          if (const auto *U = dyn_cast<UnaryOperator>(A0))
            if (U->getOpcode() == UO_AddrOf)
              A0 = strip(U->getSubExpr());
          if (const auto *C = dyn_cast<CStyleCastExpr>(A0))
            A0 = strip(C->getSubExpr());
          if (const auto *U = dyn_cast<UnaryOperator>(A0))
            if (U->getOpcode() == UO_AddrOf)
              A0 = strip(U->getSubExpr());
          if (const auto *D = dyn_cast<DeclRefExpr>(A0))
            if (D->getDecl() == V) {
              for (unsigned I = 1; I < CE->getNumArgs(); ++I)
                TraverseStmt(CE->getArg(I));
              return true;
            }
        }
        return RecursiveASTVisitor::TraverseCallExpr(CE);
      }
      bool VisitDeclRefExpr(DeclRefExpr *D) {
        Other |= D->getDecl() == V;
        return true;
      }
      const VarDecl *V;
      ArrayRef<const CUDAKernelCallExpr *> Launches;
      bool Other = false;
    } N(V, Launches);
    N.TraverseStmt(Host->getBody());
    return !N.Other;
  }

  /// A value the first kernel stores and the second reads was rounded by
  /// the store; in one kernel the compiler could contract its last multiply
  /// into the second kernel's addition (one rounding instead of two). Write
  /// that multiply as its round-to-nearest form (`__fmul_rn`, `__hmul_rn`),
  /// which is never contracted, so every output stays bit for bit.
  Error roundHandedOver(ASTContext &Ctx, const Part &A, const Part &B,
                        std::vector<Edit> &Edits) const {
    const SourceManager &SM = Ctx.getSourceManager();
    SmallPtrSet<const VarDecl *, 4> ReadByB;
    for (const MemoryAccess &M : B.Model.Accesses)
      if (const auto *PD = dyn_cast_or_null<ParmVarDecl>(M.BaseDecl))
        if (M.Kind == AccessKind::Read)
          if (const VarDecl *V = B.BufferOf.lookup(PD))
            ReadByB.insert(V);
    auto Within = [&](SourceRange In, SourceRange Out) {
      return within(SM, In, Out);
    };
    class Stores : public RecursiveASTVisitor<Stores> {
    public:
      bool VisitStmt(Stmt *S) {
        if (isa<Expr>(S) && assignedSubscript(S))
          Found.push_back(S);
        return true;
      }
      std::vector<const Stmt *> Found;
    } St;
    for (const Stmt *S : A.Work)
      St.TraverseStmt(const_cast<Stmt *>(S));
    for (const Stmt *S : St.Found) {
      const ArraySubscriptExpr *AS = assignedSubscript(S);
      const auto *DRE = dyn_cast<DeclRefExpr>(strip(AS->getBase()));
      const auto *PD = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
      const VarDecl *V = PD ? A.BufferOf.lookup(PD) : nullptr;
      if (!V || !ReadByB.count(V))
        continue;
      const Expr *Value = assignedValue(S);
      auto Product = Value ? contractibleProduct(Value) : std::nullopt;
      if (!Product)
        continue;
      auto [Fn, L, R] = *Product;
      SourceRange Whole = Value->getSourceRange();
      std::vector<Edit> InL, InR, Rest;
      for (Edit &E : Edits) {
        if (Within(E.first, L->getSourceRange()))
          InL.push_back(E);
        else if (Within(E.first, R->getSourceRange()))
          InR.push_back(E);
        else if (!Within(E.first, Whole))
          Rest.push_back(E);
      }
      Expected<std::string> LT = textWithEdits(Ctx, L->getSourceRange(), InL);
      if (!LT)
        return LT.takeError();
      Expected<std::string> RT = textWithEdits(Ctx, R->getSourceRange(), InR);
      if (!RT)
        return RT.takeError();
      Rest.push_back({Whole, Fn + "(" + *LT + ", " + *RT + ")"});
      Edits = std::move(Rest);
    }
    return Error::success();
  }

  Expected<FuseLaunchesPlan>
  buildPlan(ASTContext &Ctx, const Part &A, const Part &B,
            const SmallSetVector<const VarDecl *, 4> &Dead,
            const VarDecl *ConsumerIndex = nullptr) const {
    // Names the fused kernel must not reuse: both works' locals.
    StringSet<> Taken;
    for (const Part *P : {&A, &B})
      for (const auto &L : P->Locals)
        Taken.insert(L.getKey());
    std::string Index = A.M.x().Var->getName().str();
    Taken.insert(Index);
    if (!B.Consumer && B.Locals.contains(Index) &&
        B.M.x().Var->getName() != Index)
      return refuse("'" + B.K->name() + "' declares '" + Index +
                    "', the first kernel's index");
    auto Fresh = [&](std::string Base) {
      while (Taken.contains(Base))
        Base += "_";
      Taken.insert(Base);
      return Base;
    };
    // Locals of the two works collide: keep each work in its own block.
    bool Flat = !B.Consumer;
    for (const auto &L : A.Locals)
      if (B.Locals.contains(L.getKey()))
        Flat = false;

    std::vector<FusedParam> Params;
    DenseMap<const ParmVarDecl *, std::string> NameOf;
    DenseMap<const VarDecl *, std::string> ElementOf;
    std::string ElementDecls;
    for (const VarDecl *V : Dead) {
      ElementOf[V] = Fresh(V->getName().str() + "_" + Index);
    }
    for (const Part *P : {&A, &B}) {
      const FunctionDecl *FD = P->K->Decl;
      for (unsigned I = 0; I < FD->getNumParams(); ++I) {
        const ParmVarDecl *PD = FD->getParamDecl(I);
        if (const VarDecl *V = P->BufferOf.lookup(PD); V && Dead.count(V))
          continue;
        std::string Arg = sourceText(Ctx, P->Call->getArg(I)->getSourceRange());
        std::string Type = typeText(Ctx, PD->getType());
        auto Same = find_if(Params, [&](const FusedParam &F) {
          return squeeze(F.Arg) == squeeze(Arg);
        });
        if (Same != Params.end()) {
          if (Same->Type == Type) {
            NameOf[PD] = Same->Name;
            continue;
          }
          // `const float *` in one kernel and `float *` in the other: one
          // parameter of the writable type.
          if (const ParmVarDecl *Other = Same->Decl) {
            QualType T = PD->getType(), U = Other->getType();
            bool Restrict = T.isRestrictQualified() || U.isRestrictQualified();
            if (T->isPointerType() && U->isPointerType() && !Restrict &&
                Ctx.hasSameUnqualifiedType(T->getPointeeType(),
                                           U->getPointeeType())) {
              if (!T->getPointeeType().isConstQualified())
                Same->Type = Type;
              NameOf[PD] = Same->Name;
              continue;
            }
          }
        }
        StringRef Ident = Arg;
        bool IsIdent = !Ident.empty() &&
                       all_of(Ident, [](char C) {
                         return isalnum(static_cast<unsigned char>(C)) ||
                                C == '_';
                       }) &&
                       !isdigit(static_cast<unsigned char>(Ident[0]));
        std::string Name =
            Fresh(IsIdent ? Arg : P->K->name() + "_" + PD->getName().str());
        Params.push_back({Name, Type, Arg, PD});
        NameOf[PD] = Name;
      }
    }

    // The two works with parameters renamed, the dead buffers' elements
    // in locals, and the second kernel's index named as the first's.
    SmallVector<std::string, 2> Works;
    std::string Inlined; // Map -> consumer: the map's stored value at j.
    for (const Part *P : {&A, &B}) {
      std::vector<Edit> Edits;
      SmallPtrSet<const Expr *, 8> Replaced;
      for (const MemoryAccess &M : P->Model.Accesses) {
        const auto *PD = dyn_cast_or_null<ParmVarDecl>(M.BaseDecl);
        const VarDecl *V = PD ? P->BufferOf.lookup(PD) : nullptr;
        if (!V || !Dead.count(V))
          continue;
        const auto *AS = cast<ArraySubscriptExpr>(M.E);
        std::string Elt = B.Consumer && P == &B ? "(" + Inlined + ")"
                                                : ElementOf[V];
        if (M.Kind == AccessKind::Write && Flat) {
          // `tmp[i] = e;` declares the element.
          const Stmt *Store = nullptr;
          for (const Stmt *S : P->Work)
            if (assignedSubscript(S) == AS)
              Store = S;
          if (!Store)
            return refuse("internal error: the store to '" +
                          V->getName().str() + "' moved");
          Edits.push_back(
              {AS->getSourceRange(),
               typeText(Ctx, PD->getType()->getPointeeType().getUnqualifiedType()) +
                   " " + Elt});
        } else {
          Edits.push_back({AS->getSourceRange(), Elt});
        }
        Replaced.insert(AS);
      }
      if (!Flat)
        for (const VarDecl *V : Dead)
          if (P == &A) {
            const ParmVarDecl *PD = nullptr;
            for (auto &[Pa, Va] : A.BufferOf)
              if (Va == V)
                PD = Pa;
            if (PD && ElementDecls.find(ElementOf[V] + ";") == std::string::npos)
              ElementDecls +=
                  typeText(Ctx, PD->getType()->getPointeeType().getUnqualifiedType()) +
                  " " + ElementOf[V] + ";\n";
          }
      class Refs : public RecursiveASTVisitor<Refs> {
      public:
        bool TraverseArraySubscriptExpr(ArraySubscriptExpr *E) {
          if (Skip->count(E))
            return true;
          return RecursiveASTVisitor::TraverseArraySubscriptExpr(E);
        }
        bool VisitDeclRefExpr(DeclRefExpr *D) {
          if (const auto *PD = dyn_cast<ParmVarDecl>(D->getDecl())) {
            auto It = Names->find(PD);
            if (It == Names->end())
              Unmapped = PD->getName().str();
            else if (It->second != PD->getName())
              Out->push_back({D->getSourceRange(), It->second});
          } else if (D->getDecl() == OwnIndex && OwnIndex->getName() != Index) {
            Out->push_back({D->getSourceRange(), Index});
          }
          return true;
        }
        SmallPtrSet<const Expr *, 8> *Skip;
        DenseMap<const ParmVarDecl *, std::string> *Names;
        std::vector<Edit> *Out;
        const VarDecl *OwnIndex;
        std::string Index;
        std::string Unmapped;
      } V;
      V.Skip = &Replaced;
      V.Names = &NameOf;
      V.Out = &Edits;
      V.OwnIndex = P->Consumer ? nullptr : P->M.x().Var;
      V.Index = B.Consumer && ConsumerIndex ? ConsumerIndex->getName().str()
                                            : Index;
      for (const Stmt *S : P->Work)
        V.TraverseStmt(const_cast<Stmt *>(S));
      if (!V.Unmapped.empty())
        return refuse("'" + P->K->name() + "' uses '" + V.Unmapped +
                      "' other than as its element");
      if (P == &A)
        if (Error E = roundHandedOver(Ctx, A, B, Edits))
          return std::move(E);
      if (P == &A && B.Consumer) {
        // The stored value, renamed, at the consumer's index.
        const Expr *Value = assignedValue(A.Work.front());
        if (!Value)
          return refuse("internal error: the map's store has no value");
        std::vector<Edit> In;
        for (const Edit &E : Edits)
          if (within(Ctx.getSourceManager(), E.first,
                     Value->getSourceRange()))
            In.push_back(E);
        Expected<std::string> T =
            textWithEdits(Ctx, Value->getSourceRange(), In);
        if (!T)
          return T.takeError();
        Inlined = *T;
        Works.push_back("");
        continue;
      }
      if (P->Work.empty()) {
        Works.push_back("");
        continue;
      }
      SourceRange WR(P->Work.front()->getBeginLoc(),
                     stmtEnd(Ctx, P->Work.back()));
      if (P->Consumer)
        WR = P->K->Decl->getBody()->getSourceRange();
      Expected<std::string> Text = textWithEdits(Ctx, WR, Edits);
      if (!Text)
        return Text.takeError();
      if (P->Consumer) // Without the body's braces.
        *Text = StringRef(*Text).drop_front().drop_back().trim().str();
      Works.push_back(*Text);
    }

    FuseLaunchesPlan Plan;
    Plan.First = A.Call;
    Plan.Second = B.Call;
    std::string Name = A.K->name() + "_" + B.K->name();
    while (declaresFunction(Ctx, Name))
      Name += "_";
    const auto *BoundRef = cast<DeclRefExpr>(strip(A.M.x().Bound));
    std::string Bound = NameOf.lookup(cast<ParmVarDecl>(BoundRef->getDecl()));
    std::string K = "/// Added by cuda-opt fuse-launches: '" + A.K->name() +
                    "' then '" + B.K->name() + "' in one launch";
    if (!Dead.empty()) {
      K += "; ";
      bool FirstDead = true;
      for (const VarDecl *V : Dead) {
        K += (FirstDead ? "'" : ", '") + V->getName().str() + "'";
        FirstDead = false;
      }
      K += Dead.size() == 1 ? " is" : " are";
      K += B.Consumer ? " not needed after them: '" + B.K->name() +
                            "' computes each element where it read it"
                      : " not needed after them, so each thread keeps its "
                        "element in a local";
    }
    K += ".\n__global__ void " + Name + "(";
    for (size_t I = 0; I < Params.size(); ++I) {
      std::string T = Params[I].Type;
      K += (I ? ", " : "") + T +
           (StringRef(T).ends_with("*") ? "" : " ") + Params[I].Name;
    }
    K += ") {\n";
    std::string IndexDecl = sourceText(Ctx, A.M.x().Decl->getSourceRange());
    if (!StringRef(IndexDecl).rtrim().ends_with(";"))
      IndexDecl += ";";
    if (!B.Consumer)
      K += "  " + IndexDecl + "\n  if (" + Index +
           (A.M.x().Inclusive ? " <= " : " < ") + Bound + ") {\n";
    if (B.Consumer) {
      // The consumer's body, reading the map's value in place of the buffer.
      K += indentBlock(Works[1], "  ");
      K += "}";
    } else if (Flat) {
      K += indentBlock(Works[0], "    ");
      K += indentBlock(Works[1], "    ");
    } else {
      K += indentBlock(ElementDecls, "    ");
      K += "    {\n" + indentBlock(Works[0], "      ") + "    }\n";
      K += "    {\n" + indentBlock(Works[1], "      ") + "    }\n";
    }
    if (!B.Consumer)
      K += "  }\n}";
    Plan.KernelText = K;
    std::string L = Name + "<<<" +
                    sourceText(Ctx, A.Call->getConfig()->getArg(0)->getSourceRange()) +
                    ", " +
                    sourceText(Ctx, A.Call->getConfig()->getArg(1)->getSourceRange()) +
                    ">>>(";
    for (size_t I = 0; I < Params.size(); ++I)
      L += (I ? ", " : "") + Params[I].Arg;
    Plan.LaunchText = L + ")";
    const SourceManager &SM = Ctx.getSourceManager();
    const FunctionDecl *Later = A.K->Decl;
    if (SM.isBeforeInTranslationUnit(Later->getEndLoc(),
                                     B.K->Decl->getEndLoc()))
      Later = B.K->Decl;
    Plan.InsertAfter = Lexer::getLocForEndOfToken(
        SM.getExpansionLoc(Later->getEndLoc()), 0, SM, Ctx.getLangOpts());
    return Plan;
  }
};

} // namespace

std::unique_ptr<Transform> createFuseLaunchesTransform() {
  return std::make_unique<FuseLaunches>();
}

} // namespace cuda_opt
