//===- CooperativeRows.cpp - Several threads share each row ---------------===//
//
// Part of cuda-opt.
//
// cooperative-rows{lanes=L,vec=V} rewrites a "one thread per row" kernel
// (lib/Analysis/RowProgram.h) so that a group of L consecutive threads of a
// warp works on each row, and the groups stride over the rows:
//
//   const int lane = threadIdx.x % L;
//   const unsigned rowMask = cudaOptRowGroupMask(L);
//   for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / L; r < rows;
//        r += blockDim.x / L * gridDim.x) {
//     float s = 0.0f;
//     for (int j = lane; j < cols; j += L)   // lane-strided: coalesced
//       s += in[r * cols + j];
//     s = cudaOptRowSum(s, rowMask, L);      // butterfly inside the group
//     if (lane == 0)                         // per-row stores: one thread
//       out[r] = s;
//   }
//
// The launch is unchanged, so every launch of the kernel still covers every
// row. Straight-line statements run in every thread of the group: they only
// read values that are the same for the whole row. A loop's carried scalars
// are recurrences; threads other than lane 0 start a sum (product) from 0
// (1), and min/max/argmin/argmax start from the loop's initial value in
// every lane. A __syncwarp orders a loop's (or a store's) writes before the
// later reads of the same row by other lanes. With vec=1 a loop whose
// accesses are `p[base + j]` also gets a fast path that reads and writes 4
// columns per thread with 16-byte vectors when the row's pointers are
// aligned; the other columns (and unaligned rows) take the lane-strided loop.
// With cache=S, an array that several loops read at the row's columns
// (RowCache.h) is loaded once into S registers per thread, and those loops
// iterate over the registers; rows longer than lanes * S take the uncached
// form, which is kept next to it; with vec=1 as well, each thread holds
// vectors of consecutive columns, loaded (and a cached loop's stores
// written) 16 bytes at a time. With scale-grid=1 each launch's grid is
// multiplied by L so that every group gets one row.
//
// Legal when the kernel is a row program, every launch has a 1-D block whose
// size is a constant multiple of L (so a group never straddles a warp), and
// float sums may be reordered (--fp-model=reassoc or fast).
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Analysis/RowCache.h"
#include "cuda-opt/Analysis/RowProgram.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"
#include "cuda-opt/Transforms/Utils/SourceEdits.h"
#include "cuda-opt/Transforms/Utils/TextEdits.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RawCommentList.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

#include <map>

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

// The helpers the rewrite calls; the text is
// lib/Transforms/Snippets/RowGroup.cuh.
constexpr llvm::StringLiteral RowGroupHelpers =
#include "Snippets/RowGroup.cuh.inc"
    ;
constexpr llvm::StringLiteral MaskHelper = "cudaOptRowGroupMask";

/// The references to a variable inside a statement.
class RefFinder : public RecursiveASTVisitor<RefFinder> {
public:
  explicit RefFinder(const VarDecl *V) : V(V) {}
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (DRE->getDecl() == V)
      Refs.push_back(DRE);
    return true;
  }
  const VarDecl *V;
  SmallVector<const DeclRefExpr *, 8> Refs;
};

bool isIdentifierOrNumber(StringRef S) {
  return !S.empty() && llvm::all_of(S, [](char C) {
    return isAlnum(C) || C == '_';
  });
}

bool rangeContains(const SourceManager &SM, SourceRange Outer,
                   SourceRange Inner) {
  return !SM.isBeforeInTranslationUnit(Inner.getBegin(), Outer.getBegin()) &&
         !SM.isBeforeInTranslationUnit(Outer.getEnd(), Inner.getEnd());
}

/// The loop's scan recurrence (RowProgram allows it as its only one).
const Recurrence *scanOf(const RowLoop &L) {
  for (const Recurrence &R : L.Recurrences)
    if (R.Scan)
      return &R;
  return nullptr;
}

/// The text of \p E with every reference to \p V replaced by \p Value.
Expected<std::string> substituteVar(const ASTContext &Ctx, const Expr *E,
                                    const VarDecl *V, StringRef Value) {
  TextEdits Edits(Ctx);
  RefFinder F(V);
  F.TraverseStmt(const_cast<Expr *>(E));
  for (const DeclRefExpr *D : F.Refs)
    if (Error Err = Edits.replace(D->getSourceRange(),
                                  isIdentifierOrNumber(Value)
                                      ? Value.str()
                                      : "(" + Value.str() + ")"))
      return std::move(Err);
  return Edits.render(E->getSourceRange());
}

/// One vector stream of a loop's fast path: the accesses `p[base + j]` to
/// one element of one pointer, read and written as a 16-byte vector.
struct Stream {
  const RowAccess *First = nullptr;
  std::vector<const RowAccess *> Uses;
  std::string Name;
  std::string VectorType;
  bool Read = false;
  bool Written = false;
  bool Const = false;
};

/// How one loop is rewritten.
struct LoopPlan {
  /// The vector fast path's streams; empty when the loop has none.
  std::vector<Stream> Streams;
  /// Columns per 16-byte vector: 4 (4-byte elements) or 8 (2-byte).
  int Width = 4;
};

struct CooperativeRowsPlan : TransformPlan {
  RowProgram Program;
  std::vector<LoopPlan> Loops;
  int64_t Lanes = 8;
  bool NeedHelpers = true;
  /// cache=S: the streams held in S registers per thread, when S > 0.
  std::optional<RowCache> Cache;
  int64_t Slots = 0;
  /// vec=1 with cache=S: the columns each 16-byte vector of the cache holds
  /// (4 or 8). A thread then holds CacheWidth consecutive columns per vector,
  /// `a0 + W * (lane + L * v) + k`, loads them (and stores the cached loops'
  /// outputs) as one vector. 1 = the lane-strided
  /// layout `a0 + lane + L * slot`.
  int64_t CacheWidth = 1;
  /// With CacheWidth > 1, per loop: the plain stores `p[base + j] = e` that
  /// the loop collects in a vector and writes once per W columns.
  std::vector<std::vector<const RowAccess *>> CacheStores;
  /// With CacheWidth > 1: the condition, tested once per kernel, under which
  /// every held and stored row starts on a 16-byte boundary (RowStarts); the
  /// cached form takes only such rows.
  std::vector<std::string> AlignedRows;
  /// scale-grid=1: every launch's grid times Lanes.
  bool ScaleGrid = false;
};

class CooperativeRows : public TransformWithPlan<CooperativeRowsPlan> {
public:
  StringRef getName() const override { return "cooperative-rows"; }
  StringRef getSummary() const override {
    return "share each row of a one-thread-per-row kernel between a group "
           "of threads (lane-strided loops, shuffle reductions)";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        // Tuned in the order of what usually wins on long rows: the
        // tuner's round-robin measures the first values first.
        {"lanes", 8, 2, 32, "threads that share a row (a power of two)",
         /*PowerOfTwo=*/true,
         {32, 16, 8, 4}},
        {"vec", 0, 0, 1,
         "1 = also read and write 4 (or 8 16-bit) columns at a time with "
         "16-byte vectors where the row is aligned; with cache, hold the "
         "row as vectors of consecutive columns",
         false,
         {1, 0}},
        {"cache", 0, 0, 64,
         "hold the columns of a row that several loops read in this many "
         "registers per thread (rows up to lanes * cache columns; longer "
         "rows take the uncached path); 0 = read the row in every loop",
         false,
         {16, 0, 32}},
        {"scale-grid", 0, 0, 1,
         "1 = multiply each launch's grid by lanes, so that every group "
         "gets one row instead of lanes rows",
         false,
         {1, 0}},
    };
    return Specs;
  }
  bool changesLaunchConfig(const ParamValues &P) const override {
    return P.get("scale-grid") != 0;
  }
  FpEffect fpEffect(const ParamValues &) const override {
    return FpEffect::Reassociates;
  }

  Expected<CooperativeRowsPlan> makePlan(const KernelTarget &T,
                                         const ParamValues &P) const override;
  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T,
            const CooperativeRowsPlan &Plan) const override;

  /// A cache whose condition is false for the measured row length: the
  /// variant runs only its uncached form (the same code as cache=0).
  std::optional<std::string>
  inertAt(const KernelTarget &T, const TransformPlan &Base,
          const StringMap<int64_t> &IntArgs) const override {
    // plan() made it, so it is ours (as in TransformWithPlan::apply).
    const auto *Plan = static_cast<const CooperativeRowsPlan *>(&Base);
    if (!Plan->Cache || Plan->Slots == 0)
      return std::nullopt;
    const Expr *Bound = Plan->Cache->Bound->IgnoreParenImpCasts();
    std::optional<int64_t> Cols;
    Expr::EvalResult R;
    if (const auto *D = dyn_cast<DeclRefExpr>(Bound)) {
      if (isa<ParmVarDecl>(D->getDecl())) {
        auto It = IntArgs.find(D->getDecl()->getName());
        if (It != IntArgs.end())
          Cols = It->second;
      }
    } else if (Bound->EvaluateAsInt(R, T.Ctx)) {
      Cols = R.Val.getInt().getExtValue();
    }
    if (!Cols)
      return std::nullopt;
    std::string Name = sourceText(T.Ctx, Plan->Cache->Bound->getSourceRange());
    int64_t First = Plan->Cache->FirstColumn;
    int64_t Capacity = First + Plan->Lanes * Plan->Slots;
    if (*Cols > Capacity)
      return "at the measured launch the row has " + Name + " = " +
             std::to_string(*Cols) + " columns, more than cache=" +
             std::to_string(Plan->Slots) + " holds with " +
             std::to_string(Plan->Lanes) + " lanes (" +
             std::to_string(Capacity) +
             "): only the uncached form would run, which cache=0 measures";
    int64_t W = Plan->CacheWidth;
    if (W > 1 && (*Cols - First) % W)
      return "at the measured launch the row has " + Name + " = " +
             std::to_string(*Cols) + " columns, not a whole number of " +
             std::to_string(W) + "-column vectors: only the uncached form "
             "would run, which cache=0 measures";
    return std::nullopt;
  }

