//===- GridStride.cpp - Turn a one-element-per-thread kernel into a loop --===//
//
// Part of cuda-opt.
//
// grid-stride{blocks-per-sm} rewrites
//
//   int i = blockIdx.x * blockDim.x + threadIdx.x;
//   if (i < n) { body }
//
// into the grid-stride loop
//
//   for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
//        i += blockDim.x * gridDim.x) { body }
//
// so that any grid computes every element. With blocks-per-sm=k > 0 each
// launch's grid is also capped at run time at k blocks per multiprocessor,
// through a small helper emitted once before the first function that
// launches a kernel. The loop visits exactly the elements the guard let
// through, so the transform is legal whenever the grid of every launch is
// known to cover the work and the per-element work depends only on i.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Transforms/Utils/SourceEdits.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RawCommentList.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

constexpr llvm::StringLiteral HelperName = "cudaOptGridStrideBlocks";

/// The kernel's thread mapping and the grid cap.
struct GridStridePlan : TransformPlan {
  ThreadMapping M;
  int64_t BlocksPerSM = 0;
};

class GridStride : public TransformWithPlan<GridStridePlan> {
public:
  StringRef getName() const override { return "grid-stride"; }
  bool changesLaunchConfig(const ParamValues &P) const override {
    return P.get("blocks-per-sm") > 0;
  }
  StringRef getSummary() const override {
    return "turn a one-element-per-thread kernel into a grid-stride loop";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"blocks-per-sm", 0, 0, 64,
         "cap each launch's grid at this many blocks per multiprocessor; 0 = "
         "keep the launch grids",
         false,
         {0, 2, 4, 8, 16, 32}},
    };
    return Specs;
  }

  Expected<GridStridePlan> makePlan(const KernelTarget &T,
                                    const ParamValues &P) const override {
    Expected<ThreadMapping> M =
        analyzeLoopableMapping(T.Ctx, T.Kernel, "grid-stride");
    if (!M)
      return M.takeError();
    GridStridePlan Plan;
    Plan.M = std::move(*M);
    Plan.BlocksPerSM = P.get("blocks-per-sm");
    return Plan;
  }

  /// The loop that replaces the index declaration, guard and body.
  Expected<std::string> loopText(const KernelTarget &T,
                                 const ThreadMapping &M) const {
    const MappedIndex &I = M.x();
    std::string Name = I.Var->getNameAsString();
    std::string Type = indexTypeText(T.Ctx, I.Var);
    std::string Stride = "blockDim.x * gridDim.x";
    if (isWideIndex(T.Ctx, I.Var))
      Stride = "static_cast<" + Type + ">(blockDim.x) * gridDim.x";
    std::string Cond =
        M.EarlyReturn ? Name + (I.Inclusive ? " <= " : " < ") +
                            parenthesizedText(T.Ctx, I.Bound)
                      : sourceText(T.Ctx, M.Guard->getCond()->getSourceRange());
    std::string Head = "for (" + Type + " " + Name + " = " +
                       sourceText(T.Ctx, I.Var->getInit()->getSourceRange()) +
                       "; " + Cond + "; " + Name + " += " + Stride + ") ";

    std::vector<std::pair<SourceRange, std::string>> Edits;
    if (Error E = returnsToContinue(T.Ctx, M.Body, Edits))
      return std::move(E);
    Expected<std::string> Body =
        textWithEdits(T.Ctx, bodyRange(T.Ctx, M), Edits);
    if (!Body)
      return Body.takeError();
    bool Braced = !M.EarlyReturn && isa<CompoundStmt>(M.Body.front());
    if (Braced)
      return Head + *Body;
    return Head + "{\n" + *Body + "\n}";
  }

  /// The top-level declaration that holds the first launch in the file:
  /// where the grid helper goes, with its leading comment.
  SourceLocation helperLocation(const KernelTarget &T) const {
    const SourceManager &SM = T.getSourceManager();
    std::vector<SourceLocation> Launches;
    for (const KernelInfo &K : findKernels(T.Ctx))
      for (const LaunchSite &L : K.Launches)
        Launches.push_back(SM.getExpansionLoc(L.Call->getBeginLoc()));
    for (const Decl *D : T.Ctx.getTranslationUnitDecl()->decls()) {
      SourceLocation B = SM.getExpansionLoc(D->getBeginLoc());
      SourceLocation E = SM.getExpansionLoc(D->getEndLoc());
      if (!SM.isWrittenInMainFile(B))
        continue;
      for (SourceLocation L : Launches) {
        if (SM.isBeforeInTranslationUnit(L, B) ||
            SM.isBeforeInTranslationUnit(E, L))
          continue;
        return insertionPointBefore(T.Ctx, D);
      }
    }
    return SourceLocation();
  }

  bool helperExists(const KernelTarget &T) const {
    for (const Decl *D : T.Ctx.getTranslationUnitDecl()->decls())
      if (const auto *FD = dyn_cast<FunctionDecl>(D))
        if (FD->getDeclName().isIdentifier() && FD->getName() == HelperName)
          return true;
    return false;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const GridStridePlan &Plan) const override {
    const SourceManager &SM = T.getSourceManager();
    const LangOptions &LO = T.Ctx.getLangOpts();
    tooling::Replacements R;
    Expected<std::string> Loop = loopText(T, Plan.M);
    if (!Loop)
      return Loop.takeError();
    if (Error E = R.add(tooling::Replacement(
            SM, CharSourceRange::getTokenRange(Plan.M.Region), *Loop, LO)))
      return std::move(E);

    int64_t PerSM = Plan.BlocksPerSM;
    if (PerSM == 0)
      return R;
    for (const LaunchSite &L : T.Kernel.Launches) {
      auto Wrap = [&](StringRef G) {
        return (HelperName + "(" + G + ", " + Twine(PerSM) + ")").str();
      };
      if (Error E = rewriteGridX(T.Ctx, L, Wrap, R))
        return std::move(E);
    }
    if (helperExists(T))
      return R;
    SourceLocation At = helperLocation(T);
    if (At.isInvalid())
      return refuse("internal error: no place found for the grid helper");
    std::string Helper =
        "/// Added by cuda-opt grid-stride: a grid of at most BlocksPerSM "
        "blocks per\n/// multiprocessor of the current device, and never "
        "more than Blocks.\nstatic unsigned " +
        HelperName.str() +
        "(unsigned Blocks, unsigned BlocksPerSM) {\n"
        "  int Device = 0, SMs = 0;\n"
        "  if (cudaGetDevice(&Device) != cudaSuccess ||\n"
        "      cudaDeviceGetAttribute(&SMs, cudaDevAttrMultiProcessorCount,\n"
        "                             Device) != cudaSuccess ||\n"
        "      SMs <= 0)\n"
        "    return Blocks;\n"
        "  unsigned Limit = BlocksPerSM * static_cast<unsigned>(SMs);\n"
        "  return Blocks < Limit ? Blocks : Limit;\n"
        "}\n\n";
    if (Error E = R.add(tooling::Replacement(SM, At, 0, Helper)))
      return std::move(E);
    return R;
  }
};

} // namespace

std::unique_ptr<Transform> createGridStrideTransform() {
  return std::make_unique<GridStride>();
}
} // namespace cuda_opt
