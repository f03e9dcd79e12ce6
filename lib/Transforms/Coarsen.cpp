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
//===----------------------------------------------------------------------===//
#include "cuda-opt/Transforms/Utils/SourceEdits.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// The kernel's thread mapping and the coarsening factor.
struct CoarsenPlan : TransformPlan {
  ThreadMapping M;
  int64_t Factor = 2;
};

class Coarsen : public TransformWithPlan<CoarsenPlan> {
public:
  StringRef getName() const override { return "coarsen"; }
  bool changesLaunchConfig(const ParamValues &) const override { return true; }
  StringRef getSummary() const override {
    return "make each thread compute several elements (block-cyclic, keeps "
           "coalescing)";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"factor", 2, 2, 16, "elements per thread", /*PowerOfTwo=*/true},
    };
    return Specs;
  }

  Expected<CoarsenPlan> makePlan(const KernelTarget &T,
                                 const ParamValues &P) const override {
    Expected<ThreadMapping> M =
        analyzeLoopableMapping(T.Ctx, T.Kernel, "coarsen");
    if (!M)
      return M.takeError();
    CoarsenPlan Plan;
    Plan.M = std::move(*M);
    Plan.Factor = P.get("factor");
    return Plan;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const CoarsenPlan &Plan) const override {
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
};

} // namespace

std::unique_ptr<Transform> createCoarsenTransform() {
  return std::make_unique<Coarsen>();
}
} // namespace cuda_opt
