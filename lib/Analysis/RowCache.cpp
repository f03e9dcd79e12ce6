//===- RowCache.cpp - Row data worth holding between passes ---------------===//
//
// Part of cuda-opt. See RowCache.h for the facts established here.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/RowCache.h"
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringSet.h"

#include <map>

using namespace clang;
using namespace llvm;

namespace cuda_opt {

bool RowCache::isCachedLoop(unsigned Loop) const {
  return llvm::is_contained(Loops, Loop);
}

namespace {

/// A bound with the same value wherever the row reads it: integer literals,
/// constants and parameters the kernel never writes, combined by arithmetic.
bool isKernelInvariant(const Expr *E, const FunctionDecl *Kernel) {
  struct Check : RecursiveASTVisitor<Check> {
    const FunctionDecl *Kernel;
    bool Ok = true;
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      const auto *V = dyn_cast<VarDecl>(D->getDecl());
      if (!V) {
        Ok &= isa<EnumConstantDecl>(D->getDecl());
        return true;
      }
      if (V->getType().isConstQualified() && V->getInit() &&
          V->getInit()->isIntegerConstantExpr(V->getASTContext()))
        return true;
      Ok &= isa<ParmVarDecl>(V) && V->getType()->isIntegerType() &&
            isNeverModifiedAfterInit(V, Kernel->getBody(),
                                     V->getASTContext());
      return true;
    }
    bool VisitCallExpr(CallExpr *) { return Ok = false; }
    bool VisitArraySubscriptExpr(ArraySubscriptExpr *) { return Ok = false; }
    bool VisitUnaryOperator(UnaryOperator *UO) {
      if (UO->getOpcode() == UO_Deref || UO->isIncrementDecrementOp())
        Ok = false;
      return Ok;
    }
    bool VisitBinaryOperator(BinaryOperator *BO) {
      if (BO->isAssignmentOp())
        Ok = false;
      return Ok;
    }
    bool VisitMemberExpr(MemberExpr *) { return Ok = false; }
  } C;
  C.Kernel = Kernel;
  C.TraverseStmt(const_cast<Expr *>(E));
  return C.Ok;
}

/// The part of an access's index that does not depend on the loop, when it
/// is built only from values fixed for the row (thread and block indices,
/// parameters never written): two accesses with equal parts read the same
/// element at the same column in any loop.
std::optional<IndexExpr> rowBase(const RowProgram &P, const RowAccess &A) {
  if (!A.Root || A.Stride != 1 || !A.Base)
    return std::nullopt;
  for (const auto &[Mono, Coeff] : A.Base->terms())
    for (unsigned Sym : Mono)
      switch (P.Symbols[Sym].Kind) {
      case SymbolKind::ThreadIdx:
      case SymbolKind::BlockIdx:
      case SymbolKind::BlockDim:
      case SymbolKind::GridDim:
      case SymbolKind::Param:
      case SymbolKind::TemplateParam:
        break;
      default:
        return std::nullopt;
      }
  return A.Base;
}

/// Whether \p E is evaluated in every iteration of \p L: not under a
/// condition, a short-circuit operator or a nested loop, and the body has no
/// `continue` that could skip it.
bool isUnconditional(ASTContext &Ctx, const RowLoop &L, const Expr *E) {
  if (L.ContainsContinue)
    return false;
  // Walk up from the expression to the loop; every step must evaluate the
  // child it came from unconditionally.
  const Stmt *Child = E;
  for (unsigned Depth = 0; Depth < 64; ++Depth) {
    if (Child == L.Loop->getBody())
      return true;
    auto Parents = Ctx.getParents(*Child);
    if (Parents.size() != 1)
      return false;
    const Stmt *S = Parents[0].get<Stmt>();
    if (!S || S == L.Loop)
      return false;
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      if (Child != If->getCond())
        return false;
    } else if (const auto *Sw = dyn_cast<SwitchStmt>(S)) {
      if (Child != Sw->getCond())
        return false;
    } else if (const auto *CO = dyn_cast<AbstractConditionalOperator>(S)) {
      if (Child != CO->getCond())
        return false;
    } else if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if (BO->isLogicalOp() && Child != BO->getLHS())
        return false;
    } else if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S)) {
      return false;
    }
    Child = S;
  }
  return false;
}

