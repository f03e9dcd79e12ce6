//===- HostRegions.cpp - Straight-line launch sequences in host code ------===//
//
// Part of cuda-opt. See HostRegions.h.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/HostRegions.h"
#include "cuda-opt/Analysis/LaunchConfig.h"

#include "StmtPatterns.h"
#include "cuda-opt/Analysis/HistogramKernel.h"
#include "cuda-opt/Analysis/SegmentedReduction.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
using stmt::varOf;
using stmt::calleeName;
using stmt::callsIn;
using stmt::isCheckCall;

namespace {

const Expr *strip(const Expr *E) {
  return E ? E->IgnoreParenImpCasts() : nullptr;
}

/// How a kernel uses each pointer parameter: read, written.
struct ParamAccess {
  bool Read = false, Written = false;
};

std::vector<ParamAccess> paramAccesses(const FunctionDecl *K) {
  std::vector<ParamAccess> Out(K->getNumParams());
  class Uses : public RecursiveASTVisitor<Uses> {
  public:
    Uses(const FunctionDecl *K, std::vector<ParamAccess> &Out)
        : K(K), Out(Out) {}
    bool TraverseBinaryOperator(BinaryOperator *B) {
      // `p[i] = e`: a write only (its index and e are visited below).
      if (B->getOpcode() == BO_Assign)
        if (int P = rootParam(B->getLHS()); P >= 0) {
          Out[P].Written = true;
          Skip.insert(rootRef(B->getLHS()));
        }
      return RecursiveASTVisitor::TraverseBinaryOperator(B);
    }
    bool VisitCompoundAssignOperator(CompoundAssignOperator *C) {
      if (int P = rootParam(C->getLHS()); P >= 0)
        Out[P].Written = Out[P].Read = true;
      return true;
    }
    bool VisitUnaryOperator(UnaryOperator *U) {
      if (U->isIncrementDecrementOp())
        if (int P = rootParam(U->getSubExpr()); P >= 0)
          Out[P].Written = Out[P].Read = true;
      return true;
    }
    bool VisitCallExpr(CallExpr *CE) {
      // A pointer handed to a call (an atomic, a helper): read and written.
      for (const Expr *A : CE->arguments())
        if (int P = paramOf(A); P >= 0)
          Out[P].Written = Out[P].Read = true;
        else if (const auto *U = dyn_cast<UnaryOperator>(strip(A)))
          if (U->getOpcode() == UO_AddrOf)
            if (int P = rootParam(U->getSubExpr()); P >= 0)
              Out[P].Written = Out[P].Read = true;
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      if (int P = indexOf(D->getDecl()); P >= 0 && !Skip.contains(D))
        Out[P].Read = true;
      return true;
    }

  private:
    int indexOf(const ValueDecl *D) const {
      for (unsigned I = 0; I < K->getNumParams(); ++I)
        if (K->getParamDecl(I) == D &&
            K->getParamDecl(I)->getType()->isPointerType())
          return I;
      return -1;
    }
    int paramOf(const Expr *E) const {
      const auto *D = dyn_cast_or_null<DeclRefExpr>(strip(E));
      return D ? indexOf(D->getDecl()) : -1;
    }
    /// The parameter an element access `p[i]` or `*p` goes through.
    const DeclRefExpr *rootRef(const Expr *E) const {
      E = strip(E);
      if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
        return dyn_cast<DeclRefExpr>(strip(A->getBase()));
      if (const auto *U = dyn_cast<UnaryOperator>(E))
        if (U->getOpcode() == UO_Deref)
          return dyn_cast<DeclRefExpr>(strip(U->getSubExpr()));
      return nullptr;
    }
    int rootParam(const Expr *E) const {
      const DeclRefExpr *D = rootRef(E);
      return D ? indexOf(D->getDecl()) : -1;
    }
    const FunctionDecl *K;
    std::vector<ParamAccess> &Out;
    SmallPtrSet<const DeclRefExpr *, 8> Skip;
  } U(K, Out);
  if (K->hasBody())
    U.TraverseStmt(K->getBody());
  // Pointer parameters a kernel reassigns or indexes through locals are
  // counted through their reads above: conservative (read), and writes
  // through a local copy are missed only if the copy is written: count a
  // non-const pointee as possibly written in that case.
  for (unsigned I = 0; I < K->getNumParams(); ++I) {
    QualType T = K->getParamDecl(I)->getType();
    if (T->isPointerType() && Out[I].Read && !Out[I].Written &&
        !T->getPointeeType().isConstQualified()) {
      // A local alias (`float *row = p + ...; row[j] = ...`) writes through
      // p without naming it: only a const pointee rules that out.
      Out[I].Written = true;
    }
  }
  return Out;
}

class RegionFinder {
public:
  RegionFinder(ASTContext &Ctx, const std::vector<KernelInfo> &Kernels)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Kernels(Kernels) {
    for (unsigned I = 0; I < Kernels.size(); ++I)
      for (const LaunchSite &L : Kernels[I].Launches)
        KernelOf[L.Call] = I;
  }

