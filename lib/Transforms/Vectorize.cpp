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
// type with a vector of W elements of at most 16 bytes (the CUDA vector types
// where they exist, else cudaOptLanes<T, W> from Snippets/VectorLanes.cuh),
// straight-line code, and no read of one pointer after a write to another
// (they could alias, and the vector path loads everything first).
//
// Read-only arrays may also be read as broadcasts: `b[i % C]` (a row of
// bias, repeated) loads the W elements b[i * W % C ...] as one vector, and
// `b[i / C]` (one value per row) loads one element for all W lanes; both
// need C % W == 0, tested at run time when C is a kernel parameter, and an
// array the kernel never writes and that no written pointer may alias.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/PointerUses.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"
#include "cuda-opt/Transforms/Utils/SourceEdits.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

// The helper vector type, lib/Transforms/Snippets/VectorLanes.cuh.
constexpr llvm::StringLiteral VectorLanesHelper =
#include "Snippets/VectorLanes.cuh.inc"
    ;
constexpr llvm::StringLiteral LanesTemplate = "cudaOptLanes";

/// How the index of an access relates to the thread's W elements.
enum class AccessKind {
  /// `p[i]`: the thread's own elements, one per lane.
  Own,
  /// `p[i % C]`: W consecutive elements of a read-only array, one per lane.
  Periodic,
  /// `p[i / C]`: one element of a read-only array, the same for every lane.
  Shared,
};

/// The C of `p[i % C]` or `p[i / C]`: a positive constant or an integer
/// parameter the kernel never assigns.
struct Divisor {
  std::optional<int64_t> Value;
  const ParmVarDecl *Param = nullptr;
  bool operator==(const Divisor &O) const {
    return Value == O.Value && Param == O.Param;
  }
};