/// Whether the access's address is taken (`&p[j]`): a register cannot stand
/// for it.
bool addressTaken(ASTContext &Ctx, const RowAccess &A) {
  DynTypedNode N = DynTypedNode::create(*A.Expr);
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    auto Parents = Ctx.getParents(N);
    if (Parents.size() != 1)
      return true;
    const Stmt *S = Parents[0].get<Stmt>();
    if (!S)
      return true;
    if (isa<ParenExpr>(S)) {
      N = Parents[0];
      continue;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(S))
      return UO->getOpcode() == UO_AddrOf;
    return false;
  }
  return true;
}

/// Math functions whose result depends on their arguments only (CUDA's
/// float and double math library, its intrinsics and 16-bit conversions).
bool isPureMathFunction(const FunctionDecl *F) {
  static const StringSet<> Names = [] {
    StringSet<> S;
    for (StringRef N :
         {"acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt",
          "ceil", "copysign", "cos", "cosh", "cospi", "erf", "erfc", "exp",
          "exp10", "exp2", "expm1", "fabs", "fdim", "floor", "fma", "fmax",
          "fmin", "fmod", "hypot", "log", "log10", "log1p", "log2", "pow",
          "rcbrt", "rhypot", "rint", "round", "rsqrt", "sin", "sinh", "sinpi",
          "sqrt", "tan", "tanh", "trunc"}) {
      S.insert(N);
      S.insert((N + "f").str());
    }
    for (StringRef N :
         {"__expf", "__exp10f", "__logf", "__log2f", "__log10f", "__sinf",
          "__cosf", "__tanf", "__powf", "__tanhf", "__fdividef", "__frcp_rn",
          "__fsqrt_rn", "__frsqrt_rn", "__half2float", "__float2half",
          "__float2half_rn", "__bfloat162float", "__float2bfloat16",
          "__float2bfloat16_rn", "__int2float_rn", "__float2int_rn"})
      S.insert(N);
    return S;
  }();
  const IdentifierInfo *Id = F ? F->getIdentifier() : nullptr;
  return Id && Names.contains(Id->getName()) &&
         !F->getASTContext().getSourceManager().isWrittenInMainFile(
             F->getLocation());
}

/// Whether \p E computes a value from its operands only: arithmetic, casts,
/// literals, pure math calls, scalar variables and the held reads \p Held.
/// \p Varies: it reads a held column or \p Column; \p Costly: it calls a
/// function or divides (worth a register).
bool isPureRowValue(const Expr *E, const SmallPtrSetImpl<const Expr *> &Held,
                    const VarDecl *Column, bool &Varies, bool &Costly) {
  E = E->IgnoreParens();
  if (Held.contains(E)) {
    Varies = true;
    return true;
  }
  if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(D->getDecl());
    if (!V || !V->getType()->isScalarType() || V->getType()->isPointerType())
      return false;
    Varies |= V == Column;
    return true;
  }
  if (isa<IntegerLiteral, FloatingLiteral, CXXBoolLiteralExpr>(E))
    return true;
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->isAssignmentOp() || BO->isCommaOp() || BO->isLogicalOp())
      return false;
    Costly |= BO->getOpcode() == BO_Div || BO->getOpcode() == BO_Rem;
  } else if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_Deref ||
        UO->getOpcode() == UO_AddrOf)
      return false;
  } else if (const auto *CE = dyn_cast<CallExpr>(E)) {
    if (!isPureMathFunction(CE->getDirectCallee()))
      return false;
    Costly = true;
    for (const Expr *A : CE->arguments())
      if (!isPureRowValue(A, Held, Column, Varies, Costly))
        return false;
    return true;
  } else if (const auto *C = dyn_cast<CastExpr>(E)) {
    if (C->getCastKind() != CK_LValueToRValue &&
        C->getCastKind() != CK_NoOp && !C->getType()->isArithmeticType())
      return false;
  } else if (!isa<CXXConstructExpr, MaterializeTemporaryExpr,
                  CXXBindTemporaryExpr, ExprWithCleanups>(E)) {
    return false;
  }
  if (const auto *CC = dyn_cast<CXXConstructExpr>(E))
    if (!CC->getConstructor()->isCopyOrMoveConstructor() ||
        !CC->getConstructor()->isTrivial())
      return false;
  for (const Stmt *Child : E->children())
    if (!Child || !isa<Expr>(Child) ||
        !isPureRowValue(cast<Expr>(Child), Held, Column, Varies, Costly))
      return false;
  return true;
}

