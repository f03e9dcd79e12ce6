//===- StageSegments.cpp - Stage a block's row segments in shared memory --===//
//
// Part of cuda-opt.
//
// stage-segments{items=K,stream=S} rewrites a "one thread per row" kernel
// whose rows are segments of one array given by a row pointer (CSR), such as
//
//   int row = blockIdx.x * blockDim.x + threadIdx.x;
//   if (row < rows) {
//     float sum = 0.0f;
//     for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
//       sum += vals[j] * x[col_idx[j]];
//     y[row] = sum;
//   }
//
// A thread walks its own short segment with one dependent chain of loads
// per element; neighbouring threads read neighbouring segments, so a warp's
// loads are scattered over a few hundred bytes. The rows of a block are
// consecutive, so their segments together are one contiguous range. The
// block streams that range through shared memory in chunks of
// blockDim.x * K elements, every thread issuing K independent, coalesced
// loads of each staged operand (the outermost array reads of the term,
// `vals[j]` and `x[col_idx[j]]`), and each row's thread then adds its own
// slice of the chunk in the original order:
//
//   float sumStaged = 0.0f;
//   {
//     __shared__ float valsStage[256 * 4];
//     __shared__ float xStage[256 * 4];
//     __shared__ int segRange[2];
//     const bool rowActive = row < rows;
//     const int segLo = rowActive ? row_ptr[row] : 0;
//     const int segHi = rowActive ? row_ptr[row + 1] : 0;
//     ... segRange = [min segLo, max segHi) over the block's active rows ...
//     if (__syncthreads_and(blockDim.x <= 256 && (!rowActive || segLo <= segHi))) {
//       for (int chunk = segRange[0]; chunk < segRange[1]; chunk += ...) {
//         ... stage K elements per thread; __syncthreads(); ...
//         for (int j = max(segLo, chunk); j < min(segHi, chunkEnd); ++j)
//           sumStaged += valsStage[j - chunk] * xStage[j - chunk];
//         __syncthreads();
//       }
//     } else if (rowActive) {   // a decreasing row pointer: the original loop
//       for (int j = segLo; j < segHi; ++j)
//         sumStaged += vals[j] * x[col_idx[j]];
//     }
//   }
//   if (row < rows) {
//     float sum = 0.0f;
//     sum = sumStaged;
//     y[row] = sum;
//   }
//
// Each row's sum adds the same terms, computed by the same expression, in
// the same order, starting from the same 0: the result is bitwise the
// original's (fp-model class Preserves). With stream=1 the element-indexed
// reads of the staged operands (`vals[j]`, `col_idx[j]`) use __ldcs, which
// marks them as read once, so the gathered operand (`x`) keeps its place in
// the L2 cache.
//
// Legal when the kernel is a row program whose row index is
// blockIdx.x * blockDim.x + threadIdx.x guarded by `row < n` alone, its
// work one loop `for (j = lo; j < hi; ++j) acc += e;` with acc a scalar sum
// that starts at 0 and no other statement in the loop, lo, hi and e read
// only parameters, the row index and j (and memory the kernel does not
// write), nothing before the loop writes memory or returns, and every
// launch has a constant 1-D block (the staging arrays are sized from the
// largest).
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/BlockReduction.h"
#include "cuda-opt/Analysis/LaunchAliasing.h"
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Analysis/RowProgram.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/SourceEdits.h"
#include "cuda-opt/Transforms/Utils/TextEdits.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

std::string at(const ASTContext &Ctx, const Stmt *S) {
  return describeLocation(Ctx.getSourceManager(), S->getBeginLoc());
}

/// The first variable \p E refers to other than the parameters, \p Row and
/// \p J (nullptr when there is none).
const VarDecl *foreignVariable(const Expr *E, const VarDecl *Row,
                               const VarDecl *J) {
  struct Finder : RecursiveASTVisitor<Finder> {
    const VarDecl *Row, *J;
    const VarDecl *Found = nullptr;
    bool VisitDeclRefExpr(DeclRefExpr *D) {
      const auto *V = dyn_cast<VarDecl>(D->getDecl());
      if (V && !isa<ParmVarDecl>(V) && V != Row && V != J &&
          V->hasLocalStorage() && !Found)
        Found = V;
      return true;
    }
  } F;
  F.Row = Row;
  F.J = J;
  F.TraverseStmt(const_cast<Expr *>(E));
  return F.Found;
}

