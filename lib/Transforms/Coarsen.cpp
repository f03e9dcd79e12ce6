//===- Coarsen.cpp - Let each thread compute several elements -------------===//
//
// Part of cuda-opt.
//
// coarsen{factor=F} makes each thread of a one-element-per-thread kernel
// compute F elements, block-cyclically so that a warp still touches
// consecutive elements on each step:
//
//   for (int c = 0; c < F; ++c) {
//     int i = (blockIdx.x * F + c) * blockDim.x + threadIdx.x;
//     if (i < n) { body }
//   }
//
// and divides every launch's grid by F, rounding up. Block b of the new grid
// does the work of old blocks b*F .. b*F+F-1, so the threads cover at least
// what the old grid covered; the guard drops the rest. It is legal when the
// per-element work depends only on i and every launch's grid is a ceil-div
// of the kernel's bound (so the old grid covered exactly the guarded work).
//
// coarsen{factor=F,axis=y} makes each thread of a 2-D kernel compute F
// consecutive rows:
//
//   #pragma unroll
//   for (int c = 0; c < F; ++c) {
//     int y = (blockIdx.y * blockDim.y + threadIdx.y) * F + c;
//     if (x < w && y < h) { body }
//   }
//
// and divides every launch's grid.y by F, rounding up. Rows next to each
// other in one thread let nvcc reuse the loads that neighbouring output rows
// share (a stencil's rows y-1, y, y+1; overlapping pooling windows), while a
// warp still runs along x. Thread t of the new grid does the rows of old
// threads t*F .. t*F+F-1 (counting along y), so with a ceil-div grid.y the
// new threads cover every row the old ones did; the guard drops the rest.
// Legality is lib/Analysis/RowMapping.cpp.
//
// A kernel that writes an array it also reads at other rows (an in-place
// stencil) is no new problem: the original already runs its rows in
// parallel threads in no particular order, and running some of them one
// after another in one thread is one of the orders it could already take.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Analysis/RowMapping.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/SourceEdits.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// `a < b` for the condition `a >= b`, `!(c)` for other conditions; the
/// text joins an `&&` chain without parentheses.
static std::string negatedText(const ASTContext &Ctx, const Expr *E) {
  if (const auto *BO = dyn_cast<BinaryOperator>(E->IgnoreParenImpCasts());
      BO && BO->isComparisonOp() && !inMacro(BO->getOperatorLoc()))
    return sourceText(Ctx, BO->getLHS()->getSourceRange()) + " " +
           BinaryOperator::getOpcodeStr(
               BinaryOperator::negateComparisonOp(BO->getOpcode()))
               .str() +
           " " + sourceText(Ctx, BO->getRHS()->getSourceRange());
  return "!" + parenthesizedText(Ctx, E);
}

/// The axis the threads are coarsened along.
enum class Axis { X, Y };

/// The kernel's thread mapping (x) or row mapping (y) and the factor.
struct CoarsenPlan : TransformPlan {
  Axis Along = Axis::X;
  ThreadMapping M;
  RowMapping Rows;
  int64_t Factor = 2;
};

class Coarsen : public TransformWithPlan<CoarsenPlan> {
public:
  StringRef getName() const override { return "coarsen"; }
  bool changesLaunchConfig(const ParamValues &) const override { return true; }
  StringRef getSummary() const override {
    return "make each thread compute several elements (block-cyclic along x, "
           "or consecutive rows with axis=y; keeps coalescing)";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"factor", 2, 2, 16, "elements per thread", /*PowerOfTwo=*/true},
        {"axis", 0, 0, 0,
         "x (default): elements a block apart, 1-D kernels; y: consecutive "
         "rows, 2-D kernels",
         /*PowerOfTwo=*/false, /*TuneValues=*/{}, /*IsText=*/true},
    };
    return Specs;
  }

  Expected<CoarsenPlan> makePlan(const KernelTarget &T,
                                 const ParamValues &P) const override {
    std::string AxisText = P.getText("axis");
    CoarsenPlan Plan;
    Plan.Factor = P.get("factor");
    if (AxisText.empty() || AxisText == "x") {
      Expected<ThreadMapping> M =
          analyzeLoopableMapping(T.Ctx, T.Kernel, "coarsen");
      if (!M)
        return M.takeError();
      Plan.M = std::move(*M);
      return Plan;
    }
    if (AxisText != "y")
      return refuse("parameter 'axis' of pass 'coarsen' must be x or y, got '" +
                    AxisText + "'");
    Expected<RowMapping> Rows = analyzeRowMapping(T.Ctx, T.Kernel, "coarsen");
    if (!Rows)
      return Rows.takeError();
    Plan.Along = Axis::Y;
    Plan.Rows = std::move(*Rows);
    return Plan;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const CoarsenPlan &Plan) const override {
    return Plan.Along == Axis::X ? applyX(T, Plan) : applyY(T, Plan);
  }