private:
  Error checkLaunches(const KernelTarget &T, int64_t Lanes) const;
  Error checkScalableGrids(const KernelTarget &T) const;
  Expected<std::string> renderRowBody(const KernelTarget &T,
                                      const CooperativeRowsPlan &Plan,
                                      bool Cached, StringRef Lane,
                                      StringRef Mask,
                                      std::vector<std::string> &Taken) const;
  Expected<std::string> cacheFill(const KernelTarget &T,
                                  const CooperativeRowsPlan &Plan,
                                  const RowCacheStream &S, StringRef Name,
                                  StringRef Lane,
                                  std::vector<std::string> &Taken) const;
  void planCacheVectors(const KernelTarget &T, CooperativeRowsPlan &Plan) const;
  Expected<std::string> cacheFillVector(const KernelTarget &T,
                                        const CooperativeRowsPlan &Plan,
                                        const RowCacheStream &S,
                                        StringRef Name, StringRef Lane,
                                        std::vector<std::string> &Taken) const;
  LoopPlan planVector(const KernelTarget &T, const RowLoop &L,
                      const std::vector<std::string> &BaseNames,
                      std::vector<std::string> &Notes) const;
  Expected<std::string> vectorPath(const KernelTarget &T, const RowLoop &L,
                                   const LoopPlan &LP, StringRef Lane,
                                   StringRef Head, StringRef Quads,
                                   int64_t Lanes) const;
  SourceLocation helperLocation(const KernelTarget &T) const;

};

Error CooperativeRows::checkLaunches(const KernelTarget &T,
                                     int64_t Lanes) const {
  const KernelInfo &K = T.Kernel;
  const SourceManager &SM = T.getSourceManager();
  std::string Kernel = "kernel '" + K.name() + "'";
  if (K.Launches.empty())
    return refuse(Kernel + " is not launched in this file, so cuda-opt cannot "
                           "check that its block size is a multiple of " +
                  Twine(Lanes));
  for (const LaunchSite &L : K.Launches) {
    std::string At = describeLocation(SM, L.Call->getBeginLoc());
    const Expr *Block = launchBlockExpr(L);
    if (!Block)
      return refuse("the launch at " + At + " has no block size");
    std::optional<int64_t> Threads = threadsPerBlock(L, T.Ctx);
    bool OneD = stripLaunchArgImplicit(Block)->getType()->isIntegerType();
    if (std::optional<Dim3> D = evaluateDim3(Block, T.Ctx))
      OneD = (*D)[1] == 1 && (*D)[2] == 1;
    if (!Threads || !OneD)
      return refuse("the block of the launch at " + At +
                    " is not a constant 1-D size, so cuda-opt cannot check "
                    "that groups of " +
                    Twine(Lanes) + " threads stay inside one warp");
    if (*Threads % Lanes)
      return refuse("the launch at " + At + " uses blocks of " +
                    Twine(*Threads) + " threads, not a multiple of " +
                    Twine(Lanes) + ", so a group would straddle two blocks");
  }
  return Error::success();
}

Error CooperativeRows::checkScalableGrids(const KernelTarget &T) const {
  // The scaled grid calls a host helper that goes before the kernel, so a
  // launch above the kernel's definition could not see it.
  SourceLocation At = helperLocation(T);
  const SourceManager &SM = T.getSourceManager();
  for (const LaunchSite &L : T.Kernel.Launches) {
    std::string Where = describeLocation(SM, L.Call->getBeginLoc());
    if (At.isInvalid() ||
        SM.isBeforeInTranslationUnit(SM.getExpansionLoc(L.Call->getBeginLoc()),
                                     At))
      return refuse("scale-grid: the launch at " + Where +
                    " comes before the kernel's definition, where the grid "
                    "helper would go");
    tooling::Replacements Scratch;
    if (Error E = rewriteGridX(
            T.Ctx, L, [](StringRef G) { return G.str(); }, Scratch))
      return refuse("scale-grid: " + toString(std::move(E)));
  }
  return Error::success();
}

/// The 16-byte vector type of an element type and its width: float4, int4
/// and uint4 for 4-byte elements, cudaOptVec<T, 8> (RowGroup.cuh) for the
/// 16-bit floats and shorts; {"", 0} for anything else.
std::pair<std::string, int> vectorTypeOf(const ASTContext &Ctx, QualType Elem) {
  Elem = Elem.getUnqualifiedType();
  if (const auto *BT = Elem->getAs<BuiltinType>()) {
    switch (BT->getKind()) {
    case BuiltinType::Float:
      return {"float4", 4};
    case BuiltinType::Int:
      return {"int4", 4};
    case BuiltinType::UInt:
      return {"uint4", 4};
    case BuiltinType::Short:
    case BuiltinType::UShort:
      return {"cudaOptVec<" + Elem.getAsString(Ctx.getPrintingPolicy()) + ", 8>",
              8};
    default:
      return {"", 0};
    }
  }
  if (const auto *RD = Elem->getAsCXXRecordDecl())
    if (RD->getDeclName().isIdentifier() &&
        (RD->getName() == "__half" || RD->getName() == "__nv_bfloat16") &&
        Ctx.getTypeSize(Elem) == 16)
      return {"cudaOptVec<" + RD->getName().str() + ", 8>", 8};
  return {"", 0};
}

LoopPlan CooperativeRows::planVector(const KernelTarget &T, const RowLoop &L,
                                     const std::vector<std::string> &BaseNames,
                                     std::vector<std::string> &Notes) const {
  LoopPlan LP;
  // The vectors are declared inside the loop's vector path, so their names
  // only need to differ from the kernel's and from each other.
  std::vector<std::string> Taken = BaseNames;
  std::string LoopAt =
      "the loop at " + describeLocation(T.getSourceManager(),
                                        L.Loop->getBeginLoc());
  auto Skip = [&](const Twine &Why) {
    Notes.push_back(LoopAt + " keeps scalar accesses only: " + Why.str());
    return LoopPlan();
  };
  if (L.Inclusive)
    return Skip("its bound is inclusive ('<=')");
  if (!L.Var->getType()->isSignedIntegerType() ||
      !L.Bound->getType()->isSignedIntegerType() ||
      !L.Init->getType()->isSignedIntegerType())
    return Skip("its counter or bounds are unsigned");
  if (L.ContainsContinue)
    return Skip("its body has 'continue'");
  if (scanOf(L))
    return Skip("it is a prefix sum (its lanes take one column per step)");
  for (const RowAccess &A : L.Accesses) {
    auto [VectorType, Width] = vectorTypeOf(T.Ctx, A.Expr->getType());
    bool Vectorizable = A.Root && A.Stride == 1 && Width != 0;
    if (A.Write && (!Vectorizable || !A.PlainStore))
      return Skip("it writes '" +
                  sourceText(T.Ctx, A.Expr->getSourceRange()) +
                  "', which is not a plain store to consecutive 4-byte or "
                  "2-byte elements");
    if (!Vectorizable)
      continue;
    if (!LP.Streams.empty() && Width != LP.Width)
      return Skip("it reads or writes both 4-byte and 2-byte elements, "
                  "which no one vector width covers");
    LP.Width = Width;
    Stream *S = nullptr;
    for (Stream &X : LP.Streams)
      if (X.First->Root == A.Root && X.First->Index == A.Index)
        S = &X;
    if (!S) {
      LP.Streams.emplace_back();
      S = &LP.Streams.back();
      S->First = &A;
      S->VectorType = VectorType;
      S->Name = freshName(T.Kernel.Decl,
                          A.Root->getNameAsString() + std::to_string(Width),
                          Taken);
      Taken.push_back(S->Name);
      S->Const = A.Expr->getType().isConstQualified() ||
                 A.Expr->getBase()
                     ->getType()
                     ->getPointeeType()
                     .isConstQualified();
    }
    S->Uses.push_back(&A);
    S->Read |= A.Read;
    S->Written |= A.Write;
  }
  if (LP.Streams.empty())
    return Skip("no access reads or writes consecutive 4-byte or 2-byte "
                "elements");
  return LP;
}