/// The outermost array reads of \p E, in source order: the operands the
/// rewrite stages (`vals[j]`, `x[col_idx[j]]`, not `col_idx[j]`).
std::vector<const ArraySubscriptExpr *> outermostReads(const Expr *E) {
  struct Finder : RecursiveASTVisitor<Finder> {
    std::vector<const ArraySubscriptExpr *> Found;
    bool TraverseArraySubscriptExpr(ArraySubscriptExpr *A) {
      Found.push_back(A);
      return true; // not into its index: nested reads go with it
    }
  } F;
  F.TraverseStmt(const_cast<Expr *>(E));
  return F.Found;
}

/// `p[j]` with p a parameter and j exactly \p J: a read streamed once.
bool isElementRead(const ArraySubscriptExpr *A, const VarDecl *J) {
  const auto *Base = dyn_cast<DeclRefExpr>(A->getBase()->IgnoreParenImpCasts());
  const auto *Idx = dyn_cast<DeclRefExpr>(A->getIdx()->IgnoreParenImpCasts());
  return Base && isa<ParmVarDecl>(Base->getDecl()) && Idx &&
         Idx->getDecl() == J;
}

/// Whether __ldcs has an overload for \p T (CUDA's scalar types).
bool hasStreamingLoad(const ASTContext &Ctx, QualType T) {
  const auto *BT = T.getCanonicalType().getUnqualifiedType()->getAs<BuiltinType>();
  if (!BT || T->isBooleanType())
    return false;
  uint64_t Bits = Ctx.getTypeSize(T);
  return (BT->isInteger() || BT->isFloatingPoint()) && Bits >= 8 && Bits <= 64;
}

struct StageSegmentsPlan : TransformPlan {
  RowProgram Program;
  int64_t Items = 4;
  bool Stream = true;
  /// The largest block of any launch: the staging arrays hold Items of it.
  int64_t Block = 0;
  const Recurrence *Sum = nullptr;
  const Expr *Term = nullptr;
  std::vector<const ArraySubscriptExpr *> Staged;
};

class StageSegments : public TransformWithPlan<StageSegmentsPlan> {
public:
  StringRef getName() const override { return "stage-segments"; }
  StringRef getSummary() const override {
    return "stream a block's row segments (CSR rows) through shared memory "
           "with coalesced loads; each row's thread adds its slice in the "
           "original order";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"items", 4, 1, 16,
         "elements each thread stages per chunk (independent loads in "
         "flight); a chunk is blockDim.x * items elements",
         /*PowerOfTwo=*/true,
         {8, 4, 2}},
        {"stream", 1, 0, 1,
         "1 = read the staged elements with __ldcs (read once), keeping "
         "gathered operands in L2",
         false,
         {1, 0}},
    };
    return Specs;
  }
  bool changesLaunchConfig(const ParamValues &) const override { return false; }
  FpEffect fpEffect(const ParamValues &) const override {
    return FpEffect::Preserves;
  }

  Expected<StageSegmentsPlan> makePlan(const KernelTarget &T,
                                       const ParamValues &P) const override;
  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T,
            const StageSegmentsPlan &Plan) const override;
};