  void scanFunction(const FunctionDecl *F) {
    Host = F;
    scan(F->getBody(), nullptr);
  }

  std::vector<HostRegion> Regions;

private:
  std::string at(const Stmt *S) const {
    return describeLocation(SM, S->getBeginLoc());
  }

  /// Walk \p S; every compound statement's runs of steps are regions.
  void scan(const Stmt *S, const ForStmt *Parent) {
    if (!S)
      return;
    if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
      scanCompound(CS, Parent);
      return;
    }
    if (const auto *FS = dyn_cast<ForStmt>(S)) {
      // A loop whose body is one statement.
      if (!isa<CompoundStmt>(FS->getBody())) {
        std::vector<const Stmt *> One = {FS->getBody()};
        scanRun(One, FS);
        return;
      }
      scan(FS->getBody(), FS);
      return;
    }
    for (const Stmt *C : S->children())
      scan(C, nullptr);
  }

  void scanCompound(const CompoundStmt *CS, const ForStmt *Loop) {
    std::vector<const Stmt *> Body(CS->body_begin(), CS->body_end());
    scanRun(Body, Loop);
    // A sorting nest is one step: its inner loop is no region of its own.
    for (const Stmt *S : Body)
      if ((!isa<Expr>(S) || isa<StmtExpr>(S)) && !sortOf(S))
        scan(S, nullptr);
  }

  /// The statements of one block: its maximal runs of steps.
  void scanRun(const std::vector<const Stmt *> &Body, const ForStmt *Loop) {
    HostRegion R;
    R.Host = Host;
    std::string Before;
    bool WholeBody = true;
    auto Flush = [&](const std::string &EndNote) {
      if (R.launches() >= 2 || R.calls() >= 1 || R.sorts() >= 1 ||
          R.routed() >= 1 ||
          (R.launches() >= 1 && Loop && WholeBody && EndNote.empty())) {
        if (!Before.empty())
          R.Notes.push_back(Before);
        if (!EndNote.empty())
          R.Notes.push_back(EndNote);
        finish(R, WholeBody && EndNote.empty() ? Loop : nullptr);
        Regions.push_back(std::move(R));
      }
      R = HostRegion();
      R.Host = Host;
      Before = EndNote;
    };
    for (size_t I = 0; I < Body.size(); ++I) {
      std::string Why;
      size_t Used = 1;
      std::vector<const VarDecl *> Vars;
      std::optional<RegionStep> Step = classify(Body, I, Used, Why, Vars);
      if (!Step) {
        WholeBody = false;
        Flush(R.Steps.empty() ? "" : Why);
        Before = Why;
        continue;
      }
      if (R.Steps.empty())
        R.Range.setBegin(Body[I]->getBeginLoc());
      R.Range.setEnd(Body[I + Used - 1]->getEndLoc());
      Step->Span = SourceRange(Body[I]->getBeginLoc(),
                               Body[I + Used - 1]->getEndLoc());
      for (const VarDecl *V : Vars)
        Step->Args.push_back(V ? bufferIndex(R, V) : -1);
      R.Steps.push_back(std::move(*Step));
      I += Used - 1;
    }
    Flush("");
  }

  int bufferIndex(HostRegion &R, const VarDecl *V) {
    for (unsigned I = 0; I < R.Buffers.size(); ++I)
      if (R.Buffers[I].Var == V)
        return I;
    RegionBuffer B;
    B.Var = V;
    R.Buffers.push_back(B);
    return R.Buffers.size() - 1;
  }