void CooperativeRows::planCacheVectors(const KernelTarget &T,
                                       CooperativeRowsPlan &Plan) const {
  const RowCache &C = *Plan.Cache;
  const RowProgram &RP = Plan.Program;
  const SourceManager &SM = T.getSourceManager();
  auto Keep = [&](const Twine &Why) {
    Plan.Notes.push_back("cache=" + std::to_string(Plan.Slots) +
                         " keeps the lane-strided layout, without 16-byte "
                         "vectors: " +
                         Why.str());
  };
  int W = 0;
  for (const RowCacheStream &S : C.Streams) {
    int SW = vectorTypeOf(T.Ctx, S.Element).second;
    if (SW == 0)
      return Keep("the row of '" + S.Root->getNameAsString() +
                  "' has elements that no 16-byte vector holds");
    if (W && SW != W)
      return Keep("the held rows have both 4-byte and 2-byte elements");
    W = SW;
  }
  if (W == 0)
    return;
  if (Plan.Slots % W)
    return Keep("a 16-byte vector holds " + Twine(W) +
                " columns and cache=" + Twine(Plan.Slots) +
                " is not a multiple of it");
  std::vector<std::vector<const RowAccess *>> Stores(RP.Loops.size());
  for (unsigned LI : C.Loops) {
    const RowLoop &L = RP.Loops[LI];
    if (!L.WritesMemory)
      continue;
    std::string At =
        "the loop at " + describeLocation(SM, L.Loop->getBeginLoc());
    if (L.ContainsContinue || !L.ConstStart || *L.ConstStart != C.FirstColumn)
      return Keep(At + " writes memory and skips some of the held columns");
    auto Held = [&](const RowAccess &A) {
      return llvm::any_of(C.Streams, [&](const RowCacheStream &S) {
        return llvm::is_contained(S.Uses, &A);
      });
    };
    for (const RowAccess &A : L.Accesses) {
      std::string Text = sourceText(T.Ctx, A.Expr->getSourceRange());
      if (A.Write) {
        if (!A.Root || A.Stride != 1 || !A.PlainStore || A.Read ||
            vectorTypeOf(T.Ctx, A.Expr->getType()).second != W)
          return Keep(At + " writes '" + Text + "', which is not a plain "
                      "store of consecutive elements as wide as the held "
                      "ones");
        for (const RowAccess &B : L.Accesses)
          if (&B != &A && B.Root == A.Root)
            return Keep(At + " accesses '" + A.Root->getNameAsString() +
                        "' more than once");
        Stores[LI].push_back(&A);
      } else if (!Held(A)) {
        // The stores are collected and written once per vector: a read of
        // memory in the same loop could see them late.
        return Keep(At + " writes memory and also reads '" + Text +
                    "', which is not held");
      }
    }
  }
  // Alignment is tested once per kernel: the cached form takes only rows
  // that all start on a 16-byte boundary. A per-row test with a
  // column-by-column fill for unaligned rows made the fp16 softmax's cached
  // path 8 % slower (bench/JOURNAL.md, session 12).
  std::vector<std::string> Parts;
  std::string Unaligned;
  auto Add = [&](const RowAccess &A) {
    std::optional<RowStarts> R = rowStarts(RP, A, C.FirstColumn);
    if (!R || (R->ConstStride && *R->ConstStride % W)) {
      Unaligned = sourceText(T.Ctx, A.Expr->getSourceRange());
      return false;
    }
    bool Plain = llvm::all_of(R->Stride, [](char Ch) {
      return llvm::isAlnum(Ch) || Ch == '_' || Ch == '.';
    });
    std::string Stride =
        R->ConstStride ? ""
                       : (Plain ? R->Stride : "(" + R->Stride + ")") + " % " +
                             Twine(W).str() + " == 0";
    std::string At = "cudaOptAligned16(&" + A.Root->getNameAsString() + "[" +
                     R->First + "])";
    for (const std::string &P : {Stride, At})
      if (!P.empty() && !llvm::is_contained(Parts, P))
        Parts.push_back(P);
    return true;
  };
  bool All = llvm::all_of(C.Streams,
                          [&](const RowCacheStream &S) { return Add(*S.Fill); });
  for (const auto &LoopStores : Stores)
    for (const RowAccess *A : LoopStores)
      All = All && Add(*A);
  if (!All)
    return Keep("the rows of '" + Unaligned +
                "' do not start at 'stride * row + first' with a stride and "
                "first element the same for every row, so one test cannot "
                "tell whether every row is aligned");
  Plan.CacheWidth = W;
  Plan.CacheStores = std::move(Stores);
  Plan.AlignedRows = std::move(Parts);
}

/// `sum = cudaOptRowSum(sum, rowMask, 8);` and friends.
std::string combineText(const Recurrence &R, StringRef Mask, int64_t Lanes) {
  std::string V = R.Var->getNameAsString();
  std::string Args = ", " + Mask.str() + ", " + std::to_string(Lanes) + ")";
  switch (R.Kind) {
  case RecurrenceKind::Sum:
    return V + " = cudaOptRowSum(" + V + Args + ";";
  case RecurrenceKind::Product:
    return V + " = cudaOptRowProduct(" + V + Args + ";";
  case RecurrenceKind::Max:
    return V + " = " +
           (R.Form == MinMaxForm::Function ? "cudaOptRowFmax(" : "cudaOptRowMax(") +
           V + Args + ";";
  case RecurrenceKind::Min:
    return V + " = " +
           (R.Form == MinMaxForm::Function ? "cudaOptRowFmin(" : "cudaOptRowMin(") +
           V + Args + ";";
  case RecurrenceKind::ArgMax:
    return "cudaOptRowArgMax(" + V + ", " + R.Index->getNameAsString() + Args +
           ";";
  case RecurrenceKind::ArgMin:
    return "cudaOptRowArgMin(" + V + ", " + R.Index->getNameAsString() + Args +
           ";";
  }
  return "";
}

/// True when \p V still holds its declaration's initial value \p Identity
/// when \p Loop starts: declared among the row's steps with that value and
/// not written by a step before the loop.
bool startsAtIdentity(const ASTContext &Ctx, const RowProgram &P,
                      const Recurrence &R, const ForStmt *Loop) {
  const VarDecl *V = R.Var;
  const Expr *Init = V->getInit();
  if (!Init)
    return false;
  Expr::EvalResult Res;
  bool IsIdentity = false;
  double Want = R.Kind == RecurrenceKind::Sum ? 0.0 : 1.0;
  if (Init->EvaluateAsRValue(Res, Ctx)) {
    if (Res.Val.isInt())
      IsIdentity = Res.Val.getInt() == static_cast<int64_t>(Want);
    else if (Res.Val.isFloat())
      IsIdentity = Res.Val.getFloat().convertToDouble() == Want;
  }
  if (!IsIdentity)
    return false;
  // Any write between the declaration and the loop?
  const SourceManager &SM = Ctx.getSourceManager();
  for (const RowStep &S : P.Steps) {
    if (S.S == Loop)
      return true;
    if (!SM.isBeforeInTranslationUnit(V->getLocation(), S.S->getBeginLoc()))
      continue;
    struct Writes : RecursiveASTVisitor<Writes> {
      const VarDecl *V;
      bool Found = false;
      bool VisitBinaryOperator(BinaryOperator *BO) {
        if (BO->isAssignmentOp())
          if (const auto *D =
                  dyn_cast<DeclRefExpr>(BO->getLHS()->IgnoreParenImpCasts()))
            Found |= D->getDecl() == V;
        return true;
      }
      bool VisitUnaryOperator(UnaryOperator *UO) {
        if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf)
          if (const auto *D =
                  dyn_cast<DeclRefExpr>(UO->getSubExpr()->IgnoreParenImpCasts()))
            Found |= D->getDecl() == V;
        return true;
      }
    } W;
    W.V = V;
    W.TraverseStmt(const_cast<Stmt *>(S.S));
    if (W.Found)
      return false;
  }
  return true;
}