Expected<StageSegmentsPlan>
StageSegments::makePlan(const KernelTarget &T, const ParamValues &P) const {
  ASTContext &Ctx = T.Ctx;
  const KernelInfo &K = T.Kernel;
  std::string Kernel = "kernel '" + K.name() + "'";
  StageSegmentsPlan Plan;
  Plan.Items = P.get("items");
  Plan.Stream = P.get("stream") != 0;
  if (Plan.Items < 1 || Plan.Items > 16 || (Plan.Items & (Plan.Items - 1)))
    return refuse("items must be a power of two from 1 to 16");

  Expected<RowProgram> RP = analyzeRowProgram(Ctx, K);
  if (!RP)
    return RP.takeError();
  Plan.Program = std::move(*RP);
  const RowProgram &Prog = Plan.Program;
  const ThreadMapping &M = Prog.Mapping;
  const MappedIndex &I = M.x();
  if (!isGlobalIndexX(I.Var->getInit()))
    return refuse("index '" + I.Var->getNameAsString() +
                  "' is not computed as 'blockIdx.x * blockDim.x + "
                  "threadIdx.x', so a block's rows are not known to be "
                  "consecutive");
  if (!M.Conditions.empty() || I.Inclusive)
    return refuse("the guard of " + Kernel + " tests more than '" +
                  I.Var->getNameAsString() +
                  " < bound', so its active rows may not be consecutive");
  if (Prog.Loops.size() != 1)
    return refuse("its per-row work has " + Twine(Prog.Loops.size()) +
                  " loops; stage-segments stages a kernel whose work is one "
                  "loop over the row's segment");
  const RowLoop &L = Prog.Loops.front();
  std::string LoopAt = "the loop at " + at(Ctx, L.Loop);
  for (const RowStep &S : Prog.Steps) {
    if (S.Kind == RowStep::Loop)
      break;
    if (S.Kind == RowStep::Store || S.WritesMemory || S.Returns)
      return refuse("the statement at " + at(Ctx, S.S) +
                    " before the loop writes memory or returns; the "
                    "staged loop runs before it");
  }
  if (L.WritesMemory)
    return refuse(LoopAt + " writes memory; stage-segments stages loops "
                           "that only read");
  // The block's range is combined with atomicMin/atomicMax, which CUDA has
  // for int and long long.
  const auto *Counter = L.Var->getType()->getAs<BuiltinType>();
  if (!Counter || (Counter->getKind() != BuiltinType::Int &&
                   Counter->getKind() != BuiltinType::LongLong))
    return refuse(LoopAt + " counts with '" +
                  typeText(Ctx, L.Var->getType()) +
                  "'; stage-segments handles int and long long counters");
  if (L.Inclusive || !L.Var->getType()->isSignedIntegerType() ||
      !L.Init->getType()->isSignedIntegerType() ||
      !L.Bound->getType()->isSignedIntegerType())
    return refuse(LoopAt + " is not 'for (int j = lo; j < hi; ++j)' with "
                           "signed bounds");
  if (L.Recurrences.size() != 1 ||
      L.Recurrences.front().Kind != RecurrenceKind::Sum ||
      L.Recurrences.front().Scan)
    return refuse(LoopAt + " does not carry exactly one sum");
  Plan.Sum = &L.Recurrences.front();
  const VarDecl *Acc = Plan.Sum->Var;
  if (!Acc->getType()->isArithmeticType())
    return refuse(LoopAt + " sums '" + Acc->getNameAsString() +
                  "', which is not an arithmetic scalar");

  // The body: exactly `acc += e;` or `acc = acc + e;`.
  const Stmt *Body = L.Loop->getBody();
  if (const auto *CS = dyn_cast<CompoundStmt>(Body)) {
    if (CS->size() != 1)
      return refuse(LoopAt + " does more than add one term per iteration");
    Body = CS->body_front();
  }
  const auto *BO = dyn_cast<BinaryOperator>(Body);
  auto IsAcc = [&](const Expr *E) {
    const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
    return D && D->getDecl() == Acc;
  };
  if (BO && BO->getOpcode() == BO_AddAssign && IsAcc(BO->getLHS())) {
    Plan.Term = BO->getRHS();
  } else if (BO && BO->getOpcode() == BO_Assign && IsAcc(BO->getLHS())) {
    const auto *Add =
        dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParens());
    if (Add && Add->getOpcode() == BO_Add && IsAcc(Add->getLHS()))
      Plan.Term = Add->getRHS();
  }
  if (!Plan.Term)
    return refuse(LoopAt + " does more than 'acc += term;'");

  // The sum starts at 0 where it is declared, and nothing before the loop
  // changes it: the staged sum starts at 0 too.
  const Expr *Init = Acc->getInit();
  if (!Init || !isPositiveZeroConstant(Ctx, Init))
    return refuse("'" + Acc->getNameAsString() +
                  "' does not start at 0 where it is declared, so the "
                  "staged sum would not add in the original's order");
  for (const RowStep &S : Prog.Steps) {
    if (S.S == L.Loop)
      break;
    if (const auto *DS = dyn_cast<DeclStmt>(S.S))
      if (llvm::is_contained(DS->decls(), Acc))
        continue;
    struct Mentions : RecursiveASTVisitor<Mentions> {
      const VarDecl *V;
      bool Found = false;
      bool VisitDeclRefExpr(DeclRefExpr *D) {
        Found |= D->getDecl() == V;
        return true;
      }
    } Mn;
    Mn.V = Acc;
    Mn.TraverseStmt(const_cast<Stmt *>(S.S));
    if (Mn.Found)
      return refuse("'" + Acc->getNameAsString() + "' is used at " +
                    at(Ctx, S.S) + " before the loop");
  }

  // The segment and the term are computed before the guard: they may read
  // only the parameters, the row index and the loop's counter.
  for (const Expr *E : {L.Init, L.Bound, Plan.Term})
    if (const VarDecl *V = foreignVariable(E, I.Var, L.Var))
      return refuse("'" + sourceText(Ctx, E->getSourceRange()) +
                    "' reads '" + V->getNameAsString() +
                    "', a local of the row; stage-segments computes it "
                    "before the guard");
  Plan.Staged = outermostReads(Plan.Term);
  if (Plan.Staged.empty())
    return refuse("the term '" + sourceText(Ctx, Plan.Term->getSourceRange()) +
                  "' reads no memory; there is nothing to stage");
  for (const ArraySubscriptExpr *A : Plan.Staged)
    if (!A->getType()->isArithmeticType())
      return refuse("'" + sourceText(Ctx, A->getSourceRange()) +
                    "' is not an arithmetic scalar, which the staging "
                    "arrays hold");
  if (!isa<ArraySubscriptExpr>(L.Init->IgnoreParenImpCasts()) ||
      !isa<ArraySubscriptExpr>(L.Bound->IgnoreParenImpCasts()))
    return refuse(LoopAt + " does not run from one element of a row "
                           "pointer to another ('p[row]' to 'p[row + 1]')");

  // The launches: constant 1-D blocks; the staging arrays fit 48 KiB.
  if (K.Launches.empty())
    return refuse(Kernel + " is not launched in this file, so its block "
                           "size (the staging arrays' size) is unknown");
  if (std::optional<std::string> Use = foreignKernelUse(Ctx, K, true))
    return refuse(Kernel + " is referenced at " + *Use +
                  ", which may launch it with a block larger than the "
                  "staging arrays");
  for (const LaunchSite &Site : K.Launches) {
    std::string At = describeLocation(T.getSourceManager(), Site.Call->getBeginLoc());
    const Expr *BlockE = launchBlockExpr(Site);
    std::optional<int64_t> Threads =
        BlockE ? threadsPerBlock(Site, Ctx) : std::nullopt;
    bool OneD = BlockE && stripLaunchArgImplicit(BlockE)->getType()->isIntegerType();
    if (BlockE)
      if (std::optional<Dim3> D = evaluateDim3(BlockE, Ctx))
        OneD = (*D)[1] == 1 && (*D)[2] == 1;
    if (!Threads || !OneD)
      return refuse("the block of the launch at " + At +
                    " is not a constant 1-D size, which the staging arrays "
                    "are sized from");
    Plan.Block = std::max(Plan.Block, *Threads);
  }
  int64_t Bytes = 8;
  for (const ArraySubscriptExpr *A : Plan.Staged)
    Bytes += Plan.Block * Plan.Items *
             static_cast<int64_t>(Ctx.getTypeSizeInChars(A->getType()).getQuantity());
  if (Bytes > 48 * 1024)
    return refuse("staging " + Twine(Plan.Staged.size()) + " operands of " +
                  Twine(Plan.Block) + " x " + Twine(Plan.Items) +
                  " elements takes " + Twine(Bytes) +
                  " bytes of shared memory, more than 48 KiB; use fewer "
                  "items");
  return Plan;
}