/// Whether \p A and \p B compute the same value, \p VA in A standing for \p VB
/// in B (each loop's column variable).
bool sameValue(const Stmt *A, const Stmt *B, const VarDecl *VA,
               const VarDecl *VB) {
  if (const auto *EA = dyn_cast<Expr>(A))
    A = EA->IgnoreParens();
  if (const auto *EB = dyn_cast<Expr>(B))
    B = EB->IgnoreParens();
  if (A->getStmtClass() != B->getStmtClass())
    return false;
  if (const auto *EA = dyn_cast<Expr>(A))
    if (EA->getType().getCanonicalType() !=
        cast<Expr>(B)->getType().getCanonicalType())
      return false;
  if (const auto *DA = dyn_cast<DeclRefExpr>(A)) {
    const ValueDecl *X = DA->getDecl(), *Y = cast<DeclRefExpr>(B)->getDecl();
    return X == Y ? X != VA : (X == VA && Y == VB);
  }
  if (const auto *IA = dyn_cast<IntegerLiteral>(A))
    return IA->getValue() == cast<IntegerLiteral>(B)->getValue();
  if (const auto *FA = dyn_cast<FloatingLiteral>(A))
    return FA->getValue().bitwiseIsEqual(cast<FloatingLiteral>(B)->getValue());
  if (const auto *BA = dyn_cast<BinaryOperator>(A))
    if (BA->getOpcode() != cast<BinaryOperator>(B)->getOpcode())
      return false;
  if (const auto *UA = dyn_cast<UnaryOperator>(A))
    if (UA->getOpcode() != cast<UnaryOperator>(B)->getOpcode())
      return false;
  if (const auto *CA = dyn_cast<CastExpr>(A))
    if (CA->getCastKind() != cast<CastExpr>(B)->getCastKind())
      return false;
  if (const auto *CA = dyn_cast<CallExpr>(A))
    if (!CA->getDirectCallee() ||
        CA->getDirectCallee() != cast<CallExpr>(B)->getDirectCallee())
      return false;
  auto IA = A->child_begin(), IB = B->child_begin();
  for (; IA != A->child_end() && IB != B->child_end(); ++IA, ++IB) {
    if (!*IA || !*IB) {
      if (*IA != *IB)
        return false;
      continue;
    }
    if (!sameValue(*IA, *IB, VA, VB))
      return false;
  }
  return IA == A->child_end() && IB == B->child_end();
}

/// The variables \p E reads.
void collectVars(const Stmt *E, SmallPtrSetImpl<const VarDecl *> &Vars) {
  if (const auto *D = dyn_cast<DeclRefExpr>(E))
    if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
      Vars.insert(V);
  for (const Stmt *Child : E->children())
    if (Child)
      collectVars(Child, Vars);
}

/// Every expression under \p S, outermost first.
void collectExprs(const Stmt *S, std::vector<const Expr *> &Out) {
  if (const auto *E = dyn_cast<Expr>(S))
    Out.push_back(E);
  for (const Stmt *Child : S->children())
    if (Child)
      collectExprs(Child, Out);
}

bool overlaps(const SourceManager &SM, SourceRange A, SourceRange B) {
  return !SM.isBeforeInTranslationUnit(A.getEnd(), B.getBegin()) &&
         !SM.isBeforeInTranslationUnit(B.getEnd(), A.getBegin());
}