Expected<CooperativeRowsPlan>
CooperativeRows::makePlan(const KernelTarget &T, const ParamValues &P) const {
  int64_t Lanes = P.get("lanes");
  if (Lanes < 2 || Lanes > 32)
    return refuse("lanes must be a power of two from 2 to 32");
  Expected<RowProgram> RP = analyzeRowProgram(T.Ctx, T.Kernel);
  if (!RP)
    return RP.takeError();
  if (Error E = checkLaunches(T, Lanes))
    return std::move(E);
  CooperativeRowsPlan Plan;
  Plan.Program = std::move(*RP);
  Plan.Lanes = Lanes;
  Plan.Slots = P.get("cache");
  if (Plan.Slots < 0 || Plan.Slots > 64)
    return refuse("cache must be from 0 to 64 registers per thread");
  if (Plan.Slots > 0) {
    Expected<RowCache> C = analyzeRowCache(T.Ctx, T.Kernel, Plan.Program);
    if (!C)
      return C.takeError();
    Plan.Notes.insert(Plan.Notes.end(), C->Notes.begin(), C->Notes.end());
    for (size_t I = 0; I < Plan.Program.Loops.size(); ++I)
      if (C->isCachedLoop(I) && scanOf(Plan.Program.Loops[I]))
        return refuse("the loop at " +
                      describeLocation(T.getSourceManager(),
                                       Plan.Program.Loops[I].Loop->getBeginLoc()) +
                      " is a prefix sum, which cache=S does not hold in "
                      "registers; use cache=0");
    Plan.Cache = std::move(*C);
    if (P.get("vec"))
      planCacheVectors(T, Plan);
  }
  Plan.ScaleGrid = P.get("scale-grid") != 0;
  if (Plan.ScaleGrid)
    if (Error E = checkScalableGrids(T))
      return std::move(E);
  std::vector<std::string> Taken = {"lane", "rowMask", "quads", "octs",
                                    "head"};
  for (const RowLoop &L : Plan.Program.Loops) {
    if (P.get("vec"))
      Plan.Loops.push_back(planVector(T, L, Taken, Plan.Notes));
    else
      Plan.Loops.emplace_back();
  }
  for (const Decl *D : T.Ctx.getTranslationUnitDecl()->decls())
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      if (FD->getDeclName().isIdentifier() && FD->getName() == MaskHelper)
        Plan.NeedHelpers = false;
  return Plan;
}

Expected<std::string> CooperativeRows::vectorPath(const KernelTarget &T,
                                                  const RowLoop &L,
                                                  const LoopPlan &LP,
                                                  StringRef Lane,
                                                  StringRef Head,
                                                  StringRef Quads,
                                                  int64_t Lanes) const {
  const ASTContext &Ctx = T.Ctx;
  const SourceManager &SM = Ctx.getSourceManager();
  std::string JType = indexTypeText(Ctx, L.Var);
  std::string J = L.Var->getNameAsString();
  std::string A = parenthesizedText(Ctx, L.Init);
  std::string C = parenthesizedText(Ctx, L.Bound);
  const bool InitIsZero = L.ConstStart == 0;
  std::string J0 = freshName(T.Kernel.Decl, J + "0");
  std::string Q = freshName(T.Kernel.Decl, "q");

  // `&p[idx]` with j replaced by \p Value.
  auto AddressAt = [&](const RowAccess &X, StringRef Value) -> Expected<std::string> {
    Expected<std::string> Text = substituteVar(Ctx, X.Expr, L.Var, Value);
    if (!Text)
      return Text.takeError();
    return "&" + *Text;
  };

  // The columns before the first array's first 16-byte boundary (`head`)
  // take the lane-strided loop; the vectors start there when every array
  // is aligned at that column.
  const std::string W = std::to_string(LP.Width);
  const std::string First = InitIsZero ? Head.str() : A + " + " + Head.str();
  Expected<std::string> FirstAddr =
      AddressAt(*LP.Streams.front().First, InitIsZero ? "0" : A);
  if (!FirstAddr)
    return FirstAddr.takeError();
  std::string Out =
      "// cuda-opt: 16-byte vectors from the row's first 16-byte boundary ('" +
      Head.str() + "' columns before it), over " + W + " * " + Quads.str() +
      " columns when every array is aligned there; the rest below.\nconst " +
      JType + " " + Head.str() + " = cudaOptAlignHead(" +
      *FirstAddr + ", " + (InitIsZero ? C : C + " - " + A) + ");\n";
  {
    // The head: the loop itself, up to the boundary.
    TextEdits HeadLoop(Ctx);
    std::string Start = InitIsZero ? Lane.str() : A + " + " + Lane.str();
    if (Error Err = HeadLoop.replace(L.Init->getSourceRange(), Start))
      return std::move(Err);
    if (Error Err = HeadLoop.replace(L.Bound->getSourceRange(),
                                     InitIsZero ? Head.str()
                                                : "(" + First + ")"))
      return std::move(Err);
    if (Error Err = HeadLoop.replace(L.Loop->getInc()->getSourceRange(),
                                     J + " += " + std::to_string(Lanes)))
      return std::move(Err);
    Expected<std::string> Text = HeadLoop.render(
        SourceRange(L.Loop->getBeginLoc(), stmtEnd(Ctx, L.Loop)));
    if (!Text)
      return Text.takeError();
    Out += *Text + "\n";
  }
  std::string Aligned;
  for (const Stream &S : LP.Streams) {
    Expected<std::string> Addr = AddressAt(*S.First, First);
    if (!Addr)
      return Addr.takeError();
    if (!Aligned.empty())
      Aligned += " &&\n";
    Aligned += "cudaOptAligned16(" + *Addr + ")";
  }
  std::string Count = "(" + C + " - " + (InitIsZero ? "" : A + " - ") +
                      Head.str() + ") / " + W;
  Out += "const " + JType + " " + Quads.str() + " = " + Aligned + "\n? " +
         Count + " : 0;\n";
  Out += "for (" + JType + " " + Q + " = " + Lane.str() + "; " + Q + " < " +
         Quads.str() + "; " + Q + " += " + std::to_string(Lanes) + ") {\n";
  Out += "const " + JType + " " + J0 + " = " + First + " + " + W + " * " + Q +
         ";\n";
  for (const Stream &S : LP.Streams) {
    Expected<std::string> Addr = AddressAt(*S.First, J0);
    if (!Addr)
      return Addr.takeError();
    std::string Ptr = std::string(S.Const ? "const " : "") + S.VectorType + " *";
    if (S.Read)
      Out += S.VectorType + " " + S.Name + " = *reinterpret_cast<" + Ptr +
             ">(" + *Addr + ");\n";
    else
      Out += S.VectorType + " " + S.Name + ";\n";
  }
  static const char *const Lane4[] = {"x", "y", "z", "w"};
  auto Component = [&](int Comp) {
    return LP.Width == 4 ? std::string(".") + Lane4[Comp]
                         : ".v[" + std::to_string(Comp) + "]";
  };
  const Stmt *Body = L.Loop->getBody();
  for (int Comp = 0; Comp < LP.Width; ++Comp) {
    TextEdits E(Ctx);
    SmallVector<SourceRange, 8> Replaced;
    for (const Stream &S : LP.Streams)
      for (const RowAccess *X : S.Uses) {
        Replaced.push_back(X->Expr->getSourceRange());
        if (Error Err = E.replace(X->Expr->getSourceRange(),
                                  S.Name + Component(Comp)))
          return std::move(Err);
      }
    RefFinder F(L.Var);
    F.TraverseStmt(const_cast<Stmt *>(Body));
    for (const DeclRefExpr *D : F.Refs) {
      bool Inside = false;
      for (SourceRange R : Replaced)
        Inside |= rangeContains(SM, R, D->getSourceRange());
      if (!Inside)
        if (Error Err = E.replace(D->getSourceRange(),
                                  "(" + J0 + " + " + std::to_string(Comp) + ")"))
          return std::move(Err);
    }
    SourceRange BodyRange(Body->getBeginLoc(), stmtEnd(Ctx, Body));
    Expected<std::string> Text = E.render(BodyRange);
    if (!Text)
      return Text.takeError();
    if (isa<CompoundStmt>(Body) || !isa<DeclStmt>(Body))
      Out += *Text + "\n";
    else
      Out += "{\n" + *Text + "\n}\n";
  }
  for (const Stream &S : LP.Streams) {
    if (!S.Written)
      continue;
    Expected<std::string> Addr = AddressAt(*S.First, J0);
    if (!Addr)
      return Addr.takeError();
    Out += "*reinterpret_cast<" + S.VectorType + " *>(" + *Addr + ") = " +
           S.Name + ";\n";
  }
  Out += "}\n";
  return Out;
}

SourceLocation CooperativeRows::helperLocation(const KernelTarget &T) const {
  const SourceManager &SM = T.getSourceManager();
  const Decl *Top = T.Kernel.Template ? static_cast<const Decl *>(T.Kernel.Template)
                                      : T.Kernel.Decl;
  // The outermost declaration of the translation unit that holds the kernel.
  SourceLocation KernelLoc = SM.getExpansionLoc(Top->getBeginLoc());
  for (const Decl *D : T.Ctx.getTranslationUnitDecl()->decls()) {
    SourceLocation B = SM.getExpansionLoc(D->getBeginLoc());
    SourceLocation E = SM.getExpansionLoc(D->getEndLoc());
    if (!SM.isWrittenInMainFile(B) ||
        SM.isBeforeInTranslationUnit(KernelLoc, B) ||
        SM.isBeforeInTranslationUnit(E, KernelLoc))
      continue;
    return insertionPointBefore(T.Ctx, D);
  }
  return SourceLocation();
}