  /// The variable of each pointer argument of \p CE (null for a scalar),
  /// or false with \p Why when an argument is not a pointer variable or a
  /// scalar has side effects. \p Where names the statement.
  bool argumentVariables(const CallExpr *CE, const std::string &Where,
                         std::string &Why,
                         std::vector<const VarDecl *> &Vars) {
    for (const Expr *A : CE->arguments()) {
      if (!A->getType()->isPointerType()) {
        if (A->HasSideEffects(Ctx)) {
          Why = Where + " has an argument with side effects";
          return false;
        }
        Vars.push_back(nullptr);
        continue;
      }
      const VarDecl *V = varOf(A);
      if (!V || !V->getType()->isPointerType()) {
        Why = Where + " passes '" + sourceText(Ctx, A->getSourceRange()) +
              "', not a pointer variable";
        return false;
      }
      Vars.push_back(V);
    }
    return true;
  }

  /// Body[I] (and for a three-statement swap the two after it) as a step,
  /// or why it is not one. \p Vars gets the variable of each of the step's
  /// arguments (null for a scalar), which the caller turns into buffers.
  std::optional<RegionStep> classify(const std::vector<const Stmt *> &Body,
                                     size_t I, size_t &Used, std::string &Why,
                                     std::vector<const VarDecl *> &Vars) {
    const Stmt *S = Body[I];
    RegionStep Step;
    Step.S = S;
    const Expr *E = dyn_cast<Expr>(S);
    if (E)
      E = E->IgnoreImplicit();
    if (const auto *KC = dyn_cast_or_null<CUDAKernelCallExpr>(E)) {
      auto It = KernelOf.find(KC);
      if (It == KernelOf.end()) {
        Why = "the launch at " + at(S) + " is of a kernel not defined here";
        return std::nullopt;
      }
      const CallExpr *Config = KC->getConfig();
      if (Config && Config->getNumArgs() >= 4) {
        const Expr *Stream = Config->getArg(3);
        Expr::EvalResult R;
        if (!isa<CXXDefaultArgExpr>(Stream) &&
            !(Stream->EvaluateAsRValue(R, Ctx) &&
              ((R.Val.isInt() && R.Val.getInt() == 0) || R.Val.isNullPointer())))
          {
            Why = "the launch at " + at(S) + " is on a stream";
            return std::nullopt;
          }
      }
      Step.Kind = RegionStep::Launch;
      Step.Kernel = It->second;
      if (!argumentVariables(KC, "the launch at " + at(S), Why, Vars))
        return std::nullopt;
      routeOf(KC, Step);
      return Step;
    }
    // std::swap(a, b) of two pointer variables.
    if (const auto *CE = dyn_cast_or_null<CallExpr>(E))
      if (calleeName(CE) == "swap" && CE->getNumArgs() == 2 &&
          varOf(CE->getArg(0)) && varOf(CE->getArg(1)) &&
          varOf(CE->getArg(0))->getType()->isPointerType()) {
        Step.Kind = RegionStep::Swap;
        for (const Expr *A : CE->arguments())
          Vars.push_back(varOf(A));
        return Step;
      }
    // T *t = a; a = b; b = t;
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      if (DS->isSingleDecl() && I + 2 < Body.size())
        if (const auto *T = dyn_cast<VarDecl>(DS->getSingleDecl()))
          if (T->getType()->isPointerType() && varOf(T->getInit())) {
            const VarDecl *A = varOf(T->getInit());
            const auto *S1 = dyn_cast<BinaryOperator>(Body[I + 1]);
            const auto *S2 = dyn_cast<BinaryOperator>(Body[I + 2]);
            if (S1 && S2 && S1->getOpcode() == BO_Assign &&
                S2->getOpcode() == BO_Assign && varOf(S1->getLHS()) == A &&
                varOf(S1->getRHS()) && varOf(S2->getLHS()) == varOf(S1->getRHS()) &&
                varOf(S2->getRHS()) == T) {
              Step.Kind = RegionStep::Swap;
              Vars = {A, varOf(S1->getRHS())};
              Used = 3;
              return Step;
            }
          }
    // A loop nest that sorts with a bitonic network.
    if (const BitonicSort *Sort = sortOf(S)) {
      Step.Kind = RegionStep::Sort;
      Step.Kernel = Sort->Kernel;
      Step.SortNest = *Sort;
      Vars = {Sort->Keys};
      return Step;
    }
    // Memory steps and checks, possibly wrapped in an error-check macro.
    if (!isa<Expr>(S) && !isa<DoStmt>(S) && !isa<IfStmt>(S)) {
      Why = "'" + firstLine(S) + "' at " + at(S) + " is not a launch, a "
            "device memory operation or an error check";
      return std::nullopt;
    }
    std::vector<const CallExpr *> Calls = callsIn(S);
    if (Calls.empty()) {
      Why = "'" + firstLine(S) + "' at " + at(S) + " is not a launch, a "
            "device memory operation or an error check";
      return std::nullopt;
    }
    const CallExpr *Memory = nullptr, *Known = nullptr;
    for (const CallExpr *CE : Calls) {
      StringRef N = calleeName(CE);
      if (isCheckCall(N))
        continue;
      if (!Known && !Memory)
        if (const ScanRoutine *Routine = routineOf(CE->getDirectCallee())) {
          Known = CE;
          Step.Routine = *Routine;
          continue;
        }
      if ((N == "cudaMemset" || N == "cudaMemcpy") && !Memory) {
        Memory = CE;
        continue;
      }
      Why = "'" + firstLine(S) + "' at " + at(S) + " calls '" +
            (N.empty() ? StringRef("an indirect function") : N).str() +
            "', which a region does not model";
      return std::nullopt;
    }
    if (Known && Memory) {
      Why = "'" + firstLine(S) + "' at " + at(S) + " calls '" +
            calleeName(Known).str() + "' and moves memory";
      return std::nullopt;
    }
    if (Known) {
      Step.Kind = RegionStep::Call;
      if (!argumentVariables(Known, "the call at " + at(S), Why, Vars))
        return std::nullopt;
      return Step;
    }
    Step.Routine.reset();
    if (!Memory) {
      Step.Kind = RegionStep::Check;
      return Step;
    }
    StringRef N = calleeName(Memory);
    if (N == "cudaMemset") {
      const VarDecl *V = varOf(Memory->getArg(0));
      if (!V || !V->getType()->isPointerType()) {
        Why = "the cudaMemset at " + at(S) + " sets '" +
              sourceText(Ctx, Memory->getArg(0)->getSourceRange()) +
              "', not a pointer variable";
        return std::nullopt;
      }
      Step.Kind = RegionStep::Memset;
      Vars.push_back(V);
      return Step;
    }
    // cudaMemcpy(dst, src, bytes, kind): device to device only.
    const auto *Kind = dyn_cast<DeclRefExpr>(strip(Memory->getArg(3)));
    const VarDecl *Dst = varOf(Memory->getArg(0)),
                  *Src = varOf(Memory->getArg(1));
    if (!Kind || Kind->getDecl()->getName() != "cudaMemcpyDeviceToDevice" ||
        !Dst || !Src) {
      Why = "the cudaMemcpy at " + at(S) +
            " is not a device-to-device copy between pointer variables";
      return std::nullopt;
    }
    Step.Kind = RegionStep::CopyD2D;
    Vars = {Dst, Src};
    return Step;
  }