/// The call converting a 16-bit element to float around \p Use
/// (`__half2float(in[...])`), if any.
const CallExpr *conversionAround(ASTContext &Ctx, const Expr *Use) {
  DynTypedNode N = DynTypedNode::create(*Use);
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    auto Parents = Ctx.getParents(N);
    if (Parents.size() != 1)
      return nullptr;
    const Stmt *S = Parents[0].get<Stmt>();
    if (!S)
      return nullptr;
    if (const auto *Call = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *F = Call->getDirectCallee();
      if (Call->getNumArgs() == 1 && isPureMathFunction(F) &&
          F->getReturnType()->isSpecificBuiltinType(BuiltinType::Float) &&
          Ctx.getTypeSize(Use->getType()) == 16)
        return Call;
      return nullptr;
    }
    if (!isa<ParenExpr, ImplicitCastExpr, CXXConstructExpr,
             MaterializeTemporaryExpr>(S))
      return nullptr;
    N = Parents[0];
  }
  return nullptr;
}

/// Sets the stream's Sites, and holds converted values when every use
/// converts the element to float with the same function.
void holdConverted(ASTContext &Ctx, RowCacheStream &S) {
  S.Held = S.Element;
  std::vector<const Expr *> Calls;
  const FunctionDecl *Convert = nullptr;
  for (const RowAccess *U : S.Uses) {
    const CallExpr *Call = conversionAround(Ctx, U->Expr);
    if (!Call || (Convert && Call->getDirectCallee() != Convert)) {
      Calls.clear();
      break;
    }
    Convert = Call->getDirectCallee();
    Calls.push_back(Call);
  }
  if (Calls.empty()) {
    for (const RowAccess *U : S.Uses)
      S.Sites.push_back(U->Expr);
    return;
  }
  S.Sites = std::move(Calls);
  S.Convert = Convert;
  S.Held = Ctx.FloatTy;
}

/// For each held value, a stream whose registers can take it in place: the
/// same type, read by the value's producer, and not read in the producer's
/// loop or later other than inside the value's producer and readers.
void placeValuesInStreams(const SourceManager &SM, const RowProgram &P,
                          const RowCache &C,
                          std::vector<RowCacheValue> &Values) {
  std::vector<bool> Taken(C.Streams.size(), false);
  auto Inside = [&](SourceRange Outer, const Expr *Site) {
    return SM.isPointWithin(Site->getBeginLoc(), Outer.getBegin(),
                            Outer.getEnd());
  };
  for (RowCacheValue &V : Values)
    for (size_t I = 0; I < C.Streams.size() && V.InStream < 0; ++I) {
      const RowCacheStream &S = C.Streams[I];
      if (Taken[I] || S.Held.getCanonicalType() !=
                          V.Type.getUnqualifiedType().getCanonicalType())
        continue;
      SourceLocation ProducerLoop = P.Loops[V.ProducerLoop].Loop->getBeginLoc();
      bool ReadByProducer = false, ReadAfter = false;
      for (const Expr *Site : S.Sites) {
        if (Inside(V.Producer->getSourceRange(), Site)) {
          ReadByProducer = true;
          continue;
        }
        // Reads in earlier loops are done before the value replaces the
        // column; any other read must be one of the value's readers.
        if (SM.isBeforeInTranslationUnit(Site->getBeginLoc(), ProducerLoop))
          continue;
        ReadAfter |= llvm::none_of(V.Readers, [&](const auto &R) {
          return Inside(R.second->getSourceRange(), Site);
        });
      }
      if (!ReadByProducer || ReadAfter)
        continue;
      V.InStream = I;
      Taken[I] = true;
    }
}

