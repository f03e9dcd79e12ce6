//===- BlockSize.cpp - Change the block size of a kernel's launches -------===//
//
// Part of cuda-opt.
//
// block-size{x,y} rewrites every launch of a one-element-per-thread kernel to
// blocks of x (by y, for a 2-D kernel) threads and recomputes the grid from
// the work size, so that
//
//   k<<<(n + 255) / 256, 256>>>(..., n)   becomes   k<<<(n + 127) / 128, 128>>>
//
// Only the launches change. That is correct when the kernel's work per
// element depends on nothing but its global index (computed from blockDim,
// never from a hard-coded block size) and each launch's grid is the usual
// ceil-div of the kernel's bound, so the work size can be recovered.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Transforms/Utils/SourceEdits.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/BlockShape.h"

#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// Integer literals in a kernel that equal one of the old block sizes.
class LiteralFinder : public RecursiveASTVisitor<LiteralFinder> {
public:
  explicit LiteralFinder(ArrayRef<int64_t> Sizes) : Sizes(Sizes) {}
  bool VisitIntegerLiteral(IntegerLiteral *IL) {
    if (Found)
      return true;
    if (is_contained(Sizes, IL->getValue().getLimitedValue()))
      Found = IL;
    return true;
  }
  ArrayRef<int64_t> Sizes;
  const IntegerLiteral *Found = nullptr;
};

/// The launches to rewrite and the new block shape.
struct BlockSizePlan : TransformPlan {
  SmallVector<LaunchShape, 4> Shapes;
  int64_t Size[2] = {1, 1}; ///< x, y
};

class BlockSize : public TransformWithPlan<BlockSizePlan> {
public:
  StringRef getName() const override { return "block-size"; }
  bool changesLaunchConfig(const ParamValues &) const override { return true; }
  StringRef getSummary() const override {
    return "launch a kernel with blocks of x (by y) threads, recomputing the "
           "grid from the work size";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"x", 256, 32, 1024, "threads per block in x", false,
         {32, 64, 128, 256, 512, 1024}},
        {"y", 1, 1, 1024, "threads per block in y (2-D kernels only)", false,
         {1, 2, 4, 8, 16, 32}},
    };
    return Specs;
  }

  /// The block sizes the launches use now, per dimension and in total, when
  /// they are constants.
  static SmallVector<int64_t, 4> oldBlockSizes(const KernelTarget &T) {
    SmallVector<int64_t, 4> Sizes;
    for (const LaunchSite &L : T.Kernel.Launches) {
      if (std::optional<int64_t> N = threadsPerBlock(L, T.Ctx))
        Sizes.push_back(*N);
      if (const Expr *B = launchBlockExpr(L))
        if (std::optional<Dim3> D = evaluateDim3(B, T.Ctx))
          for (int64_t V : *D)
            if (V > 1)
              Sizes.push_back(V);
    }
    return Sizes;
  }

  Expected<BlockSizePlan> makePlan(const KernelTarget &T,
                                   const ParamValues &P) const override {
    const KernelInfo &K = T.Kernel;
    int64_t X = P.get("x"), Y = P.get("y");
    if (Error E = checkNewBlockShape(T, X, Y))
      return std::move(E);

    // Block-size dependences that the thread-mapping check would only report
    // vaguely: shared arrays and literals sized like the current block.
    SmallVector<int64_t, 4> Old = oldBlockSizes(T);
    if (!Old.empty()) {
      const Stmt *Body = K.Decl->getBody();
      class SharedFinder : public RecursiveASTVisitor<SharedFinder> {
      public:
        bool VisitVarDecl(VarDecl *VD) {
          if (!Found && VD->hasAttr<CUDASharedAttr>())
            Found = VD;
          return true;
        }
        const VarDecl *Found = nullptr;
      } Shared;
      Shared.TraverseStmt(const_cast<Stmt *>(Body));
      if (Shared.Found)
        if (const auto *AT =
                T.Ctx.getAsConstantArrayType(Shared.Found->getType()))
          if (is_contained(Old, (int64_t)AT->getSize().getLimitedValue()))
            return refuse("kernel '" + K.name() + "' sizes __shared__ array '" +
                          Shared.Found->getNameAsString() +
                          "' by the current block size " +
                          Twine(AT->getSize().getLimitedValue()));
      LiteralFinder Lits(Old);
      Lits.TraverseStmt(const_cast<Stmt *>(Body));
      if (Lits.Found)
        return refuse(
            "kernel '" + K.name() + "' uses the literal " +
            Twine(Lits.Found->getValue().getLimitedValue()) +
            ", the current block size, at " +
            describeLocation(T.getSourceManager(), Lits.Found->getBeginLoc()) +
            "; its index math may hard-code the block size");
    }

    Expected<ThreadMapping> M = analyzeThreadMapping(T.Ctx, K);
    if (!M)
      return M.takeError();
    if (M->rank() == 1 && Y != 1)
      return refuse("kernel '" + K.name() + "' maps threads in 1-D; y=" +
                    Twine(Y) + " would only repeat the work (use y=1)");
    Expected<SmallVector<LaunchShape, 4>> Shapes =
        analyzeLaunches(T.Ctx, K, *M);
    if (!Shapes)
      return Shapes.takeError();
    BlockSizePlan Plan;
    Plan.Shapes = std::move(*Shapes);
    Plan.Size[0] = X;
    Plan.Size[1] = Y;
    return Plan;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const BlockSizePlan &Plan) const override {
    const int64_t *Size = Plan.Size;
    const SourceManager &SM = T.getSourceManager();
    tooling::Replacements R;
    for (const LaunchShape &S : Plan.Shapes) {
      std::string Grid, Block;
      for (unsigned D = 0; D < S.Work.size(); ++D) {
        std::string Work = sourceText(T.Ctx, S.Work[D]->getSourceRange());
        Grid += (D ? ", " : "") + ceilDivText(Work, Size[D]);
        Block += (D ? ", " : "") + std::to_string(Size[D]);
      }
      if (S.Work.size() > 1) {
        Grid = "dim3(" + Grid + ")";
        Block = "dim3(" + Block + ")";
      }
      for (auto [Arg, Text] : {std::pair(launchGridExpr(*S.Site), Grid),
                               std::pair(launchBlockExpr(*S.Site), Block)})
        if (Error E = R.add(tooling::Replacement(
                SM, CharSourceRange::getTokenRange(Arg->getSourceRange()), Text,
                T.Ctx.getLangOpts())))
          return std::move(E);
    }
    return R;
  }
};

} // namespace

std::unique_ptr<Transform> createBlockSizeTransform() {
  return std::make_unique<BlockSize>();
}
} // namespace cuda_opt