  std::string firstLine(const Stmt *S) const {
    std::string T = sourceText(Ctx, S->getSourceRange());
    T = T.substr(0, T.find('\n'));
    return T.size() > 48 ? T.substr(0, 45) + "..." : T;
  }

  /// The counter, start and bound of `for (T v = A; v < B; ++v)` (or
  /// `v++`, `v += 1`), and the trips when A and B are constants.
  void countLoop(HostRegion &R, const ForStmt *Loop) {
    const auto *DS = dyn_cast_or_null<DeclStmt>(Loop->getInit());
    const auto *V = DS && DS->isSingleDecl()
                        ? dyn_cast<VarDecl>(DS->getSingleDecl())
                        : nullptr;
    const auto *C = dyn_cast_or_null<BinaryOperator>(strip(Loop->getCond()));
    if (!V || !V->getInit() || !C || C->getOpcode() != BO_LT ||
        varOf(C->getLHS()) != V)
      return;
    const Expr *Inc = strip(Loop->getInc());
    bool StepOne = false;
    if (const auto *U = dyn_cast_or_null<UnaryOperator>(Inc))
      StepOne = U->isIncrementOp() && varOf(U->getSubExpr()) == V;
    if (const auto *A = dyn_cast_or_null<CompoundAssignOperator>(Inc)) {
      Expr::EvalResult One;
      StepOne = A->getOpcode() == BO_AddAssign && varOf(A->getLHS()) == V &&
                A->getRHS()->EvaluateAsInt(One, Ctx) &&
                One.Val.getInt() == 1;
    }
    if (!StepOne)
      return;
    R.Counter = V;
    R.Start = V->getInit();
    R.Bound = C->getRHS();
    Expr::EvalResult A, B;
    if (!R.Start->EvaluateAsInt(A, Ctx) || !R.Bound->EvaluateAsInt(B, Ctx) ||
        !A.Val.getInt().isRepresentableByInt64() ||
        !B.Val.getInt().isRepresentableByInt64())
      return;
    // A count past 2^63 (from INT64_MIN to INT64_MAX) stays unknown rather
    // than overflowing.
    if (std::optional<int64_t> Trips = checkedSub<int64_t>(
            B.Val.getInt().getExtValue(), A.Val.getInt().getExtValue()))
      R.Trips = std::max<int64_t>(0, *Trips);
  }