/// The values the cached loops of \p C compute more than once (RowCacheValue).
void findHeldValues(ASTContext &Ctx, const RowProgram &P, RowCache &C) {
  const SourceManager &SM = Ctx.getSourceManager();
  SmallPtrSet<const Expr *, 16> Held;
  for (const RowCacheStream &S : C.Streams)
    for (const RowAccess *U : S.Uses)
      Held.insert(U->Expr);
  std::map<unsigned, size_t> StepOf;
  for (size_t S = 0; S < P.Steps.size(); ++S)
    if (P.Steps[S].Kind == RowStep::Loop)
      StepOf[P.Steps[S].LoopIndex] = S;
  // Expressions already producing or reading a kept value.
  std::vector<const Expr *> Claimed;
  auto Free = [&](const Expr *E) {
    return llvm::none_of(Claimed, [&](const Expr *X) {
      return overlaps(SM, X->getSourceRange(), E->getSourceRange());
    });
  };
  // Whether no step from \p First to \p Last writes a variable \p E reads.
  auto Unchanged = [&](const Expr *E, const VarDecl *Column, unsigned First,
                       unsigned Last) {
    SmallPtrSet<const VarDecl *, 8> Vars;
    collectVars(E, Vars);
    for (const VarDecl *V : Vars) {
      if (V == Column)
        continue;
      for (size_t S = StepOf[First]; S <= StepOf[Last]; ++S)
        if (!isNeverModifiedAfterInit(V, P.Steps[S].S, Ctx))
          return false;
    }
    return true;
  };

  // Every expression of each cached loop's body, outermost first.
  std::vector<std::vector<const Expr *>> ExprsOf(C.Loops.size());
  for (size_t L = 0; L < C.Loops.size(); ++L)
    collectExprs(P.Loops[C.Loops[L]].Loop->getBody(), ExprsOf[L]);

  for (size_t B = 1; B < C.Loops.size(); ++B) {
    const RowLoop &Reader = P.Loops[C.Loops[B]];
    for (const Expr *E2 : ExprsOf[B]) {
      if (!Free(E2) || isa<ParenExpr>(E2))
        continue;
      bool Varies = false, Costly = false;
      if (!E2->getType()->isArithmeticType() ||
          !isPureRowValue(E2, Held, Reader.Var, Varies, Costly) || !Varies ||
          !Costly)
        continue;
      // The earliest cached loop that computes it in every iteration.
      for (size_t A = 0; A < B; ++A) {
        const RowLoop &Producer = P.Loops[C.Loops[A]];
        if (*Producer.ConstStart > *Reader.ConstStart)
          continue;
        const Expr *E1 = nullptr;
        for (const Expr *X : ExprsOf[A])
          if (!isa<ParenExpr>(X) &&
              sameValue(X, E2, Producer.Var, Reader.Var) &&
              isUnconditional(Ctx, Producer, X)) {
            E1 = X;
            break;
          }
        if (!E1 || !Unchanged(E2, Reader.Var, C.Loops[A], C.Loops[B]))
          continue;
        RowCacheValue *V = nullptr;
        for (RowCacheValue &X : C.Values)
          if (X.Producer == E1)
            V = &X;
        if (!V) {
          if (!Free(E1))
            continue;
          C.Values.push_back({C.Loops[A], E1, {}, E1->getType()});
          V = &C.Values.back();
          Claimed.push_back(E1);
        }
        V->Readers.push_back({C.Loops[B], E2});
        Claimed.push_back(E2);
        break;
      }
    }
  }
  placeValuesInStreams(SM, P, C, C.Values);
}

struct Candidate {
  const VarDecl *Root = nullptr;
  IndexExpr Base;
  /// (loop, access) for every read.
  std::vector<std::pair<unsigned, const RowAccess *>> Reads;
};

} // namespace