private:
  Expected<tooling::Replacements> applyX(const KernelTarget &T,
                                         const CoarsenPlan &Plan) const {
    const ThreadMapping &M = Plan.M;
    int64_t F = Plan.Factor;
    const MappedIndex &I = M.x();
    std::string Type = indexTypeText(T.Ctx, I.Var);
    std::string Counter = freshName(T.Kernel.Decl, "c");
    std::string Block = isWideIndex(T.Ctx, I.Var)
                            ? "static_cast<" + Type + ">(blockIdx.x)"
                            : std::string("blockIdx.x");
    std::string Decl = (I.Var->getType().isConstQualified() ? "const " : "") +
                       Type + " " + I.Var->getNameAsString() + " = (" + Block +
                       " * " + std::to_string(F) + " + " + Counter +
                       ") * blockDim.x + threadIdx.x;\n";

    // The guard and the work move into the loop; their returns become
    // continues (the guard's own `return;` included).
    std::vector<std::pair<SourceRange, std::string>> Edits;
    if (Error E = guardReturnsToContinue(T.Ctx, M, Edits))
      return std::move(E);
    SourceRange Work(M.Guard->getBeginLoc(), M.Region.getEnd());
    Expected<std::string> WorkText = textWithEdits(T.Ctx, Work, Edits);
    if (!WorkText)
      return WorkText.takeError();

    std::string Loop = "for (int " + Counter + " = 0; " + Counter + " < " +
                       std::to_string(F) + "; ++" + Counter + ") {\n" + Decl +
                       *WorkText + "\n}";
    const SourceManager &SM = T.getSourceManager();
    tooling::Replacements R;
    if (Error E = R.add(
            tooling::Replacement(SM, CharSourceRange::getTokenRange(M.Region),
                                 Loop, T.Ctx.getLangOpts())))
      return std::move(E);
    for (const LaunchSite &L : T.Kernel.Launches)
      if (Error E = rewriteGridX(
              T.Ctx, L, [&](StringRef G) { return ceilDivText(G, F); }, R))
        return std::move(E);
    return R;
  }

  Expected<tooling::Replacements> applyY(const KernelTarget &T,
                                         const CoarsenPlan &Plan) const {
    const RowMapping &M = Plan.Rows;
    const ASTContext &Ctx = T.Ctx;
    const SourceManager &SM = T.getSourceManager();
    std::string F = std::to_string(Plan.Factor);
    const VarDecl *Y = M.Y.Var;
    std::string YName = Y->getNameAsString();
    std::string Type = indexTypeText(Ctx, Y);
    std::string Counter = freshName(T.Kernel.Decl, "c");
    std::string First = freshName(T.Kernel.Decl, YName + "0", {Counter});
    std::string Block = isWideIndex(Ctx, Y)
                            ? "static_cast<" + Type + ">(blockIdx.y)"
                            : std::string("blockIdx.y");
    std::string FirstDecl = "const " + Type + " " + First + " = (" + Block +
                            " * blockDim.y + threadIdx.y) * " + F + ";\n";
    std::string LoopHead = "#pragma unroll\nfor (int " + Counter + " = 0; " +
                           Counter + " < " + F + "; ++" + Counter + ") {\n" +
                           (Y->getType().isConstQualified() ? "const " : "") +
                           Type + " " + YName + " = " + First + " + " +
                           Counter + ";\n";

    // What follows the row index moves into the loops; the guard's and the
    // work's returns become continues.
    std::vector<std::pair<SourceRange, std::string>> Edits;
    std::vector<const Stmt *> Moved{M.Guard};
    if (M.EarlyReturn)
      Moved.insert(Moved.end(), M.Body.begin(), M.Body.end());
    if (Error E = returnsToContinue(Ctx, Moved, Edits))
      return std::move(E);
    auto Text = [&](SourceRange R) {
      std::vector<std::pair<SourceRange, std::string>> Inside;
      for (const auto &Edit : Edits)
        if (!SM.isBeforeInTranslationUnit(Edit.first.getBegin(),
                                          R.getBegin()) &&
            !SM.isBeforeInTranslationUnit(R.getEnd(), Edit.first.getBegin()))
          Inside.push_back(Edit);
      return textWithEdits(Ctx, R, Inside);
    };

    // The declarations between the row index and the guard: computed once
    // before the rows when they are the same for all, else in each row.
    std::string Hoisted, PerRow;
    for (unsigned I = 0; I < M.Between.size(); ++I) {
      Expected<std::string> DeclText = Text(
          SourceRange(M.Between[I]->getBeginLoc(), stmtEnd(Ctx, M.Between[I])));
      if (!DeclText)
        return DeclText.takeError();
      (M.BetweenInvariant[I] ? Hoisted : PerRow) += *DeclText + "\n";
    }

    // The general loop: every row tests the whole guard.
    Expected<std::string> GuardText =
        Text(SourceRange(M.Guard->getBeginLoc(), M.Region.getEnd()));
    if (!GuardText)
      return GuardText.takeError();
    std::string Guarded = LoopHead + PerRow + *GuardText + "\n}";

    // The loop for a thread whose rows all lie below the bound and pass the
    // guard's row-invariant conditions: its rows test only what is left, so
    // their loads sit in one block and nvcc can share them between rows.
    // (A guard's conditions are operands of one `&&` or `||` chain, so their
    // text joins back with the same operator without parentheses.)
    std::string Check = First + " + " + std::to_string(Plan.Factor - 1) +
                        " < " + parenthesizedText(Ctx, M.Y.Bound);
    std::vector<std::string> Left;
    for (unsigned I = 0; I < M.Leaves.size(); ++I) {
      if (I == M.RowLeaf)
        continue;
      std::string Leaf = sourceText(Ctx, M.Leaves[I]->getSourceRange());
      if (!M.RowInvariant[I])
        Left.push_back(Leaf);
      else
        Check +=
            " && " + (M.EarlyReturn ? negatedText(Ctx, M.Leaves[I]) : Leaf);
    }
    std::string Fast = LoopHead + PerRow;
    if (M.EarlyReturn) {
      if (!Left.empty())
        Fast += "if (" + join(Left, " || ") + ")\ncontinue;\n";
      Expected<std::string> BodyText = Text(SourceRange(
          M.Body.front()->getBeginLoc(), stmtEnd(Ctx, M.Body.back())));
      if (!BodyText)
        return BodyText.takeError();
      Fast += *BodyText;
    } else {
      // The guard's block opens into the loop's when nothing is left to test.
      const Stmt *Then = M.Guard->getThen();
      SourceRange Work(Then->getBeginLoc(), stmtEnd(Ctx, Then));
      const auto *Block = dyn_cast<CompoundStmt>(Then);
      if (Left.empty() && Block && !Block->body_empty())
        Work = SourceRange(Block->body_front()->getBeginLoc(),
                           stmtEnd(Ctx, Block->body_back()));
      else if (!Left.empty())
        Fast += "if (" + join(Left, " && ") + ")\n";
      Expected<std::string> WorkText = Text(Work);
      if (!WorkText)
        return WorkText.takeError();
      Fast += *WorkText;
    }
    Fast += "\n}";

    std::string NewText = FirstDecl + Hoisted + "if (" + Check + ") {\n" +
                          Fast + "\n} else {\n" + Guarded + "\n}";
    tooling::Replacements R;
    if (Error E = R.add(
            tooling::Replacement(SM, CharSourceRange::getTokenRange(M.Region),
                                 NewText, Ctx.getLangOpts())))
      return std::move(E);
    for (const LaunchSite &L : T.Kernel.Launches)
      if (Error E = rewriteGridY(
              Ctx, L, [&](StringRef G) { return ceilDivText(G, Plan.Factor); },
              R))
        return std::move(E);
    return R;
  }
};

} // namespace

std::unique_ptr<Transform> createCoarsenTransform() {
  return std::make_unique<Coarsen>();
}
} // namespace cuda_opt
