//===- Vectorize.cpp - Vector loads and stores for elementwise kernels ----===//
//
// Part of cuda-opt.
//
// vectorize{width=W} makes each thread of an elementwise kernel handle W
// consecutive elements with one vector load and store per pointer:
//
//   int i = blockIdx.x * blockDim.x + threadIdx.x;
//   if (i < n / 4 && <every pointer 16-byte aligned>) {
//     const float4 x4 = reinterpret_cast<const float4 *>(x)[i];
//     float4 y4 = reinterpret_cast<float4 *>(y)[i];
//     y4.x = a * x4.x + y4.x;          // the body once per lane
//     ...
//     reinterpret_cast<float4 *>(y)[i] = y4;
//   } else if (i <= n / 4) {           // the tail, or unaligned pointers
//     for (int k = i * 4; k < n && k < i * 4 + 4; ++k)
//       y[k] = a * x[k] + y[k];
//   }
//
// and divides every launch's grid by W, rounding up. It needs every memory
// access of the body to be `p[i]` on a pointer parameter, all of one element
// type with a vector form (float, int, unsigned; double and __half with
// W=2), straight-line code, and no read of one pointer after a write to
// another (they could alias, and the vector path loads everything first).
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Transforms/Utils/SourceEdits.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// One `p[i]` in the per-element work.
struct Access {
  const ArraySubscriptExpr *Expr = nullptr;
  const ParmVarDecl *Ptr = nullptr;
  /// Where the write happens: the end of the assignment, increment or call.
  SourceLocation WriteLoc;
  bool Write = false;
  bool Read = false;
};

/// What the body does with memory and with the index.
class BodyScan : public RecursiveASTVisitor<BodyScan> {
public:
  BodyScan(ASTContext &Ctx, const VarDecl *Index) : Ctx(Ctx), Index(Index) {}

  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    Subscripts.push_back(E);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (E->getDecl() == Index)
      IndexRefs.push_back(E);
    else if (const auto *P = dyn_cast<ParmVarDecl>(E->getDecl()))
      if (P->getType()->isPointerType())
        PointerRefs.push_back(E);
    return true;
  }
  bool VisitStmt(Stmt *S) {
    if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt, GotoStmt>(S) && !Loop)
      Loop = S;
    if (isa<ReturnStmt>(S) && !Return)
      Return = S;
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->getOpcode() == UO_AddrOf && !AddressTaken)
      AddressTaken = UO;
    return true;
  }

  ASTContext &Ctx;
  const VarDecl *Index;
  std::vector<const ArraySubscriptExpr *> Subscripts;
  std::vector<const DeclRefExpr *> IndexRefs;
  std::vector<const DeclRefExpr *> PointerRefs;
  const Stmt *Loop = nullptr;
  const Stmt *Return = nullptr;
  const UnaryOperator *AddressTaken = nullptr;
};

/// The vector type for \p W elements of \p Elem, or "" when there is none.
std::string vectorTypeFor(ASTContext &Ctx, QualType Elem, int64_t W) {
  Elem = Elem.getUnqualifiedType().getCanonicalType();
  std::string Scalar = Elem.getAsString(Ctx.getPrintingPolicy());
  if (Elem->isSpecificBuiltinType(BuiltinType::Float))
    return "float" + std::to_string(W);
  if (Elem->isSpecificBuiltinType(BuiltinType::Int))
    return "int" + std::to_string(W);
  if (Elem->isSpecificBuiltinType(BuiltinType::UInt))
    return "uint" + std::to_string(W);
  if (Elem->isSpecificBuiltinType(BuiltinType::Double) && W == 2)
    return "double2";
  if (const auto *RD = Elem->getAsCXXRecordDecl())
    if (RD->getName() == "__half" && W == 2)
      return "__half2";
  return "";
}