/// One `p[i]`, `p[i % C]` or `p[i / C]` in the per-element work.
struct Access {
  const ArraySubscriptExpr *Expr = nullptr;
  const ParmVarDecl *Ptr = nullptr;
  AccessKind Kind = AccessKind::Own;
  Divisor Div;
  /// The `i` inside the subscript.
  const DeclRefExpr *IndexRef = nullptr;
  /// Index into VectorizePlan::Streams.
  unsigned Stream = 0;
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

/// The vector type for \p W elements of \p Elem: a CUDA vector type
/// (float4, int2, double2, __half2, __nv_bfloat162) where one exists, else
/// cudaOptLanes<T, W> for arithmetic and 16-bit float elements when the W
/// elements take at most 16 bytes; "" otherwise.
std::string vectorTypeFor(ASTContext &Ctx, QualType Elem, int64_t W) {
  Elem = Elem.getUnqualifiedType().getCanonicalType();
  if (Elem->isDependentType())
    return "";
  std::string N = std::to_string(W);
  if (Elem->isSpecificBuiltinType(BuiltinType::Float) && W <= 4)
    return "float" + N;
  if (Elem->isSpecificBuiltinType(BuiltinType::Int) && W <= 4)
    return "int" + N;
  if (Elem->isSpecificBuiltinType(BuiltinType::UInt) && W <= 4)
    return "uint" + N;
  if (Elem->isSpecificBuiltinType(BuiltinType::Double) && W == 2)
    return "double2";
  if (const auto *RD = Elem->getAsCXXRecordDecl()) {
    if (!RD->getDeclName().isIdentifier() || Ctx.getTypeSize(Elem) != 16 ||
        (RD->getName() != "__half" && RD->getName() != "__nv_bfloat16"))
      return "";
    if (W == 2)
      return RD->getName().str() + "2";
  } else if (!Elem->isIntegerType() && !Elem->isRealFloatingType()) {
    return "";
  } else if (Elem->isBooleanType() || Elem->isEnumeralType() ||
             Elem->isSpecificBuiltinType(BuiltinType::LongDouble)) {
    return "";
  }
  if (Ctx.getTypeSizeInChars(Elem).getQuantity() * W > 16)
    return "";
  return (LanesTemplate + "<" + Elem.getAsString(Ctx.getPrintingPolicy()) +
          ", " + N + ">")
      .str();
}

/// The widths with a vector type for elements of \p Bytes bytes, as text
/// for a refusal: "width 2", "widths 2 and 4", "widths 2 to 8".
std::string widthsFor(int64_t Bytes) {
  int64_t Most = 16 / std::max<int64_t>(Bytes, 1);
  if (Most < 2)
    return "no width";
  if (Most == 2)
    return "width 2";
  if (Most == 4)
    return "widths 2 and 4";
  return "widths 2 to " + std::to_string(Most);
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

/// Where parameter \p P is assigned, incremented, bound to a non-const
/// reference or has its address taken in \p Kernel, or nothing.
std::optional<SourceLocation> assignedAt(ASTContext &Ctx,
                                         const FunctionDecl *Kernel,
                                         const ParmVarDecl *P) {
  for (const DeclRefExpr *R : referencesTo(P, Kernel->getBody())) {
    if (writerOf(Ctx, R))
      return R->getBeginLoc();
    DynTypedNodeList Parents = Ctx.getParents(*R);
    if (!Parents.empty())
      if (const auto *UO = Parents[0].get<UnaryOperator>())
        if (UO->getOpcode() == UO_AddrOf)
          return R->getBeginLoc();
  }
  return std::nullopt;
}

/// The C of `p[i % C]` or `p[i / C]`: a positive integer constant, or an
/// integer parameter that \p Kernel never assigns (so that one test of
/// `C % W == 0` before the work holds for all of it).
Expected<Divisor> divisorOf(ASTContext &Ctx, const FunctionDecl *Kernel,
                            const Expr *C, StringRef Access,
                            StringRef Where) {
  std::string CText = sourceText(Ctx, C->getSourceRange());
  if (std::optional<APSInt> V = C->getIntegerConstantExpr(Ctx)) {
    if (V->isStrictlyPositive() && V->getActiveBits() < 63)
      return Divisor{V->getExtValue(), nullptr};
    return refuse("the access '" + Access + "' at " + Where +
                  " divides its index by '" + CText +
                  "', which is not a positive constant");
  }
  const auto *DRE = dyn_cast<DeclRefExpr>(C->IgnoreParenImpCasts());
  const auto *P = DRE ? dyn_cast<ParmVarDecl>(DRE->getDecl()) : nullptr;
  if (!P || !P->getType()->isIntegerType())
    return refuse("the access '" + Access + "' at " + Where +
                  " divides its index by '" + CText +
                  "', which is neither a constant nor an integer parameter "
                  "of the kernel; vectorize reads 'p[i % C]' and 'p[i / C]' "
                  "as broadcasts only when it can test C against the width "
                  "once, before the work");
  if (std::optional<SourceLocation> L = assignedAt(Ctx, Kernel, P))
    return refuse("the access '" + Access + "' at " + Where +
                  " divides its index by parameter '" + P->getNameAsString() +
                  "', which the kernel assigns at " +
                  describeLocation(Ctx.getSourceManager(), *L));
  return Divisor{std::nullopt, P};
}

/// A value the vector path reads before the first lane: a pointer's own
/// vector (`x4`), a broadcast vector (`bias4`, for `bias[i % C]`) or a
/// broadcast element (`scaleBcast`, for `scale[i / C]`).
struct Stream {
  const ParmVarDecl *Ptr = nullptr;
  AccessKind Kind = AccessKind::Own;
  Divisor Div;
};

/// Everything the rewrite needs, checked.
struct VectorizePlan : TransformPlan {
  ThreadMapping M;
  std::vector<Access> Accesses;
  /// Accessed pointers in order of first access.
  std::vector<const ParmVarDecl *> Pointers;
  /// What the vector path reads, in order of first access; Access::Stream
  /// indexes it.
  std::vector<Stream> Streams;
  std::vector<const DeclRefExpr *> IndexRefs;
  /// The element type of the vectors.
  QualType Elem;
  std::string VectorType;
  int64_t Width = 4;
};

/// Broadcast elements are read by several threads, and the vector path
/// reads them before any lane runs: the arrays read as `p[i % C]` or
/// `p[i / C]` must be ones the kernel never writes, and that no pointer it
/// writes through may alias (one of the two is __restrict__).
Error checkBroadcasts(const KernelTarget &T, const VectorizePlan &P) {
  const FunctionDecl *K = T.Kernel.Decl;
  const SourceManager &SM = T.getSourceManager();
  std::optional<PointerUses> Uses;
  for (const Access &A : P.Accesses) {
    if (A.Kind == AccessKind::Own)
      continue;
    if (!Uses)
      Uses.emplace(T.Ctx, K);
    const ParmVarDecl *Ptr = A.Ptr;
    std::string Text = sourceText(T.Ctx, A.Expr->getSourceRange());
    std::string Read = "'" + Ptr->getNameAsString() +
                       "' is read as a broadcast ('" + Text + "' at " +
                       describeLocation(SM, A.Expr->getBeginLoc()) + ")";
    PointerUses::ParamUse Use = Uses->param(Ptr->getFunctionScopeIndex());
    if (Use.Write)
      return refuse(Read + ", but " + *Use.Write +
                    "; vectorize broadcasts only arrays the kernel does not "
                    "write");
    if (Use.Rebound)
      return refuse(Read + ", but " + *Use.Rebound);
    if (Ptr->getType().isRestrictQualified())
      continue;
    for (unsigned I = 0; I < K->getNumParams(); ++I) {
      const ParmVarDecl *Q = K->getParamDecl(I);
      if (Q == Ptr || !Q->getType()->isPointerType() ||
          Q->getType().isRestrictQualified() || !Uses->param(I).Write)
        continue;
      return refuseMayAlias(Read + " and may alias '" + Q->getNameAsString() +
                    "', which the kernel writes through; vectorize needs "
                    "one of them __restrict__ (restrict-const adds it when "
                    "every launch passes distinct allocations)");
    }
  }
  return Error::success();
}

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
        {"width", 4, 2, 16,
         "elements per thread and per vector access (at most 16 bytes)",
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
      bool OnParam = Ptr && Ptr->getType()->isPointerType() &&
                     E->getLHS()->IgnoreParenImpCasts() == Base;
      const Expr *Idx = E->getIdx()->IgnoreParenImpCasts();
      const auto *BO = dyn_cast<BinaryOperator>(Idx);
      Access A;
      A.Expr = E;
      A.Ptr = Ptr;
      if (OnParam && refersTo(Idx, Index)) {
        A.IndexRef = cast<DeclRefExpr>(Idx);
      } else if (OnParam && BO &&
                 (BO->getOpcode() == BO_Rem || BO->getOpcode() == BO_Div) &&
                 refersTo(BO->getLHS(), Index)) {
        A.Kind = BO->getOpcode() == BO_Rem ? AccessKind::Periodic
                                           : AccessKind::Shared;
        A.IndexRef = cast<DeclRefExpr>(BO->getLHS()->IgnoreParenImpCasts());
        Expected<Divisor> D = divisorOf(T.Ctx, T.Kernel.Decl, BO->getRHS(),
                                        Text, At(E->getBeginLoc()));
        if (!D)
          return D.takeError();
        A.Div = *D;
        if (A.Div.Value && *A.Div.Value % W != 0)
          return refuse("the access '" + Text + "' at " + At(E->getBeginLoc()) +
                        " divides its index by " +
                        Twine(*A.Div.Value).str() +
                        ", not a multiple of the width " + Twine(W).str() +
                        ", so the " + Twine(W).str() +
                        " elements of a vector do not map to " +
                        (A.Kind == AccessKind::Periodic
                             ? "consecutive elements"
                             : "one element") +
                        " of '" + Ptr->getNameAsString() + "'");
      } else {
        return refuse("the access '" + Text + "' at " + At(E->getBeginLoc()) +
                      " is not 'p[" + Index->getNameAsString() +
                      "]' on a pointer parameter p, so its elements are not "
                      "the thread's own (nor a broadcast 'p[" +
                      Index->getNameAsString() + " % C]' or 'p[" +
                      Index->getNameAsString() + " / C]')");
      }
      QualType PE = Ptr->getType()->getPointeeType();
      if (PE.isVolatileQualified())
        return refuse("pointer '" + Ptr->getNameAsString() + "' is volatile");
      // A broadcast element is one scalar load: any type will do.
      if (A.Kind != AccessKind::Shared) {
        if (!Elem.isNull() && !T.Ctx.hasSameUnqualifiedType(Elem, PE))
          return refuse("kernel '" + Name + "' accesses elements of type '" +
                        Elem.getUnqualifiedType().getAsString() + "' and '" +
                        PE.getUnqualifiedType().getAsString() +
                        "'; vectorize needs one element type");
        Elem = PE;
      }
      const Expr *Writer = writerOf(T.Ctx, E);
      if (Writer && A.Kind != AccessKind::Own)
        return refuse("the access '" + Text + "' at " + At(E->getBeginLoc()) +
                      " is written; vectorize reads 'p[i % C]' and "
                      "'p[i / C]' as broadcasts, only from arrays the kernel "
                      "does not write");
      A.Write = Writer != nullptr;
      if (Writer)
        A.WriteLoc = Writer->getEndLoc();
      A.Read = !A.Write || isReadToo(T.Ctx, E);
      auto Same = [&](const Stream &S) {
        return S.Ptr == Ptr && S.Kind == A.Kind && S.Div == A.Div;
      };
      auto It = find_if(P.Streams, Same);
      A.Stream = It - P.Streams.begin();
      if (It == P.Streams.end())
        P.Streams.push_back({Ptr, A.Kind, A.Div});
      P.Accesses.push_back(A);
      if (!is_contained(P.Pointers, Ptr))
        P.Pointers.push_back(Ptr);
    }
    if (Elem.isNull())
      return refuse("kernel '" + Name + "' accesses no 'p[" +
                    Index->getNameAsString() + "]' to vectorize");
    P.Elem = Elem;
    P.VectorType = vectorTypeFor(T.Ctx, Elem, W);
    if (P.VectorType.empty() && Elem->isDependentType())
      return refuse("elements of type '" +
                    Elem.getUnqualifiedType().getAsString() +
                    "' depend on a template parameter; vectorize knows no "
                    "vector type for them");
    if (P.VectorType.empty() && vectorTypeFor(T.Ctx, Elem, 2).empty())
      return refuse("elements of type '" +
                    Elem.getUnqualifiedType().getAsString() +
                    "' have no vector type; vectorize handles integer, "
                    "floating-point, __half and __nv_bfloat16 elements");
    if (P.VectorType.empty())
      return refuse("elements of type '" +
                    Elem.getUnqualifiedType().getAsString() + "' have no " +
                    Twine(W).str() + "-wide vector type (vectors hold at most "
                    "16 bytes: " +
                    widthsFor(T.Ctx.getTypeSizeInChars(Elem).getQuantity()) +
                    " for this type)");
    if (Error E = checkBroadcasts(T, P))
      return std::move(E);

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
    // Broadcast reads may move: nothing written may alias them
    // (checkBroadcasts).
    for (const Access &A : P.Accesses) {
      if (A.Kind != AccessKind::Own)
        continue;
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
      if (A.Ptr == Ptr && A.Kind == AccessKind::Own && A.Read)
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
        if (A.Ptr == Ptr && A.Kind == AccessKind::Own &&
            A.Expr == Target->IgnoreParens())
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
    bool Lanes = StringRef(VT).starts_with(LanesTemplate);
    // The lanes of a vector: .x .y .z .w, or .v[L] of a cudaOptLanes.
    auto LaneOf = [&](int64_t L) {
      static const char XYZW[] = {'x', 'y', 'z', 'w'};
      return Lanes ? ".v[" + std::to_string(L) + "]"
                   : std::string(".") + XYZW[L];
    };

    // A name per stream: x4 for a pointer's own vector or a broadcast
    // vector, scaleBcast for a broadcast element.
    std::vector<std::string> Taken;
    std::vector<std::string> StreamName;
    for (const Stream &S : P.Streams) {
      std::string Base = S.Ptr->getNameAsString() +
                         (S.Kind == AccessKind::Shared ? "Bcast" : WS);
      std::string N = freshName(T.Kernel.Decl, Base, Taken);
      Taken.push_back(N);
      StreamName.push_back(N);
    }
    auto OwnName = [&](const ParmVarDecl *Ptr) {
      for (size_t S = 0; S < P.Streams.size(); ++S)
        if (P.Streams[S].Ptr == Ptr && P.Streams[S].Kind == AccessKind::Own)
          return StreamName[S];
      llvm_unreachable("a written pointer has its own vector");
    };
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
    // C / W: the broadcast's vector (i % (C / W)) or element (i / (C / W)).
    auto PerVector = [&](const Divisor &D) {
      if (D.Value)
        return std::to_string(*D.Value / W);
      return "(" + D.Param->getNameAsString() + " / " + WS + ")";
    };

    // The vector path needs whole vectors, every vector-read pointer
    // aligned to the vector size and every broadcast divisor a multiple of
    // the width.
    // sizeof(float4), or the byte count of a cudaOptLanes.
    std::string VectorBytes =
        Lanes ? std::to_string(T.Ctx.getTypeSizeInChars(P.Elem).getQuantity() *
                               W)
              : "sizeof(" + VT + ")";
    std::string Cond = I + " < " + Bound + " / " + WS;
    std::vector<const ParmVarDecl *> Aligned;
    std::vector<const ParmVarDecl *> Divisors;
    for (const Stream &S : P.Streams) {
      if (S.Kind != AccessKind::Shared && !is_contained(Aligned, S.Ptr)) {
        Aligned.push_back(S.Ptr);
        Cond += " &&\n reinterpret_cast<size_t>(" + S.Ptr->getNameAsString() +
                ") % " + VectorBytes + " == 0";
      }
    }
    for (const Stream &S : P.Streams)
      if (S.Div.Param && !is_contained(Divisors, S.Div.Param)) {
        Divisors.push_back(S.Div.Param);
        Cond += " &&\n " + S.Div.Param->getNameAsString() + " % " + WS +
                " == 0";
      }

    std::string Vec = "if (" + Cond + ") {\n";
    for (size_t SI = 0; SI < P.Streams.size(); ++SI) {
      const Stream &S = P.Streams[SI];
      const std::string &N = StreamName[SI];
      std::string Ptr = S.Ptr->getNameAsString();
      switch (S.Kind) {
      case AccessKind::Own: {
        bool Stored = is_contained(WrittenOrder, S.Ptr);
        if (!needsLoad(P, S.Ptr)) {
          Vec += VT + " " + N + ";\n";
          break;
        }
        Vec += std::string(Stored ? "" : "const ") + VT + " " + N + " = " +
               VecPtr(S.Ptr) + "[" + I + "];\n";
        break;
      }
      case AccessKind::Periodic:
        Vec += "const " + VT + " " + N + " = " + VecPtr(S.Ptr) + "[" + I +
               " % " + PerVector(S.Div) + "];\n";
        break;
      case AccessKind::Shared: {
        QualType E = S.Ptr->getType()->getPointeeType().getUnqualifiedType();
        Vec += "const " + E.getAsString(T.Ctx.getPrintingPolicy()) + " " + N +
               " = " + Ptr + "[" + I + " / " + PerVector(S.Div) + "];\n";
        break;
      }
      }
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
                           A.Kind == AccessKind::Shared
                               ? StreamName[A.Stream]
                               : StreamName[A.Stream] + LaneOf(L));
      for (const DeclRefExpr *R : P.IndexRefs) {
        bool InAccess = any_of(
            P.Accesses, [&](const Access &A) { return A.IndexRef == R; });
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
      Vec += VecPtr(Ptr) + "[" + I + "] = " + OwnName(Ptr) + ";\n";
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
    if (Lanes && !declaresLanesTemplate(T.Ctx)) {
      // After the #include lines, away from the kernel and its comments.
      std::string Helper = VectorLanesHelper.str();
      Helper = headerInsertionOffset(T.Ctx) == 0 ? Helper + "\n"
                                                 : "\n" + Helper;
      if (Error E = insertAfterIncludes(T.Ctx, R, Helper))
        return std::move(E);
    }
    return R;
  }

  /// True when the file already defines cudaOptLanes (an earlier
  /// vectorize of another kernel added it).
  static bool declaresLanesTemplate(ASTContext &Ctx) {
    for (const NamedDecl *D : Ctx.getTranslationUnitDecl()->lookup(
             &Ctx.Idents.get(LanesTemplate)))
      if (isa<ClassTemplateDecl>(D))
        return true;
    return false;
  }
};

} // namespace

std::unique_ptr<Transform> createVectorizeTransform() {
  return std::make_unique<Vectorize>();
}
} // namespace cuda_opt