  /// Buffers, their accesses and liveness, once the steps are known.
  void finish(HostRegion &R, const ForStmt *Loop) {
    if (Loop) {
      R.TimeLoop = Loop;
      R.Range = Loop->getSourceRange();
      countLoop(R, Loop);
    }
    std::vector<bool> Seen(R.Buffers.size(), false);
    for (const RegionStep &St : R.Steps) {
      std::vector<ParamAccess> Acc;
      if (St.Kind == RegionStep::Launch)
        Acc = paramAccesses(Kernels[St.Kernel].Decl);
      for (unsigned I = 0; I < St.Args.size(); ++I) {
        int B = St.Args[I];
        if (B < 0)
          continue;
        bool Reads = false, Writes = false;
        switch (St.Kind) {
        case RegionStep::Launch:
          Reads = I < Acc.size() && Acc[I].Read;
          Writes = I < Acc.size() && Acc[I].Written;
          break;
        case RegionStep::Memset:
          Writes = true;
          break;
        case RegionStep::CopyD2D:
          Writes = I == 0;
          Reads = I == 1;
          break;
        case RegionStep::Call:
          Reads = St.Routine && I == St.Routine->In;
          Writes = St.Routine && I == St.Routine->Out;
          break;
        case RegionStep::Sort:
          Reads = Writes = true;
          break;
        case RegionStep::Swap:
        case RegionStep::Check:
          break;
        }
        RegionBuffer &Buf = R.Buffers[B];
        if (!Seen[B] && (Reads || Writes)) {
          Buf.LiveIn = Reads;
          Seen[B] = true;
        }
        Buf.Read |= Reads;
        Buf.Written |= Writes;
      }
    }
    // A loop carries every buffer it reads from one sweep to the next, and
    // a swap hands a buffer the other's role: what one sweep writes into
    // `next` the next sweep reads as `cur`.
    if (R.TimeLoop) {
      for (RegionBuffer &B : R.Buffers)
        B.LiveIn |= B.Read;
      for (const RegionStep &St : R.Steps)
        if (St.Kind == RegionStep::Swap && St.Args.size() == 2) {
          RegionBuffer &A = R.Buffers[St.Args[0]], &B = R.Buffers[St.Args[1]];
          bool Either = A.LiveIn || B.LiveIn;
          A.LiveIn = B.LiveIn = Either;
        }
    }
    for (RegionBuffer &B : R.Buffers)
      B.LiveOut = usedAfter(B.Var, R.Range.getEnd());
  }

  /// Whether \p V's contents may be needed after \p End: it outlives the
  /// function, or a later statement names it other than in cudaFree.
  bool usedAfter(const VarDecl *V, SourceLocation End) {
    if (!V->hasLocalStorage() || isa<ParmVarDecl>(V))
      return true;
    class Later : public RecursiveASTVisitor<Later> {
    public:
      Later(const SourceManager &SM, const VarDecl *V, SourceLocation End)
          : SM(SM), V(V), End(End) {}
      bool TraverseCallExpr(CallExpr *CE) {
        if (calleeName(CE) == "cudaFree")
          return true;
        return RecursiveASTVisitor::TraverseCallExpr(CE);
      }
      bool VisitDeclRefExpr(DeclRefExpr *D) {
        if (D->getDecl() == V &&
            SM.isBeforeInTranslationUnit(End, D->getBeginLoc()))
          Found = true;
        return true;
      }
      const SourceManager &SM;
      const VarDecl *V;
      SourceLocation End;
      bool Found = false;
    } L(SM, V, End);
    L.TraverseStmt(Host->getBody());
    return L.Found;
  }