/// The expression that writes \p E (an assignment, increment, or call that
/// binds it to a non-const reference), or null when \p E is only read.
const Expr *writerOf(ASTContext &Ctx, const Expr *E) {
  const Expr *Cur = E;
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    if (Parents.empty())
      return nullptr;
    const auto *P = Parents[0].get<Expr>();
    if (!P)
      return nullptr;
    if (isa<ParenExpr>(P)) {
      Cur = P;
      continue;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(P))
      return BO->isAssignmentOp() && BO->getLHS()->IgnoreParens() == Cur
                 ? P
                 : nullptr;
    if (const auto *UO = dyn_cast<UnaryOperator>(P))
      return UO->isIncrementDecrementOp() ? P : nullptr;
    // Class-type elements (__half) assign through operator calls.
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(P)) {
      OverloadedOperatorKind K = OC->getOperator();
      bool Mutates =
          OC->isAssignmentOp() || K == OO_PlusPlus || K == OO_MinusMinus;
      if (OC->getNumArgs() > 0 && OC->getArg(0)->IgnoreParens() == Cur)
        return Mutates ? P : nullptr;
    }
    if (const auto *CE = dyn_cast<CallExpr>(P)) {
      const FunctionDecl *FD = CE->getDirectCallee();
      for (unsigned I = 0; I < CE->getNumArgs(); ++I) {
        if (CE->getArg(I)->IgnoreParens() != Cur)
          continue;
        if (!FD || I >= FD->getNumParams())
          return P;
        QualType T = FD->getParamDecl(I)->getType();
        return T->isReferenceType() &&
                       !T.getNonReferenceType().isConstQualified()
                   ? P
                   : nullptr;
      }
    }
    return nullptr;
  }
}

/// Compound assignments and increments also read.
bool isReadToo(ASTContext &Ctx, const Expr *E) {
  DynTypedNodeList Parents = Ctx.getParents(*E);
  if (Parents.empty())
    return true;
  if (const auto *BO = Parents[0].get<BinaryOperator>())
    return BO->getOpcode() != BO_Assign;
  if (const auto *OC = Parents[0].get<CXXOperatorCallExpr>())
    return OC->getOperator() != OO_Equal;
  return true;
}

/// Everything the rewrite needs, checked.
struct VectorizePlan : TransformPlan {
  ThreadMapping M;
  std::vector<Access> Accesses;
  /// Accessed pointers in order of first access.
  std::vector<const ParmVarDecl *> Pointers;
  std::vector<const DeclRefExpr *> IndexRefs;
  std::string VectorType;
  int64_t Width = 4;
};