/// `for (int slot = 0; slot < S; ++slot)`: a loop over a thread's cache
/// registers.
std::string slotLoopHead(StringRef Slot, int64_t Slots) {
  std::string N = std::to_string(Slots);
  return "for (int " + Slot.str() + " = 0; " + Slot.str() + " < " + N +
         "; ++" + Slot.str() + ")";
}

/// The column cache register \p Slot holds:
/// `const int j = a0 + lane + L * slot;\n`, or with vectors of W columns
/// `const int j = a0 + W * (lane + L * (slot / W)) + slot % W;\n`.
std::string slotColumnDecl(StringRef Type, StringRef Name, int64_t FirstColumn,
                           StringRef Lane, int64_t Lanes, StringRef Slot,
                           int64_t Width = 1) {
  std::string First = FirstColumn ? std::to_string(FirstColumn) + " + " : "";
  std::string L = std::to_string(Lanes), W = std::to_string(Width);
  std::string Column =
      Width == 1 ? Lane.str() + " + " + L + " * " + Slot.str()
                 : W + " * (" + Lane.str() + " + " + L + " * (" + Slot.str() +
                       " / " + W + ")) + " + Slot.str() + " % " + W;
  return "const " + Type.str() + " " + Name.str() + " = " + First + Column +
         ";\n";
}

/// The column, and the end of the row: `const int j = ...;\nif (j >= C)\n
/// break;\n`.
/// With vectors of W columns the row is a whole number of vectors, and the
/// test is on the vector's first column (`j - slot % W`): one condition per
/// vector instead of one per column, which nvcc would keep in registers.
std::string slotColumnText(StringRef Type, StringRef Name, int64_t FirstColumn,
                           StringRef Lane, int64_t Lanes, StringRef Slot,
                           StringRef Bound, int64_t Width = 1) {
  std::string Column = Name.str();
  if (Width > 1)
    Column = "(" + Column + " - " + Slot.str() + " % " +
             std::to_string(Width) + ")";
  return slotColumnDecl(Type, Name, FirstColumn, Lane, Lanes, Slot, Width) +
         "if (" + Column + " >= " + Bound.str() + ")\nbreak;\n";
}

Expected<std::string>
CooperativeRows::cacheFill(const KernelTarget &T,
                           const CooperativeRowsPlan &Plan,
                           const RowCacheStream &S, StringRef Name,
                           StringRef Lane,
                           std::vector<std::string> &Taken) const {
  const ASTContext &Ctx = T.Ctx;
  const RowCache &C = *Plan.Cache;
  const RowLoop &FillLoop = Plan.Program.Loops[S.FillLoop];
  std::string Slot = freshName(T.Kernel.Decl, "slot", Taken);
  std::string Col = freshName(T.Kernel.Decl, "col", Taken);
  Expected<std::string> Load = substituteVar(Ctx, S.Fill->Expr, FillLoop.Var, Col);
  if (!Load)
    return Load.takeError();
  std::string First = C.FirstColumn ? std::to_string(C.FirstColumn) + " + " : "";
  std::string Elem = S.Held.getAsString(Ctx.getPrintingPolicy());
  std::string Bound = parenthesizedText(Ctx, C.Bound);
  std::string Fill;
  if (S.Convert) {
    // No `break` here: a conversion right after each load would wait for
    // it before the next slot's branch, one DRAM latency per slot. With a
    // condition instead, the loads are issued together.
    Fill = slotColumnDecl(indexTypeText(Ctx, FillLoop.Var), Col,
                          C.FirstColumn, Lane, Plan.Lanes, Slot) +
           Name.str() + "[" + Slot + "] = " + Col + " < " + Bound + " ? " +
           S.Convert->getNameAsString() + "(" + *Load + ") : 0.0f;\n";
  } else {
    Fill = slotColumnText(indexTypeText(Ctx, FillLoop.Var), Col, C.FirstColumn,
                          Lane, Plan.Lanes, Slot, Bound) +
           Name.str() + "[" + Slot + "] = " + *Load + ";\n";
  }
  return "// cuda-opt cache: this thread's columns of the row of '" +
         S.Root->getNameAsString() + "' (" + First + Lane.str() + " + " +
         std::to_string(Plan.Lanes) + " * " + Slot + "), loaded once" +
         (S.Convert ? " and converted with " + S.Convert->getNameAsString()
                    : std::string()) +
         "\n" +
         Elem + " " + Name.str() + "[" + std::to_string(Plan.Slots) +
         "];\n#pragma unroll\n" + slotLoopHead(Slot, Plan.Slots) + " {\n" +
         Fill + "}\n";
}

/// The vector layout's fill (CooperativeRowsPlan::CacheWidth): vector v of
/// the thread holds the W columns from `a0 + W * (lane + L * v)`, loaded as
/// one 16-byte vector when the vector lies inside the row (every row is
/// aligned: CooperativeRowsPlan::AlignedRows).
Expected<std::string> CooperativeRows::cacheFillVector(
    const KernelTarget &T, const CooperativeRowsPlan &Plan,
    const RowCacheStream &S, StringRef Name, StringRef Lane,
    std::vector<std::string> &Taken) const {
  const ASTContext &Ctx = T.Ctx;
  const RowCache &C = *Plan.Cache;
  const RowLoop &FillLoop = Plan.Program.Loops[S.FillLoop];
  auto Fresh = [&](StringRef Base) {
    std::string N = freshName(T.Kernel.Decl, Base.str(), Taken);
    Taken.push_back(N);
    return N;
  };
  std::string V = Fresh("vec"), K = Fresh("k"), Col = Fresh("col");
  std::string W = std::to_string(Plan.CacheWidth);
  std::string A0 = std::to_string(C.FirstColumn);
  std::string IType = indexTypeText(Ctx, FillLoop.Var);
  std::string VType =
      "cudaOptVec<" +
      S.Element.getUnqualifiedType().getAsString(Ctx.getPrintingPolicy()) +
      ", " + W + ">";
  Expected<std::string> AtCol = substituteVar(Ctx, S.Fill->Expr, FillLoop.Var, Col);
  if (!AtCol)
    return AtCol.takeError();
  std::string Bound = parenthesizedText(Ctx, C.Bound);
  std::string Conv = S.Convert ? S.Convert->getNameAsString() : "";
  auto Converted = [&](StringRef X) {
    return Conv.empty() ? X.str() : Conv + "(" + X.str() + ")";
  };
  std::string Elem = S.Held.getAsString(Ctx.getPrintingPolicy());
  std::string FirstText = C.FirstColumn ? A0 + " + " : "";
  // The loads of all vectors first, the conversions after: a conversion
  // right after its load would wait for it before the next vector's branch.
  // The row is a whole number of vectors (the cached form's condition), so
  // a vector is in the row when its first column is.
  std::string Vecs = Fresh(S.Root->getNameAsString() + "Vecs");
  std::string Count = std::to_string(Plan.Slots / Plan.CacheWidth);
  std::string ColDecl = "const " + IType + " " + Col + " = " + FirstText + W +
                        " * (" + Lane.str() + " + " +
                        std::to_string(Plan.Lanes) + " * " + V + ");\n";
  std::string VecLoop = "#pragma unroll\nfor (int " + V + " = 0; " + V + " < " +
                        Count + "; ++" + V + ") {\n" + ColDecl + "if (" + Col +
                        " < " + Bound + ")\n";
  std::string Comment =
      "// cuda-opt cache: this thread's columns of the row of '" +
      S.Root->getNameAsString() + "', " + W + " per vector (" + FirstText + W +
      " * (" + Lane.str() + " + " + std::to_string(Plan.Lanes) + " * " + V +
      ") + " + K + "), loaded once, 16 bytes at a time" +
      " (every row is aligned: the condition above)" +
      (Conv.empty() ? std::string() : ", and converted with " + Conv) + ".\n";
  std::string VecLoad = VecLoop + Vecs + "[" + V +
                        "] = *reinterpret_cast<const " + VType + " *>(&" +
                        *AtCol + ");\n}\n";
  return Comment + VType + " " + Vecs + "[" + Count + "] = {};\n" + VecLoad +
         Elem + " " + Name.str() + "[" +
         std::to_string(Plan.Slots) + "];\n#pragma unroll\nfor (int " + K +
         " = 0; " + K + " < " + std::to_string(Plan.Slots) + "; ++" + K +
         ")\n" + Name.str() + "[" + K + "] = " +
         Converted(Vecs + "[" + K + " / " + W + "].v[" + K + " % " + W + "]") +
         ";\n";
}

