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
#include "clang/AST/RecursiveASTVisitor.h"

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

/// Whether \p A is evaluated in every iteration of \p L: not under a
/// condition, a short-circuit operator or a nested loop, and the body has no
/// `continue` that could skip it.
bool isUnconditional(ASTContext &Ctx, const RowLoop &L, const RowAccess &A) {
  if (L.ContainsContinue)
    return false;
  // Walk up from the access to the loop; every step must evaluate the
  // child it came from unconditionally.
  const Stmt *Child = A.Expr;
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
            isUnconditional(Ctx, P.Loops[I], *A))
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

} // namespace cuda_opt