Expected<tooling::Replacements>
StageSegments::applyPlan(const KernelTarget &T,
                         const StageSegmentsPlan &Plan) const {
  const ASTContext &Ctx = T.Ctx;
  const SourceManager &SM = T.getSourceManager();
  const RowProgram &RP = Plan.Program;
  const ThreadMapping &M = RP.Mapping;
  const MappedIndex &I = M.x();
  const RowLoop &L = RP.Loops.front();
  const FunctionDecl *F = T.Kernel.Decl;
  std::vector<std::string> Taken;
  auto Fresh = [&](const std::string &Base) {
    std::string N = freshName(F, Base, Taken);
    Taken.push_back(N);
    return N;
  };
  const VarDecl *Acc = Plan.Sum->Var;
  std::string J = L.Var->getNameAsString();
  std::string AccType = typeText(Ctx, Acc->getType());
  std::string IType = typeText(Ctx, L.Var->getType());
  std::string Staged = Fresh(Acc->getNameAsString() + "Staged");
  std::string Active = Fresh("rowActive"), Lo = Fresh("segLo"),
              Hi = Fresh("segHi"), Range = Fresh("segRange"),
              Chunk = Fresh("chunk"), ChunkEnd = Fresh("chunkEnd"),
              Item = Fresh("item"), At = Fresh("at");
  std::string Size = std::to_string(Plan.Block) + " * " +
                     std::to_string(Plan.Items);
  std::string ItemsText = std::to_string(Plan.Items);

  // The staging arrays, named after the arrays the operands read.
  std::vector<std::string> Names;
  std::string Shared;
  for (const ArraySubscriptExpr *A : Plan.Staged) {
    std::string Base = "operand";
    if (const auto *D =
            dyn_cast<DeclRefExpr>(A->getBase()->IgnoreParenImpCasts()))
      Base = D->getDecl()->getNameAsString();
    Names.push_back(Fresh(Base + "Stage"));
    Shared += "__shared__ " + typeText(Ctx, A->getType()) + " " +
              Names.back() + "[" + Size + "];\n";
  }

  // An operand's text with the counter replaced by \p Value (and, with
  // stream=1, its element reads `p[j]` streamed).
  auto OperandAt = [&](const ArraySubscriptExpr *A,
                       StringRef Value) -> Expected<std::string> {
    TextEdits E(Ctx);
    struct Reads : RecursiveASTVisitor<Reads> {
      std::vector<const ArraySubscriptExpr *> All;
      bool VisitArraySubscriptExpr(ArraySubscriptExpr *X) {
        All.push_back(X);
        return true;
      }
    } R;
    R.TraverseStmt(const_cast<ArraySubscriptExpr *>(A));
    std::vector<SourceRange> Streamed;
    if (Plan.Stream)
      for (const ArraySubscriptExpr *X : R.All)
        if (isElementRead(X, L.Var) && hasStreamingLoad(Ctx, X->getType())) {
          std::string P = sourceText(Ctx, X->getBase()->getSourceRange());
          if (Error Err = E.replace(X->getSourceRange(),
                                    "__ldcs(&" + P + "[" + Value.str() + "])"))
            return std::move(Err);
          Streamed.push_back(X->getSourceRange());
        }
    struct Refs : RecursiveASTVisitor<Refs> {
      const VarDecl *V;
      std::vector<const DeclRefExpr *> Found;
      bool VisitDeclRefExpr(DeclRefExpr *D) {
        if (D->getDecl() == V)
          Found.push_back(D);
        return true;
      }
    } Rf;
    Rf.V = L.Var;
    Rf.TraverseStmt(const_cast<ArraySubscriptExpr *>(A));
    for (const DeclRefExpr *D : Rf.Found)
      if (llvm::none_of(Streamed, [&](SourceRange S) {
            return S.fullyContains(D->getSourceRange());
          }))
        if (Error Err = E.replace(D->getSourceRange(), Value.str()))
          return std::move(Err);
    return E.render(A->getSourceRange());
  };

  // The staged term: each operand read from its staging array.
  TextEdits TermEdits(Ctx);
  for (size_t K = 0; K < Plan.Staged.size(); ++K)
    if (Error Err = TermEdits.replace(Plan.Staged[K]->getSourceRange(),
                                      Names[K] + "[" + J + " - " + Chunk +
                                          "]"))
      return std::move(Err);
  Expected<std::string> StagedTerm =
      TermEdits.render(Plan.Term->getSourceRange());
  if (!StagedTerm)
    return StagedTerm.takeError();
  std::string Term = sourceText(Ctx, Plan.Term->getSourceRange());

  std::string Cond =
      I.Var->getNameAsString() + " < " + parenthesizedText(Ctx, I.Bound);
  std::string Fill;
  for (size_t K = 0; K < Plan.Staged.size(); ++K) {
    Expected<std::string> Op = OperandAt(Plan.Staged[K], At);
    if (!Op)
      return Op.takeError();
    Fill += Names[K] + "[" + At + " - " + Chunk + "] = " + *Op + ";\n";
  }
  std::string Params = "items=" + ItemsText + ",stream=" +
                       (Plan.Stream ? "1" : "0");
  std::string Text =
      "// cuda-opt stage-segments{" + Params + "}: the block's rows are "
      "consecutive, so their segments [" +
      sourceText(Ctx, L.Init->getSourceRange()) + ", " +
      sourceText(Ctx, L.Bound->getSourceRange()) +
      ") form one range; the block stages it in shared memory in chunks "
      "of blockDim.x * " + ItemsText + " (each thread " + ItemsText +
      " coalesced loads of each operand), then each row's thread adds its "
      "slice in the original order.\n" +
      AccType + " " + Staged + " = " +
      sourceText(Ctx, Acc->getInit()->getSourceRange()) + ";\n{\n" + Shared +
      "__shared__ " + IType + " " + Range + "[2];\nconst bool " + Active +
      " = " + Cond + ";\nconst " + IType + " " + Lo + " = " + Active + " ? " +
      sourceText(Ctx, L.Init->getSourceRange()) + " : 0;\nconst " + IType +
      " " + Hi + " = " + Active + " ? " +
      sourceText(Ctx, L.Bound->getSourceRange()) + " : 0;\nif (threadIdx.x == 0) {\n" +
      Range + "[0] = " + Lo + ";\n" + Range + "[1] = " + Lo +
      ";\n}\n__syncthreads();\n// The block's range: from the first active "
      "row's start to the last one's end.\nif (" +
      Active + ") {\natomicMin(&" + Range + "[0], " + Lo + ");\natomicMax(&" +
      Range + "[1], " + Hi + ");\n}\n// Every active row's segment inside it: "
      "the row pointer does not decrease (and the block fits the arrays).\n"
      "if (__syncthreads_and(blockDim.x <= " + std::to_string(Plan.Block) +
      " && (!" + Active + " || " + Lo + " <= " + Hi + "))) {\nfor (" + IType + " " + Chunk + " = " +
      Range + "[0]; " + Chunk + " < " + Range + "[1]; " + Chunk +
      " += blockDim.x * " + ItemsText + ") {\nconst " + IType + " " +
      ChunkEnd + " = min(" + Range + "[1], " + Chunk + " + (" + IType +
      ")(blockDim.x * " + ItemsText + "));\n#pragma unroll\nfor (int " + Item +
      " = 0; " + Item + " < " + ItemsText + "; ++" + Item + ") {\nconst " +
      IType + " " + At + " = " + Chunk + " + threadIdx.x + " + Item +
      " * blockDim.x;\nif (" + At + " < " + ChunkEnd + ") {\n" + Fill +
      "}\n}\n__syncthreads();\nfor (" + IType + " " + J + " = max(" + Lo +
      ", " + Chunk + "); " + J + " < min(" + Hi + ", " + ChunkEnd + "); ++" +
      J + ")\n" + Staged + " += " + *StagedTerm +
      ";\n__syncthreads();\n}\n} else if (" + Active +
      ") {\n// A decreasing row pointer: the original loop.\nfor (" + IType +
      " " + J + " = " + Lo + "; " + J + " < " + Hi + "; ++" + J + ")\n" +
      Staged + " += " + Term + ";\n}\n}\n";

  // The loop inside the guard becomes the staged sum.
  TextEdits E(Ctx);
  SourceRange LoopRange(L.Loop->getBeginLoc(), stmtEnd(Ctx, L.Loop));
  if (Error Err = E.replace(LoopRange, Acc->getNameAsString() + " = " +
                                           Staged + "; // staged above"))
    return std::move(Err);
  SourceRange Whole(M.Guard->getBeginLoc(),
                    M.EarlyReturn ? stmtEnd(Ctx, M.Body.back())
                                  : stmtEnd(Ctx, M.Guard->getThen()));
  if (Error Err = E.insertBefore(Whole, Text))
    return std::move(Err);
  Expected<std::string> Rendered = E.render(Whole);
  if (!Rendered)
    return Rendered.takeError();
  tooling::Replacements R;
  if (Error Err = R.add(tooling::Replacement(
          SM, CharSourceRange::getTokenRange(Whole), *Rendered,
          Ctx.getLangOpts())))
    return std::move(Err);
  return R;
}

} // namespace

std::unique_ptr<Transform> createStageSegmentsTransform() {
  return std::make_unique<StageSegments>();
}
} // namespace cuda_opt