/// A scan loop `for (j = a; j < b; ++j) { v += e; rest }` shared by the
/// row's lanes, one column per lane per step:
///
///   for (int jBase = a; jBase < b; jBase += L) {
///     const int j = jBase + lane;
///     T vTerm = 0;
///     if (j < b)
///       vTerm = e;
///     const T vPrefix = cudaOptRowScanSum(vTerm, rowMask, L);
///     if (j < b) {
///       const T vAt = v + vPrefix;   // the original's v after column j
///       rest (reading vAt for v)
///     }
///     v += cudaOptRowLast(vPrefix, rowMask, L);
///   }
///
/// Every lane runs every step (the shuffles need the whole group), so v stays
/// the same in all lanes: after the loop it is the row's total.
Error rewriteScanLoop(const KernelTarget &T, const RowLoop &RL,
                      const Recurrence &Scan, StringRef Lane, StringRef Mask,
                      int64_t Lanes, std::vector<std::string> &Taken,
                      TextEdits &E) {
  const ASTContext &Ctx = T.Ctx;
  const auto *Body = cast<CompoundStmt>(RL.Loop->getBody());
  const Stmt *Update = Scan.Updates.front();
  std::string V = Scan.Var->getNameAsString();
  std::string J = RL.Var->getNameAsString();
  auto Fresh = [&](StringRef Base) {
    std::string N = freshName(T.Kernel.Decl, Base.str(), Taken);
    Taken.push_back(N);
    return N;
  };
  std::string Base = Fresh(J + "Base"), Term = Fresh(V + "Term"),
              Prefix = Fresh(V + "Prefix"), At = Fresh(V + "At");
  PrintingPolicy PP = Ctx.getPrintingPolicy();
  PP.SuppressTagKeyword = true;
  std::string Ty = Scan.Var->getType().getUnqualifiedType().getAsString(PP);
  std::string IType = indexTypeText(Ctx, RL.Var);
  std::string Bound = parenthesizedText(Ctx, RL.Bound);
  std::string InRow = J + (RL.Inclusive ? " <= " : " < ") + Bound;
  std::string L = std::to_string(Lanes);

  if (Error Err = E.replace(
          SourceRange(RL.Loop->getBeginLoc(), RL.Loop->getRParenLoc()),
          "for (" + IType + " " + Base + " = " +
              parenthesizedText(Ctx, RL.Init) + "; " + Base +
              (RL.Inclusive ? " <= " : " < ") + Bound + "; " + Base +
              " += " + L + ")"))
    return Err;
  if (Error Err = E.insertAfter(SourceRange(Body->getLBracLoc()),
                                "\n// A prefix sum over the row: " + L +
                                    " columns per step, one per lane.\nconst " +
                                    IType + " " + J + " = " + Base + " + " +
                                    Lane.str() + ";"))
    return Err;
  std::string TermText = sourceText(Ctx, Scan.ScanTerm->getSourceRange());
  if (Error Err = E.replace(
          SourceRange(Update->getBeginLoc(), stmtEnd(Ctx, Update)),
          Ty + " " + Term + " = 0;\nif (" + InRow + ")\n  " + Term + " = " +
              TermText + ";\nconst " + Ty + " " + Prefix +
              " = cudaOptRowScanSum(" + Term + ", " + Mask.str() + ", " + L +
              ");\nif (" + InRow + ") {\nconst " + Ty + " " + At + " = " + V +
              " + " + Prefix + "; // '" + V + "' after column " + J))
    return Err;
  RefFinder F(Scan.Var);
  F.TraverseStmt(const_cast<CompoundStmt *>(Body));
  for (const DeclRefExpr *D : F.Refs)
    if (!Update->getSourceRange().fullyContains(D->getSourceRange()))
      if (Error Err = E.replace(D->getSourceRange(), At))
        return Err;
  return E.insertBefore(SourceRange(Body->getRBracLoc()),
                        "}\n" + V + " += cudaOptRowLast(" + Prefix + ", " +
                            Mask.str() + ", " + L + ");\n");
}

/// The head of a vector-layout cached loop that stores (see the caller):
/// replaces the loop's header with the two loops over the thread's vectors
/// and their columns, the stores with the vectors' elements, and puts the
/// vectors' stores, \p Tail, for the caller to put after the inner loop.
/// Returns the inner body's prelude (the slot and the column).
Expected<std::string>
vectorStoreLoopHead(const KernelTarget &T, const CooperativeRowsPlan &Plan,
                    const RowLoop &RL,
                    const std::vector<const RowAccess *> &Stores,
                    StringRef Lane, StringRef Slot,
                    std::vector<std::string> &Taken, TextEdits &E,
                    std::string &Tail) {
  const ASTContext &Ctx = T.Ctx;
  const RowCache &C = *Plan.Cache;
  auto Fresh = [&](StringRef Base) {
    std::string N = freshName(T.Kernel.Decl, Base.str(), Taken);
    Taken.push_back(N);
    return N;
  };
  std::string J = RL.Var->getNameAsString();
  std::string V = Fresh("vec"), K = Fresh("k"), J0 = Fresh(J + "0");
  std::string W = std::to_string(Plan.CacheWidth);
  std::string IType = indexTypeText(Ctx, RL.Var);
  std::string Bound = parenthesizedText(Ctx, RL.Bound);
  std::string FirstText =
      C.FirstColumn ? std::to_string(C.FirstColumn) + " + " : "";
  std::string Head = "for (int " + V + " = 0; " + V + " < " +
                     std::to_string(Plan.Slots / Plan.CacheWidth) + "; ++" + V +
                     ") {\nconst " + IType + " " + J0 + " = " + FirstText + W +
                     " * (" + Lane.str() + " + " +
                     std::to_string(Plan.Lanes) + " * " + V + ");\nif (" + J0 +
                     " >= " + Bound + ")\nbreak;\n";
  std::string Flush;
  for (const RowAccess *A : Stores) {
    std::string Root = A->Root->getNameAsString();
    std::string Vec = Fresh(Root + "Vec");
    std::string VType =
        "cudaOptVec<" +
        A->Expr->getType().getUnqualifiedType().getAsString(
            Ctx.getPrintingPolicy()) +
        ", " + W + ">";
    Expected<std::string> AtJ0 = substituteVar(Ctx, A->Expr, RL.Var, J0);
    if (!AtJ0)
      return AtJ0.takeError();
    Head += "// This vector's columns of '" + Root +
            "', stored after the loop below.\n" + VType + " " + Vec + ";\n";
    Flush += "*reinterpret_cast<" + VType + " *>(&" + *AtJ0 + ") = " + Vec +
             ";\n";
    if (Error Err = E.replace(A->Expr->getSourceRange(), Vec + ".v[" + K + "]"))
      return std::move(Err);
  }
  Head += "#pragma unroll\nfor (int " + K + " = 0; " + K + " < " + W + "; ++" +
          K + ")";
  if (Error Err = E.replace(
          SourceRange(RL.Loop->getBeginLoc(), RL.Loop->getRParenLoc()), Head))
    return std::move(Err);
  Tail = "\n" + Flush + "}";
  // The column, when the body still reads it once the stores and the held
  // columns and values are replaced (softmax's output loop does not).
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<SourceRange> Replaced;
  for (const RowAccess *A : Stores)
    Replaced.push_back(A->Expr->getSourceRange());
  for (const RowCacheStream &S : C.Streams)
    for (const Expr *Site : S.Sites)
      Replaced.push_back(Site->getSourceRange());
  for (const RowCacheValue &V : C.Values) {
    Replaced.push_back(V.Producer->getSourceRange());
    for (const auto &Reader : V.Readers)
      Replaced.push_back(Reader.second->getSourceRange());
  }
  RefFinder F(RL.Var);
  F.TraverseStmt(const_cast<Stmt *>(RL.Loop->getBody()));
  bool ReadsColumn = llvm::any_of(F.Refs, [&](const DeclRefExpr *D) {
    return llvm::none_of(Replaced, [&](SourceRange R) {
      return rangeContains(SM, R, D->getSourceRange());
    });
  });
  // The row is a whole number of vectors: every column of this one is in it.
  std::string Prelude = "\nconst int " + Slot.str() + " = " + W + " * " + V +
                        " + " + K + ";\n";
  if (ReadsColumn)
    Prelude += "const " + IType + " " + J + " = " + J0 + " + " + K + ";\n";
  return Prelude;
}