class Vectorize : public TransformWithPlan<VectorizePlan> {
public:
  StringRef getName() const override { return "vectorize"; }
  bool changesLaunchConfig(const ParamValues &) const override { return true; }
  StringRef getSummary() const override {
    return "load and store W consecutive elements per thread with vector "
           "types (float4, int2, half2, ...)";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"width", 4, 2, 4, "elements per thread and per vector access",
         /*PowerOfTwo=*/true},
    };
    return Specs;
  }

  Expected<VectorizePlan> makePlan(const KernelTarget &T,
                                   const ParamValues &Params) const override {
    int64_t W = Params.get("width");
    const std::string Name = T.Kernel.name();
    VectorizePlan P;
    P.Width = W;
    Expected<ThreadMapping> M = analyzeThreadMapping(T.Ctx, T.Kernel);
    if (!M)
      return M.takeError();
    P.M = std::move(*M);
    if (P.M.rank() != 1)
      return refuse("kernel '" + Name +
                    "' maps threads in 2-D; vectorize handles 1-D kernels "
                    "only");
    if (P.M.x().Inclusive)
      return refuse("kernel '" + Name +
                    "' guards with 'i <= n'; vectorize "
                    "needs 'i < n'");
    if (Error E = analyzeLaunches(T.Ctx, T.Kernel, P.M).takeError())
      return std::move(E);

    const VarDecl *Index = P.M.x().Var;
    const SourceManager &SM = T.getSourceManager();
    auto At = [&](SourceLocation L) { return describeLocation(SM, L); };
    BodyScan Scan(T.Ctx, Index);
    for (const Stmt *S : P.M.Body)
      Scan.TraverseStmt(const_cast<Stmt *>(S));
    if (Scan.Loop)
      return refuse("kernel '" + Name + "' has a loop at " +
                    At(Scan.Loop->getBeginLoc()) +
                    " in its per-element work; vectorize handles "
                    "straight-line bodies only");
    if (Scan.Return)
      return refuse("kernel '" + Name + "' returns at " +
                    At(Scan.Return->getBeginLoc()) +
                    " inside its per-element work, which would skip the "
                    "other lanes of a vector");
    if (Scan.AddressTaken)
      return refuse("kernel '" + Name + "' takes an address at " +
                    At(Scan.AddressTaken->getBeginLoc()) +
                    " in its per-element work");

    QualType Elem;
    for (const ArraySubscriptExpr *E : Scan.Subscripts) {
      std::string Text = sourceText(T.Ctx, E->getSourceRange());
      const auto *Base =
          dyn_cast<DeclRefExpr>(E->getBase()->IgnoreParenImpCasts());
      const auto *Ptr = Base ? dyn_cast<ParmVarDecl>(Base->getDecl()) : nullptr;
      if (!Ptr || !Ptr->getType()->isPointerType() ||
          !refersTo(E->getIdx(), Index) ||
          E->getLHS()->IgnoreParenImpCasts() != Base)
        return refuse("the access '" + Text + "' at " + At(E->getBeginLoc()) +
                      " is not 'p[" + Index->getNameAsString() +
                      "]' on a pointer parameter p, so its elements are not "
                      "the thread's own");
      QualType PE = Ptr->getType()->getPointeeType();
      if (PE.isVolatileQualified())
        return refuse("pointer '" + Ptr->getNameAsString() + "' is volatile");
      if (!Elem.isNull() && !T.Ctx.hasSameUnqualifiedType(Elem, PE))
        return refuse("kernel '" + Name + "' accesses elements of type '" +
                      Elem.getUnqualifiedType().getAsString() + "' and '" +
                      PE.getUnqualifiedType().getAsString() +
                      "'; vectorize needs one element type");
      Elem = PE;
      Access A;
      A.Expr = E;
      A.Ptr = Ptr;
      const Expr *Writer = writerOf(T.Ctx, E);
      A.Write = Writer != nullptr;
      if (Writer)
        A.WriteLoc = Writer->getEndLoc();
      A.Read = !A.Write || isReadToo(T.Ctx, E);
      P.Accesses.push_back(A);
      if (!is_contained(P.Pointers, Ptr))
        P.Pointers.push_back(Ptr);
    }
    if (P.Accesses.empty())
      return refuse("kernel '" + Name + "' accesses no 'p[" +
                    Index->getNameAsString() + "]' to vectorize");
    P.VectorType = vectorTypeFor(T.Ctx, Elem, W);
    if (P.VectorType.empty())
      return refuse("elements of type '" +
                    Elem.getUnqualifiedType().getAsString() + "' have no " +
                    Twine(W).str() +
                    "-wide vector type (float, int and unsigned do; double "
                    "and __half only with width=2)");

    // Pointers used other than as p[i] (passed on, offset, compared).
    for (const DeclRefExpr *R : Scan.PointerRefs) {
      bool AsBase = any_of(P.Accesses, [&](const Access &A) {
        return A.Expr->getBase()->IgnoreParenImpCasts() == R;
      });
      if (!AsBase && is_contained(P.Pointers, R->getDecl()))
        return refuse("pointer '" + R->getDecl()->getNameAsString() +
                      "' is used other than as an element access at " +
                      At(R->getBeginLoc()));
    }

    // The vector path loads every pointer before the first lane and stores
    // after the last, so no pointer may be read after another was written.
    // Reads happen where the access is written, stores once the writing
    // expression is evaluated: `y[i] = x[i]` reads x before it stores y.
    struct Event {
      SourceLocation Loc;
      bool IsWrite;
      const Access *A;
    };
    std::vector<Event> Events;
    for (const Access &A : P.Accesses) {
      if (A.Read)
        Events.push_back({A.Expr->getBeginLoc(), false, &A});
      if (A.Write)
        Events.push_back({A.WriteLoc, true, &A});
    }
    std::stable_sort(Events.begin(), Events.end(),
                     [&](const Event &X, const Event &Y) {
                       return SM.isBeforeInTranslationUnit(X.Loc, Y.Loc);
                     });
    const ParmVarDecl *Written = nullptr;
    for (const Event &Ev : Events) {
      if (Ev.IsWrite) {
        Written = Ev.A->Ptr;
        continue;
      }
      if (Written && Ev.A->Ptr != Written)
        return refuse("kernel '" + Name + "' reads '" +
                      sourceText(T.Ctx, Ev.A->Expr->getSourceRange()) +
                      "' at " + At(Ev.Loc) + " after writing '" +
                      Written->getNameAsString() +
                      "[...]'; the two may alias, and the vector path reads "
                      "everything first");
    }
    llvm::sort(P.Accesses, [&](const Access &A, const Access &B) {
      return SM.isBeforeInTranslationUnit(A.Expr->getBeginLoc(),
                                          B.Expr->getBeginLoc());
    });
    P.IndexRefs = Scan.IndexRefs;
    return P;
  }

  /// A pointer that is written but never read, with a plain `p[i] = ...;`
  /// among the top-level statements, needs no load.
  static bool needsLoad(const VectorizePlan &P, const ParmVarDecl *Ptr) {
    bool Read = false;
    for (const Access &A : P.Accesses)
      if (A.Ptr == Ptr && A.Read)
        Read = true;
    if (Read)
      return true;
    std::vector<const Stmt *> Top;
    for (const Stmt *S : P.M.Body) {
      if (const auto *CS = dyn_cast<CompoundStmt>(S))
        Top.insert(Top.end(), CS->body_begin(), CS->body_end());
      else
        Top.push_back(S);
    }
    for (const Stmt *S : Top) {
      if (const auto *EWC = dyn_cast<ExprWithCleanups>(S))
        S = EWC->getSubExpr();
      const Expr *Target = nullptr;
      if (const auto *BO = dyn_cast<BinaryOperator>(S))
        if (BO->getOpcode() == BO_Assign)
          Target = BO->getLHS();
      if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S))
        if (OC->getOperator() == OO_Equal && OC->getNumArgs() == 2)
          Target = OC->getArg(0);
      if (!Target)
        continue;
      for (const Access &A : P.Accesses)
        if (A.Ptr == Ptr && A.Expr == Target->IgnoreParens())
          return false;
    }
    return true;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const VectorizePlan &P) const override {
    int64_t W = P.Width;
    const ThreadMapping &M = P.M;
    const VarDecl *Index = M.x().Var;
    std::string I = Index->getNameAsString();
    std::string Type = indexTypeText(T.Ctx, Index);
    std::string WS = std::to_string(W);
    std::string Bound = parenthesizedText(T.Ctx, M.x().Bound);
    std::string VT = P.VectorType;
    static const char Lanes[] = {'x', 'y', 'z', 'w'};

    // A name per pointer for its vector, e.g. x4.
    std::vector<std::string> Taken;
    std::map<const ParmVarDecl *, std::string> VecName;
    for (const ParmVarDecl *Ptr : P.Pointers) {
      std::string N =
          freshName(T.Kernel.Decl, Ptr->getNameAsString() + WS, Taken);
      Taken.push_back(N);
      VecName[Ptr] = N;
    }
    std::string K = freshName(T.Kernel.Decl, "k", Taken);

    std::vector<const ParmVarDecl *> WrittenOrder;
    for (const Access &A : P.Accesses)
      if (A.Write) {
        llvm::erase(WrittenOrder, A.Ptr);
        WrittenOrder.push_back(A.Ptr);
      }

    auto ConstOf = [](const ParmVarDecl *Ptr) {
      return Ptr->getType()->getPointeeType().isConstQualified();
    };
    auto VecPtr = [&](const ParmVarDecl *Ptr) {
      return "reinterpret_cast<" + std::string(ConstOf(Ptr) ? "const " : "") +
             VT + " *>(" + Ptr->getNameAsString() + ")";
    };

    std::string Cond = I + " < " + Bound + " / " + WS;
    for (const ParmVarDecl *Ptr : P.Pointers)
      Cond += " &&\n reinterpret_cast<size_t>(" + Ptr->getNameAsString() +
              ") % sizeof(" + VT + ") == 0";

    std::string Vec = "if (" + Cond + ") {\n";
    for (const ParmVarDecl *Ptr : P.Pointers) {
      bool Stored = is_contained(WrittenOrder, Ptr);
      if (!needsLoad(P, Ptr)) {
        Vec += VT + " " + VecName[Ptr] + ";\n";
        continue;
      }
      Vec += std::string(Stored ? "" : "const ") + VT + " " + VecName[Ptr] +
             " = " + VecPtr(Ptr) + "[" + I + "];\n";
    }

    SourceRange Work = bodyRange(T.Ctx, M);
    bool HasDecls = false;
    for (const Stmt *S : M.Body)
      if (isa<DeclStmt>(S))
        HasDecls = true;
    for (int64_t L = 0; L < W; ++L) {
      std::vector<std::pair<SourceRange, std::string>> Edits;
      for (const Access &A : P.Accesses)
        Edits.emplace_back(A.Expr->getSourceRange(),
                           VecName.at(A.Ptr) + "." + Lanes[L]);
      for (const DeclRefExpr *R : P.IndexRefs) {
        bool InAccess = any_of(P.Accesses, [&](const Access &A) {
          return A.Expr->getIdx()->IgnoreParenImpCasts() == R;
        });
        if (!InAccess)
          Edits.emplace_back(R->getSourceRange(), "(" + I + " * " + WS + " + " +
                                                      std::to_string(L) + ")");
      }
      Expected<std::string> Lane = textWithEdits(T.Ctx, Work, Edits);
      if (!Lane)
        return Lane.takeError();
      Vec += HasDecls ? "{\n" + *Lane + "\n}\n" : *Lane + "\n";
    }
    for (const ParmVarDecl *Ptr : WrittenOrder)
      Vec += VecPtr(Ptr) + "[" + I + "] = " + VecName[Ptr] + ";\n";
    Vec += "}";

    // The scalar tail: the original work with the index renamed.
    std::vector<std::pair<SourceRange, std::string>> Renames;
    for (const DeclRefExpr *R : P.IndexRefs)
      Renames.emplace_back(R->getSourceRange(), K);
    Expected<std::string> Scalar = textWithEdits(T.Ctx, Work, Renames);
    if (!Scalar)
      return Scalar.takeError();
    std::string First = I + " * " + WS;
    std::string Tail = " else if (" + I + " <= " + Bound + " / " + WS +
                       ") {\nfor (" + Type + " " + K + " = " + First + "; " +
                       K + " < " + Bound + " && " + K + " < " + First + " + " +
                       WS + "; ++" + K + ") {\n" + *Scalar + "\n}\n}";

    const SourceManager &SM = T.getSourceManager();
    tooling::Replacements R;
    SourceRange Region(M.Guard->getBeginLoc(), M.Region.getEnd());
    if (Error E = R.add(
            tooling::Replacement(SM, CharSourceRange::getTokenRange(Region),
                                 Vec + Tail, T.Ctx.getLangOpts())))
      return std::move(E);
    for (const LaunchSite &L : T.Kernel.Launches)
      if (Error E = rewriteGridX(
              T.Ctx, L, [&](StringRef G) { return ceilDivText(G, W); }, R))
        return std::move(E);
    return R;
  }
};

} // namespace

std::unique_ptr<Transform> createVectorizeTransform() {
  return std::make_unique<Vectorize>();
}
} // namespace cuda_opt