  /// What \p FD computes when the analyses know it (a device-wide scan),
  /// else null; never the function being scanned itself (its own
  /// recursion).
  const ScanRoutine *routineOf(const FunctionDecl *FD) {
    if (!FD || !(FD = FD->getDefinition()) ||
        FD->getCanonicalDecl() == Host->getCanonicalDecl() ||
        !SM.isInMainFile(SM.getExpansionLoc(FD->getBeginLoc())))
      return nullptr;
    auto [It, New] = Routines.try_emplace(FD);
    if (New) {
      Expected<ScanRoutine> R = matchScanRoutine(Ctx, FD, Kernels);
      if (R)
        It->second = std::move(*R);
      else
        consumeError(R.takeError());
    }
    return It->second ? &*It->second : nullptr;
  }

  /// What a library computes for the launch \p KC (into Step.Routes and
  /// Step.Computes), when its kernel is a histogram or a segmented
  /// reduction.
  void routeOf(const CUDAKernelCallExpr *KC, RegionStep &Step) {
    const KernelInfo &K = Kernels[Step.Kernel];
    auto Arg = [&](const ParmVarDecl *P) {
      unsigned I = P->getFunctionScopeIndex();
      return I < KC->getNumArgs()
                 ? sourceText(Ctx, KC->getArg(I)->getSourceRange())
                 : std::string("?");
    };
    if (Expected<HistogramKernel> H = matchHistogramKernel(Ctx, K)) {
      Step.Routes = "cub-histogram";
      Step.Computes =
          "histogram of " +
          (H->CountParam ? Arg(H->CountParam) : std::to_string(H->BoundValue)) +
          " elements added to " + Arg(H->Binned.Array) + "[0, " +
          (H->Binned.BinsParam ? Arg(H->Binned.BinsParam)
                               : std::to_string(H->Binned.Bins)) +
          ")";
      return;
    } else {
      consumeError(H.takeError());
    }
    Expected<SegmentedReduction> R = matchSegmentedReduction(Ctx, K);
    if (R && R->sparseMatVec()) {
      // cusparse-spmv routes it in the kernel phase (a launch replaced by a
      // library call, measured like conv-cudnn), not as a region.
    } else if (R && firstLaunchOnStream(K, Ctx)) {
      // cub-segmented-reduce runs CUB on the default stream only.
    } else if (R) {
      Step.Routes = "cub-segmented-reduce";
      Step.Computes =
          std::string(R->Kind == RecurrenceKind::Sum   ? "sum"
                      : R->Kind == RecurrenceKind::Max ? "maximum"
                                                       : "minimum") +
          " of each segment of " + Arg(R->In) + " into " + Arg(R->Out);
    } else {
      consumeError(R.takeError());
    }
  }

  /// The sort \p S is when it is a bitonic sorting nest, else null.
  const BitonicSort *sortOf(const Stmt *S) {
    const auto *FS = dyn_cast_or_null<ForStmt>(S);
    if (!FS)
      return nullptr;
    auto [It, New] = Sorts.try_emplace(FS);
    if (New) {
      Expected<BitonicSort> B = matchBitonicSort(Ctx, FS, Host, Kernels);
      if (B)
        It->second = std::move(*B);
      else
        consumeError(B.takeError());
    }
    return It->second ? &*It->second : nullptr;
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  const std::vector<KernelInfo> &Kernels;
  DenseMap<const CUDAKernelCallExpr *, unsigned> KernelOf;
  DenseMap<const FunctionDecl *, std::optional<ScanRoutine>> Routines;
  DenseMap<const ForStmt *, std::optional<BitonicSort>> Sorts;
  const FunctionDecl *Host = nullptr;
};

} // namespace

unsigned HostRegion::calls() const {
  unsigned N = 0;
  for (const RegionStep &S : Steps)
    N += S.Kind == RegionStep::Call;
  return N;
}

unsigned HostRegion::sorts() const {
  unsigned N = 0;
  for (const RegionStep &S : Steps)
    N += S.Kind == RegionStep::Sort;
  return N;
}