Expected<std::string> CooperativeRows::renderRowBody(
    const KernelTarget &T, const CooperativeRowsPlan &Plan, bool Cached,
    StringRef Lane, StringRef Mask, std::vector<std::string> &Taken) const {
  const ASTContext &Ctx = T.Ctx;
  const RowProgram &RP = Plan.Program;
  const ThreadMapping &M = RP.Mapping;
  int64_t Lanes = Plan.Lanes;
  std::string L = std::to_string(Lanes);
  TextEdits E(Ctx);
  // The returns of the straight-line steps leave the row, not the kernel.
  std::vector<std::pair<SourceRange, std::string>> Returns;
  if (Error Err = returnsToContinue(Ctx, M.Body, Returns))
    return std::move(Err);
  for (auto &[R, Text] : Returns)
    if (Error Err = E.replace(R, Text))
      return std::move(Err);

  // The register arrays of the held streams.
  std::vector<std::string> CacheNames;
  if (Cached)
    for (const RowCacheStream &S : Plan.Cache->Streams) {
      CacheNames.push_back(freshName(
          T.Kernel.Decl, S.Root->getNameAsString() + "Row", Taken));
      Taken.push_back(CacheNames.back());
    }
  // The register arrays of the held values that do not go into a stream's
  // registers, named after the function that computes them (`expfVal`).
  std::vector<std::string> ValueNames;
  if (Cached)
    for (const RowCacheValue &V : Plan.Cache->Values) {
      if (V.InStream >= 0) {
        ValueNames.emplace_back();
        continue;
      }
      std::string Base = "rowVal";
      if (const auto *Call = dyn_cast<CallExpr>(V.Producer->IgnoreParenImpCasts()))
        if (const FunctionDecl *F = Call->getDirectCallee())
          if (F->getIdentifier())
            Base = F->getName().ltrim('_').str() + "Val";
      ValueNames.push_back(freshName(T.Kernel.Decl, Base, Taken));
      Taken.push_back(ValueNames.back());
    }

  // Which steps are followed by a read of memory (for __syncwarp).
  std::vector<bool> ReadLater(RP.Steps.size() + 1, false);
  for (size_t K = RP.Steps.size(); K-- > 0;)
    ReadLater[K] = ReadLater[K + 1] || RP.Steps[K].ReadsMemory;
  std::string Sync = "__syncwarp(" + Mask.str() + ");";

  for (size_t K = 0; K < RP.Steps.size(); ++K) {
    const RowStep &S = RP.Steps[K];
    SourceRange Whole(S.S->getBeginLoc(), stmtEnd(Ctx, S.S));
    bool NeedSync = S.WritesMemory && ReadLater[K + 1];
    if (S.Kind == RowStep::Store) {
      // A run of per-row stores goes under one `if (lane == 0)`.
      bool First = K == 0 || RP.Steps[K - 1].Kind != RowStep::Store;
      bool Last = K + 1 == RP.Steps.size() ||
                  RP.Steps[K + 1].Kind != RowStep::Store;
      bool Single = First && Last && !isa<IfStmt>(S.S);
      if (First)
        if (Error Err = E.insertBefore(Whole, "if (" + Lane.str() + " == 0)" +
                                                  (Single ? "\n" : " {\n")))
          return std::move(Err);
      if (!Last)
        continue;
      std::string After = Single ? "" : "\n}";
      if (NeedSync)
        After += "\n" + Sync + " // lane 0's stores, before the other lanes "
                               "read memory";
      if (!After.empty())
        if (Error Err = E.insertAfter(Whole, After))
          return std::move(Err);
      continue;
    }
    if (S.Kind != RowStep::Loop)
      continue;
    const RowLoop &RL = RP.Loops[S.LoopIndex];
    const LoopPlan &LP = Plan.Loops[S.LoopIndex];
    std::string Before;
    for (const Recurrence &R : RL.Recurrences)
      if (!R.Scan && !R.isIdempotent() &&
          !startsAtIdentity(Ctx, RP, R, RL.Loop))
        Before += "if (" + Lane.str() + " != 0) // the row's initial value "
                  "stays with lane 0\n  " +
                  R.Var->getNameAsString() + " = " +
                  (R.Kind == RecurrenceKind::Sum ? "0" : "1") + ";\n";
    bool FromCache = Cached && Plan.Cache->isCachedLoop(S.LoopIndex);
    if (const Recurrence *Scan = scanOf(RL)) {
      if (Error Err = rewriteScanLoop(T, RL, *Scan, Lane, Mask, Lanes, Taken, E))
        return std::move(Err);
    } else if (FromCache) {
      const RowCache &C = *Plan.Cache;
      for (size_t I = 0; I < C.Streams.size(); ++I)
        if (C.Streams[I].FirstLoop == (unsigned)S.LoopIndex) {
          Expected<std::string> Fill =
              Plan.CacheWidth > 1
                  ? cacheFillVector(T, Plan, C.Streams[I], CacheNames[I], Lane,
                                    Taken)
                  : cacheFill(T, Plan, C.Streams[I], CacheNames[I], Lane,
                              Taken);
          if (!Fill)
            return Fill.takeError();
          Before += *Fill;
        }
      // for (int slot = 0; slot < S; ++slot) { const int j = a0 + lane +
      // L * slot; if (j >= C) break; [if (j < a) continue;] body }
      std::string Slot = freshName(T.Kernel.Decl, "slot", Taken);
      std::string J = RL.Var->getNameAsString();
      std::string Prelude, StoreTail;
      const std::vector<const RowAccess *> *Stores =
          Plan.CacheWidth > 1 && !Plan.CacheStores[S.LoopIndex].empty()
              ? &Plan.CacheStores[S.LoopIndex]
              : nullptr;
      if (Stores) {
        // The loop's stores go through one vector per W columns:
        //   for (v) { j0 = ...; if (j0 >= C) break; VecT outVec;
        //     for (k) { slot = W * v + k; j = j0 + k;
        //               body, storing into outVec.v[k] }
        //     store outVec (16 bytes when aligned, else column by column) }
        Expected<std::string> Head = vectorStoreLoopHead(
            T, Plan, RL, *Stores, Lane, Slot, Taken, E, StoreTail);
        if (!Head)
          return Head.takeError();
        Prelude = *Head;
      } else {
        if (Error Err = E.replace(
                SourceRange(RL.Loop->getBeginLoc(), RL.Loop->getRParenLoc()),
                slotLoopHead(Slot, Plan.Slots)))
          return std::move(Err);
        Prelude = "\n" + slotColumnText(indexTypeText(Ctx, RL.Var), J,
                                        C.FirstColumn, Lane, Lanes, Slot,
                                        parenthesizedText(Ctx, RL.Bound),
                                        Plan.CacheWidth);
      }
      int64_t Start = *RL.ConstStart; // Cached loops start at constants.
      if (Start > C.FirstColumn)
        Prelude += "if (" + J + " < " + std::to_string(Start) +
                   ")\ncontinue;\n";
      const Stmt *Body = RL.Loop->getBody();
      if (const auto *CS = dyn_cast<CompoundStmt>(Body)) {
        Prelude.pop_back(); // The body's own line break follows.
        if (Error Err = E.insertAfter(SourceRange(CS->getLBracLoc()), Prelude))
          return std::move(Err);
      } else {
        SourceRange BodyRange(Body->getBeginLoc(), stmtEnd(Ctx, Body));
        if (Error Err = E.insertBefore(BodyRange, "{" + Prelude))
          return std::move(Err);
        if (Error Err = E.insertAfter(BodyRange, "\n}"))
          return std::move(Err);
      }
      if (!StoreTail.empty())
        if (Error Err = E.insertAfter(
                SourceRange(RL.Loop->getBeginLoc(), stmtEnd(Ctx, RL.Loop)),
                StoreTail))
          return std::move(Err);
      // Held values: the producer keeps each slot's value, the readers
      // read it; the held reads inside them are rewritten with them.
      std::vector<SourceRange> Replaced;
      auto HeldText = [&](const Expr *X) -> Expected<std::string> {
        TextEdits Inner(Ctx);
        for (size_t I = 0; I < C.Streams.size(); ++I)
          for (const Expr *Site : C.Streams[I].Sites)
            if (X->getSourceRange().fullyContains(Site->getSourceRange()))
              if (Error Err = Inner.replace(Site->getSourceRange(),
                                            CacheNames[I] + "[" + Slot + "]"))
                return std::move(Err);
        return Inner.render(X->getSourceRange());
      };
      for (size_t I = 0; I < C.Values.size(); ++I) {
        const RowCacheValue &V = C.Values[I];
        std::string Cell =
            (V.InStream >= 0 ? CacheNames[V.InStream] : ValueNames[I]) + "[" +
            Slot + "]";
        if (V.ProducerLoop == (unsigned)S.LoopIndex) {
          Expected<std::string> Text = HeldText(V.Producer);
          if (!Text)
            return Text.takeError();
          PrintingPolicy PP = Ctx.getPrintingPolicy();
          PP.SuppressTagKeyword = true;
          if (V.InStream >= 0)
            Before += "// cuda-opt cache: the loop below replaces each held "
                      "column with '" +
                      *Text + "', which the later loops read from there\n";
          else
            Before += "// cuda-opt cache: '" + *Text +
                    "' of this thread's columns, kept for " +
                    (V.Readers.size() > 1 ? "the loops below, which compute"
                                          : "the loop below, which computes") +
                    " it again\n" +
                    V.Type.getUnqualifiedType().getAsString(PP) + " " +
                    ValueNames[I] + "[" + std::to_string(Plan.Slots) + "];\n";
          if (Error Err = E.replace(V.Producer->getSourceRange(),
                                    "(" + Cell + " = " + *Text + ")"))
            return std::move(Err);
          Replaced.push_back(V.Producer->getSourceRange());
        }
        for (const auto &[Loop, X] : V.Readers)
          if (Loop == (unsigned)S.LoopIndex) {
            if (Error Err = E.replace(X->getSourceRange(), Cell))
              return std::move(Err);
            Replaced.push_back(X->getSourceRange());
          }
      }
      Before += "#pragma unroll\n";
      for (size_t I = 0; I < C.Streams.size(); ++I)
        for (const Expr *Site : C.Streams[I].Sites)
          if (RL.Loop->getSourceRange().fullyContains(Site->getSourceRange()) &&
              llvm::none_of(Replaced, [&](SourceRange R) {
                return R.fullyContains(Site->getSourceRange());
              }))
            if (Error Err = E.replace(Site->getSourceRange(),
                                      CacheNames[I] + "[" + Slot + "]"))
              return std::move(Err);
    } else {
      std::string Start = Lane.str();
      const bool Zero = RL.ConstStart == 0;
      if (!LP.Streams.empty()) {
        std::string Quads = freshName(
            T.Kernel.Decl, LP.Width == 4 ? "quads" : "octs", Taken);
        Taken.push_back(Quads);
        std::string Head = freshName(T.Kernel.Decl, "head", Taken);
        Taken.push_back(Head);
        Expected<std::string> Vec =
            vectorPath(T, RL, LP, Lane, Head, Quads, Lanes);
        if (!Vec)
          return Vec.takeError();
        Before += *Vec;
        Start = (Zero ? "" : parenthesizedText(Ctx, RL.Init) + " + ") + Head +
                " + " + std::to_string(LP.Width) + " * " + Quads + " + " +
                Lane.str();
      } else if (!Zero) {
        Start = parenthesizedText(Ctx, RL.Init) + " + " + Lane.str();
      }
      if (Error Err = E.replace(RL.Init->getSourceRange(), Start))
        return std::move(Err);
      if (Error Err = E.replace(RL.Loop->getInc()->getSourceRange(),
                                RL.Var->getNameAsString() + " += " + L))
        return std::move(Err);
    }
    if (!Before.empty())
      if (Error Err = E.insertBefore(Whole, Before))
        return std::move(Err);
    std::string After;
    for (const Recurrence &R : RL.Recurrences)
      if (!R.Scan)
        After += "\n" + combineText(R, Mask, Lanes);
    if (NeedSync)
      After += "\n" + Sync + " // this loop's writes, before the other lanes "
                             "read memory";
    if (!After.empty())
      if (Error Err = E.insertAfter(Whole, After))
        return std::move(Err);
  }

  if (M.EarlyReturn) {
    Expected<std::string> Text = E.render(bodyRange(Ctx, M));
    if (!Text)
      return Text.takeError();
    return "{\n" + *Text + "\n}";
  }
  const Stmt *Then = M.Guard->getThen();
  Expected<std::string> Text =
      E.render(SourceRange(Then->getBeginLoc(), stmtEnd(Ctx, Then)));
  if (!Text)
    return Text.takeError();
  return isa<CompoundStmt>(Then) ? *Text : "{\n" + *Text + "\n}";
}