Expected<RowCache> analyzeRowCache(ASTContext &Ctx, const KernelInfo &K,
                                   const RowProgram &P) {
  std::string Kernel = "kernel '" + K.name() + "'";
  // Loops over the same columns, grouped by the text of their bound.
  std::map<std::string, std::vector<unsigned>> Groups;
  std::vector<std::string> Notes;
  for (unsigned I = 0; I < P.Loops.size(); ++I) {
    const RowLoop &L = P.Loops[I];
    if (L.Inclusive || !L.ConstStart || *L.ConstStart < 0 ||
        !L.Var->getType()->isSignedIntegerType() ||
        !L.Bound->getType()->isSignedIntegerType() ||
        !isKernelInvariant(L.Bound, K.Decl))
      continue;
    Groups[sourceText(Ctx, L.Bound->getSourceRange())].push_back(I);
  }

  RowCache Best;
  size_t BestScore = 0;
  for (const auto &[BoundText, Loops] : Groups) {
    // The arrays read at `p[base + j]` by these loops.
    std::vector<Candidate> Cands;
    for (unsigned I : Loops)
      for (const RowAccess &A : P.Loops[I].Accesses) {
        if (!A.Read || A.Write)
          continue;
        std::optional<IndexExpr> Base = rowBase(P, A);
        if (!Base)
          continue;
        Candidate *C = nullptr;
        for (Candidate &X : Cands)
          if (X.Root == A.Root && X.Base == *Base)
            C = &X;
        if (!C) {
          Cands.push_back({A.Root, *Base, {}});
          C = &Cands.back();
        }
        C->Reads.push_back({I, &A});
      }

    RowCache Cache;
    Cache.Bound = P.Loops[Loops.front()].Bound;
    std::vector<Candidate> Kept;
    for (Candidate &C : Cands) {
      std::string Name = "'" + C.Root->getNameAsString() + "'";
      unsigned First = C.Reads.front().first, Last = C.Reads.back().first;
      if (First == Last)
        continue; // Read by one loop only: nothing to reuse.
      auto Drop = [&](const Twine &Why) {
        Notes.push_back("not holding " + Name + " in registers: " + Why.str());
      };
      // Nothing writes the array while it is held.
      std::optional<std::string> Blocker;
      bool StoreBetween = false;
      for (size_t S = 0; S < P.Steps.size() && !Blocker; ++S) {
        const RowStep &Step = P.Steps[S];
        if (Step.Kind != RowStep::Loop) {
          continue;
        }
        for (const RowAccess &A : P.Loops[Step.LoopIndex].Accesses) {
          if (!A.Write)
            continue;
          if (A.Root == C.Root)
            Blocker = "the loop at " +
                      describeLocation(Ctx.getSourceManager(),
                                       P.Loops[Step.LoopIndex].Loop->getBeginLoc()) +
                      " writes it";
          else if ((unsigned)Step.LoopIndex >= First &&
                   (unsigned)Step.LoopIndex <= Last)
            if (std::optional<std::string> Why =
                    rowPointersMayOverlap(Ctx, K, A.Root, C.Root))
              Blocker = *Why;
        }
      }
      // Per-row stores between the first and the last read.
      bool Between = false;
      for (const RowStep &Step : P.Steps) {
        if (Step.Kind == RowStep::Loop) {
          if ((unsigned)Step.LoopIndex == First)
            Between = true;
          if ((unsigned)Step.LoopIndex == Last)
            Between = false;
          continue;
        }
        StoreBetween |= Between && Step.WritesMemory;
      }
      if (Blocker) {
        Drop(*Blocker);
        continue;
      }
      if (StoreBetween) {
        Drop("a per-row store between its reads may write it");
        continue;
      }
      bool AddressUse = false;
      for (const auto &[I, A] : C.Reads)
        AddressUse |= addressTaken(Ctx, *A);
      if (AddressUse) {
        Drop("a loop takes the address of one of its elements");
        continue;
      }
      Kept.push_back(C);
    }
    if (Kept.empty())
      continue;

    // The first held column: the smallest start of a loop that reads a kept
    // stream; each stream needs an unconditional read in a loop starting
    // there, with no early exit between the load and that loop.
    int64_t A0 = INT64_MAX;
    for (const Candidate &C : Kept)
      for (const auto &[I, A] : C.Reads)
        A0 = std::min(A0, *P.Loops[I].ConstStart);
    for (const Candidate &C : Kept) {
      const RowAccess *Fill = nullptr;
      unsigned FillLoop = 0;
      for (const auto &[I, A] : C.Reads)
        if (!Fill && *P.Loops[I].ConstStart == A0 &&
            isUnconditional(Ctx, P.Loops[I], A->Expr))
          Fill = A, FillLoop = I;
      std::string Name = "'" + C.Root->getNameAsString() + "'";
      if (!Fill) {
        Notes.push_back("not holding " + Name +
                        " in registers: no loop from column " +
                        std::to_string(A0) +
                        " reads it in every iteration, so loading the whole "
                        "row could read what the kernel never reads");
        continue;
      }
      // The registers are loaded just before the stream's first loop.
      const unsigned FirstLoop = C.Reads.front().first;
      bool Exit = false, In = false;
      for (const RowStep &Step : P.Steps) {
        if (Step.Kind == RowStep::Loop) {
          if ((unsigned)Step.LoopIndex == FirstLoop)
            In = true;
          if ((unsigned)Step.LoopIndex == FillLoop)
            break;
          continue;
        }
        Exit |= In && Step.Returns;
      }
      if (Exit) {
        Notes.push_back("not holding " + Name +
                        " in registers: the row may end (return) before the "
                        "loop that reads all of it");
        continue;
      }
      RowCacheStream S;
      S.Root = C.Root;
      S.Fill = Fill;
      S.FillLoop = FillLoop;
      S.FirstLoop = FirstLoop;
      S.Element = Fill->Expr->getType().getUnqualifiedType();
      for (const auto &[I, A] : C.Reads) {
        S.Uses.push_back(A);
        if (!Cache.isCachedLoop(I))
          Cache.Loops.push_back(I);
      }
      holdConverted(Ctx, S);
      Cache.Streams.push_back(std::move(S));
    }
    if (Cache.Streams.empty())
      continue;
    llvm::sort(Cache.Loops);
    Cache.FirstColumn = A0;
    size_t Score = 0;
    for (const RowCacheStream &S : Cache.Streams)
      Score += S.Uses.size();
    if (Score > BestScore) {
      BestScore = Score;
      findHeldValues(Ctx, P, Cache);
      Best = std::move(Cache);
    }
  }
  Best.Notes = std::move(Notes);
  if (Best.Streams.empty()) {
    if (Best.Notes.empty())
      return refuse(Kernel +
                    " reads no array at the same columns in two of its "
                    "loops over the row, so there is nothing to hold in "
                    "registers between them");
    std::string Why = Kernel + " has no row data that may be held in "
                               "registers: ";
    for (size_t I = 0; I < Best.Notes.size(); ++I)
      Why += (I ? "; " : "") + Best.Notes[I];
    return refuse(Why);
  }
  return Best;
}