unsigned HostRegion::routed() const {
  unsigned N = 0;
  for (const RegionStep &S : Steps)
    N += S.Kind == RegionStep::Launch && !S.Routes.empty();
  return N;
}

unsigned HostRegion::launches() const {
  unsigned N = 0;
  for (const RegionStep &S : Steps)
    N += S.Kind == RegionStep::Launch;
  return N;
}

std::vector<HostRegion> findHostRegions(ASTContext &Ctx,
                                        const std::vector<KernelInfo> &Kernels) {
  const SourceManager &SM = Ctx.getSourceManager();
  RegionFinder F(Ctx, Kernels);
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
    const auto *FD = dyn_cast<FunctionDecl>(D);
    if (!FD || !FD->doesThisDeclarationHaveABody() ||
        !SM.isInMainFile(SM.getExpansionLoc(FD->getBeginLoc())) ||
        FD->hasAttr<CUDAGlobalAttr>() ||
        (FD->hasAttr<CUDADeviceAttr>() && !FD->hasAttr<CUDAHostAttr>()))
      continue;
    F.scanFunction(FD);
  }
  return std::move(F.Regions);
}

json::Value hostRegionToJSON(ASTContext &Ctx,
                             const std::vector<KernelInfo> &Kernels,
                             const HostRegion &R) {
  const SourceManager &SM = Ctx.getSourceManager();
  static const char *Kinds[] = {"launch", "memset", "copy", "swap",
                                "check",  "call",   "sort"};
  json::Array Steps;
  for (const RegionStep &S : R.Steps) {
    json::Object O{{"kind", Kinds[S.Kind]},
                   {"location", describeLocation(SM, S.S->getBeginLoc())}};
    if (S.Kind == RegionStep::Launch || S.Kind == RegionStep::Sort)
      O["kernel"] = Kernels[S.Kernel].name();
    if (S.Kind == RegionStep::Launch && !S.Routes.empty()) {
      O["computes"] = S.Computes;
      O["routes"] = S.Routes;
    }
    if (S.Kind == RegionStep::Sort && S.SortNest)
      O["computes"] = std::string(S.SortNest->Descending ? "descending"
                                                     : "ascending") +
                      " sort of " + S.SortNest->Keys->getNameAsString() + "[0, " +
                      sourceText(Ctx, S.SortNest->Count->getSourceRange()) +
                      ") by a bitonic network";
    if (S.Kind == RegionStep::Call && S.Routine) {
      O["function"] = S.Routine->Function->getNameAsString();
      auto Name = [&](unsigned P) {
        return P < S.Args.size() && S.Args[P] >= 0
                   ? R.Buffers[S.Args[P]].Var->getNameAsString()
                   : std::string("?");
      };
      O["computes"] = "inclusive prefix sum of " + Name(S.Routine->In) +
                      " into " + Name(S.Routine->Out);
    }
    json::Array Args;
    for (int A : S.Args)
      Args.push_back(A < 0 ? json::Value(nullptr)
                           : json::Value(R.Buffers[A].Var->getNameAsString()));
    if (!Args.empty())
      O["buffers"] = std::move(Args);
    Steps.push_back(std::move(O));
  }
  json::Array Buffers;
  for (const RegionBuffer &B : R.Buffers)
    Buffers.push_back(json::Object{{"name", B.Var->getNameAsString()},
                                   {"read", B.Read},
                                   {"written", B.Written},
                                   {"live_in", B.LiveIn},
                                   {"live_out", B.LiveOut}});
  json::Object Out{{"function", R.Host->getNameAsString()},
                   {"location", describeLocation(SM, R.Range.getBegin())},
                   {"launches", (int64_t)R.launches()},
                   {"calls", (int64_t)R.calls()},
                   {"sorts", (int64_t)R.sorts()},
                   {"steps", std::move(Steps)},
                   {"buffers", std::move(Buffers)}};
  if (R.TimeLoop) {
    json::Object L{{"location",
                    describeLocation(SM, R.TimeLoop->getBeginLoc())}};
    if (R.Trips)
      L["trips"] = *R.Trips;
    Out["time_loop"] = std::move(L);
  }
  json::Array Notes;
  for (const std::string &N : R.Notes)
    Notes.push_back(N);
  Out["notes"] = std::move(Notes);
  return Out;
}

} // namespace cuda_opt