Expected<tooling::Replacements>
CooperativeRows::applyPlan(const KernelTarget &T,
                           const CooperativeRowsPlan &Plan) const {
  const ASTContext &Ctx = T.Ctx;
  const SourceManager &SM = T.getSourceManager();
  const RowProgram &RP = Plan.Program;
  const ThreadMapping &M = RP.Mapping;
  const MappedIndex &I = M.x();
  int64_t Lanes = Plan.Lanes;
  std::string L = std::to_string(Lanes);
  std::string Lane = freshName(T.Kernel.Decl, "lane");
  std::string Mask = freshName(T.Kernel.Decl, "rowMask", {Lane});
  std::string Row = I.Var->getNameAsString();

  std::vector<std::string> Taken = {Lane, Mask};
  for (const LoopPlan &LP : Plan.Loops)
    for (const Stream &S : LP.Streams)
      Taken.push_back(S.Name);

  Expected<std::string> Body =
      renderRowBody(T, Plan, /*Cached=*/false, Lane, Mask, Taken);
  if (!Body)
    return Body.takeError();
  std::string Cached;
  if (Plan.Cache) {
    Expected<std::string> CachedBody =
        renderRowBody(T, Plan, /*Cached=*/true, Lane, Mask, Taken);
    if (!CachedBody)
      return CachedBody.takeError();
    Cached = std::move(*CachedBody);
  }

  // The row loop replaces the index declaration and the guard.
  std::string Type = indexTypeText(Ctx, I.Var);
  std::string Stride = "blockDim.x / " + L + " * gridDim.x";
  if (isWideIndex(Ctx, I.Var))
    Stride = "static_cast<" + Type + ">(blockDim.x / " + L + ") * gridDim.x";
  std::string Cond =
      M.EarlyReturn
          ? Row + (I.Inclusive ? " <= " : " < ") + parenthesizedText(Ctx, I.Bound)
          : sourceText(Ctx, M.Guard->getCond()->getSourceRange());
  std::string Params = "lanes=" + L;
  if (Plan.Slots)
    Params += ",cache=" + std::to_string(Plan.Slots);
  if (Plan.ScaleGrid)
    Params += ",scale-grid=1";
  std::string Head =
      "// cuda-opt cooperative-rows{" + Params + "}: a group of " + L +
      " consecutive\n// threads shares each row ('" + Lane + "' 0.." +
      std::to_string(Lanes - 1) +
      "): the loops over the row are\n// lane-strided, their results "
      "combined with shuffles, and the\n// groups stride over the rows.\n" +
      "const int " + Lane + " = threadIdx.x % " + L + ";\n" +
      "const unsigned " + Mask + " = " + MaskHelper.str() + "(" + L + ");\n";
  std::string RowLoop = "for (" + Type + " " + Row + " = (" +
                        sourceText(Ctx, I.Var->getInit()->getSourceRange()) +
                        ") / " + L + "; " + Cond + "; " + Row + " += " +
                        Stride + ") ";
  std::string Text = Head + RowLoop + *Body;
  if (Plan.Cache) {
    // The bound is the same for the whole kernel (RowCache.h), so the choice
    // is made once, outside the row loops: each loop then gets registers for
    // its own form only.
    int64_t Capacity = Plan.Cache->FirstColumn + Lanes * Plan.Slots;
    std::string Bound = parenthesizedText(Ctx, Plan.Cache->Bound);
    std::string Cond = Bound + " <= " + std::to_string(Capacity);
    std::string Which = "Rows of up to " + std::to_string(Capacity) + " columns";
    if (Plan.CacheWidth > 1) {
      // The vector layout holds whole vectors only.
      std::string W = std::to_string(Plan.CacheWidth);
      Cond += " && " +
              (Plan.Cache->FirstColumn
                   ? "(" + Bound + " - " +
                         std::to_string(Plan.Cache->FirstColumn) + ")"
                   : Bound) +
              " % " + W + " == 0";
      Which += ", a whole number of " + W + "-column vectors,";
      std::string WholeVectors = Cond.substr(Cond.rfind(" && ") + 4);
      for (const std::string &Part : Plan.AlignedRows)
        if (Part != WholeVectors)
          Cond += " && " + Part;
      Which += " each starting on a 16-byte boundary,";
    }
    Text = Head + "if (" + Cond + ") {\n// " + Which +
           " are held in registers (cache=" + std::to_string(Plan.Slots) +
           ").\n" + RowLoop + Cached +
           "\n} else {\n// " +
           (Plan.CacheWidth > 1 ? "Other" : "Longer") +
           " rows are read from memory in every loop.\n" +
           RowLoop + *Body + "\n}";
  }

  tooling::Replacements R;
  if (Error Err = R.add(tooling::Replacement(
          SM, CharSourceRange::getTokenRange(M.Region), Text,
          Ctx.getLangOpts())))
    return std::move(Err);
  if (Plan.ScaleGrid)
    for (const LaunchSite &Site : T.Kernel.Launches)
      if (Error Err = rewriteGridX(
              T.Ctx, Site,
              [&](StringRef G) {
                return ("cudaOptRowGroupGrid(" + G + ", " + L + ")").str();
              },
              R))
        return std::move(Err);
  if (Plan.NeedHelpers) {
    SourceLocation At = helperLocation(T);
    if (At.isInvalid())
      return refuse("internal error: no place found for the row-group helpers");
    if (Error Err = R.add(tooling::Replacement(SM, At, 0, RowGroupHelpers)))
      return std::move(Err);
  }
  return R;
}

} // namespace

std::unique_ptr<Transform> createCooperativeRowsTransform() {
  return std::make_unique<CooperativeRows>();
}
} // namespace cuda_opt