std::optional<RowStarts> rowStarts(const RowProgram &P, const RowAccess &A,
                                   int64_t Column) {
  const SymbolTable &Sy = P.Symbols;
  if (!A.Root || !A.Base || A.Stride != 1)
    return std::nullopt;
  std::optional<unsigned> Tx = Sy.findBuiltin(SymbolKind::ThreadIdx, 0),
                          Bx = Sy.findBuiltin(SymbolKind::BlockIdx, 0),
                          Bd = Sy.findBuiltin(SymbolKind::BlockDim, 0);
  if (!Tx || !Bx || !Bd)
    return std::nullopt;
  // Symbols that a condition at the top of the kernel can name and whose
  // values are the same in every thread.
  auto Uniform = [&](const IndexExpr &E) {
    for (const auto &[M, C] : E.terms())
      for (unsigned S : M)
        switch (Sy[S].Kind) {
        case SymbolKind::Param:
        case SymbolKind::TemplateParam:
        case SymbolKind::BlockDim:
        case SymbolKind::GridDim:
          break;
        default:
          return false;
        }
    return true;
  };
  // Base = C * (blockIdx.x * blockDim.x + threadIdx.x) + U: the row r
  // starts at C * r + U for every r, not only the rows of the original
  // mapping (the rewrites give threads other rows).
  std::optional<IndexExpr> C = A.Base->coefficientOf(*Tx);
  if (!C || C->isZero() || !Uniform(*C))
    return std::nullopt;
  IndexExpr Row =
      IndexExpr::symbol(*Bx) * IndexExpr::symbol(*Bd) + IndexExpr::symbol(*Tx);
  IndexExpr U = *A.Base - *C * Row;
  if (!Uniform(U))
    return std::nullopt;
  RowStarts R;
  R.Stride = C->str(Sy);
  R.ConstStride = C->getConstant();
  R.First = (U + IndexExpr::constant(Column)).str(Sy);
  return R;
}

} // namespace cuda_opt
