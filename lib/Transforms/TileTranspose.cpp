//===- TileTranspose.cpp - Coalesce a transpose through shared memory -----===//
//
// Part of cuda-opt.
//
// tile-transpose{tile=T,pad=P,rows=R} rewrites a 2-D one-element-per-thread
// kernel whose store is contiguous in one mapped index and whose loads are
// contiguous in the other (TileTransposeMatch proves which, and that each
// (x, y) stores its own element), e.g. the naive transpose
//
//   int x = blockIdx.x * blockDim.x + threadIdx.x;
//   int y = blockIdx.y * blockDim.y + threadIdx.y;
//   if (x < w && y < h)
//     out[x * h + y] = in[y * w + x];
//
// into two phases over a T x T tile of (x, y) per block, launched with
// dim3(T, R) threads and a grid of T x T tiles:
//
//   __shared__ float tile[T][T + P];
//   for (int r = 0; r < T; r += R) {          // the loads, along x
//     int x = blockIdx.x * T + threadIdx.x;
//     int y = blockIdx.y * T + (threadIdx.y + r);
//     if (x < w && y < h)
//       tile[threadIdx.y + r][threadIdx.x] = in[y * w + x];
//   }
//   __syncthreads();
//   for (int r = 0; r < T; r += R) {          // the store, along y
//     int x = blockIdx.x * T + (threadIdx.y + r);
//     int y = blockIdx.y * T + threadIdx.x;
//     if (x < w && y < h)
//       out[x * h + y] = tile[threadIdx.x][threadIdx.y + r];
//   }
//
// Every element's value is computed by the same expression as before (in the
// first phase) and stored unchanged (in the second), so the outputs are
// bitwise equal; P = 1 pads the tile against shared-memory bank conflicts.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Analysis/TileTransposeMatch.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/BlockShape.h"
#include "cuda-opt/Transforms/Utils/SourceEdits.h"

#include "clang/AST/Attr.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// The proven kernel shape, its launches and the tile shape.
struct TileTransposePlan : TransformPlan {
  TileTransposeMatch Match;
  SmallVector<LaunchShape, 4> Shapes;
  int64_t Tile = 32, Pad = 1, Rows = 8;
};

/// The largest static __shared__ array a kernel may declare.
constexpr uint64_t MaxStaticShared = 48 * 1024;

class TileTranspose : public TransformWithPlan<TileTransposePlan> {
public:
  StringRef getName() const override { return "tile-transpose"; }
  bool changesLaunchConfig(const ParamValues &) const override { return true; }
  StringRef getSummary() const override {
    return "stage a 2-D kernel whose store and loads are contiguous in "
           "different dimensions (a transpose) through a shared-memory tile, "
           "so that both are coalesced";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"tile", 32, 16, 64, "tile edge in elements (one block per tile)",
         /*PowerOfTwo=*/true, {32, 64, 16}},
        {"pad", 1, 0, 1,
         "extra columns of the shared tile against bank conflicts",
         false, {1, 0}},
        {"rows", 8, 1, 64,
         "threads per block in y; each thread moves tile/rows rows",
         /*PowerOfTwo=*/true, {8}},
    };
    return Specs;
  }

  Expected<TileTransposePlan> makePlan(const KernelTarget &T,
                                       const ParamValues &P) const override {
    const KernelInfo &K = T.Kernel;
    int64_t Tile = P.get("tile"), Pad = P.get("pad"), Rows = P.get("rows");
    if (Rows > Tile)
      return refuse("rows=" + Twine(Rows) + " exceeds tile=" + Twine(Tile) +
                    "; a block has at most one thread per row of its tile");
    if (Error E = checkNewBlockShape(T, Tile, Rows))
      return std::move(E);

    Expected<TileTransposeMatch> Match = matchTileTranspose(T.Ctx, K);
    if (!Match)
      return Match.takeError();
    QualType Element = Match->Element;
    if (!Element->isDependentType() && !Element->isIncompleteType()) {
      uint64_t Bytes = T.Ctx.getTypeSizeInChars(Element).getQuantity() *
                       Tile * (Tile + Pad);
      if (Bytes > MaxStaticShared)
        return refuse("a " + Twine(Tile) + "x" + Twine(Tile + Pad) +
                      " tile of '" + Element.getAsString() + "' takes " +
                      Twine(Bytes) +
                      " bytes, over the 48 KiB of static shared memory a "
                      "block may declare; use a smaller tile");
    }
    Expected<SmallVector<LaunchShape, 4>> Shapes =
        analyzeLaunches(T.Ctx, K, Match->M);
    if (!Shapes)
      return Shapes.takeError();

    TileTransposePlan Plan;
    Plan.Match = std::move(*Match);
    Plan.Shapes = std::move(*Shapes);
    Plan.Tile = Tile;
    Plan.Pad = Pad;
    Plan.Rows = Rows;
    std::string Proof = Plan.Match.StoreFact;
    for (const std::string &F : Plan.Match.LoadFacts)
      Proof += "; " + F;
    Plan.Notes.push_back("tile-transpose: kernel '" + K.name() + "': " +
                         Proof);
    if (Element->isDependentType())
      Plan.Notes.push_back("tile-transpose: kernel '" + K.name() +
                           "': the tile's element type depends on a template "
                           "parameter; its size (tile " +
                           std::to_string(Tile) + "x" +
                           std::to_string(Tile + Pad) +
                           ") is checked by the compiler only");
    return Plan;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T,
            const TileTransposePlan &Plan) const override {
    const TileTransposeMatch &Match = Plan.Match;
    const ThreadMapping &M = Match.M;
    const ASTContext &Ctx = T.Ctx;
    const FunctionDecl *Kernel = T.Kernel.Decl;
    std::string TileN = std::to_string(Plan.Tile);
    std::string RowsN = std::to_string(Plan.Rows);
    std::string TileName = freshName(Kernel, "tile");
    std::string R = freshName(Kernel, "r", {TileName});
    std::string Row = "threadIdx.y + " + R;

    PrintingPolicy PP = Ctx.getPrintingPolicy();
    PP.SuppressTagKeyword = true;
    std::string ElementText = Match.Element.getAsString(PP);

    // In a phase with threadIdx.x along dimension Along, the index of
    // dimension D and this thread's element of the tile (tile[y][x]).
    auto IndexDecl = [&](unsigned D, unsigned Along) {
      const VarDecl *V = M.Dims[D].Var;
      std::string Type = indexTypeText(Ctx, V);
      std::string Block = std::string("blockIdx.") + (D == 0 ? "x" : "y");
      if (isWideIndex(Ctx, V))
        Block = "static_cast<" + Type + ">(" + Block + ")";
      std::string Local = D == Along ? std::string("threadIdx.x")
                                     : "(" + Row + ")";
      return (V->getType().isConstQualified() ? "const " : "") + Type + " " +
             V->getNameAsString() + " = " + Block + " * " + TileN + " + " +
             Local + ";\n";
    };
    auto TileRef = [&](unsigned Along) {
      return Along == 0 ? TileName + "[" + Row + "][threadIdx.x]"
                        : TileName + "[threadIdx.x][" + Row + "]";
    };
    auto PhaseLoop = [&](unsigned Along, StringRef Comment,
                         StringRef Work) {
      return "// " + Comment.str() + "\nfor (int " + R + " = 0; " + R +
             " < " + TileN + "; " + R + " += " + RowsN + ") {\n" +
             IndexDecl(0, Along) + IndexDecl(1, Along) + Work.str() + "\n}\n";
    };
    unsigned LoadAxis = Match.loadAxis(), StoreAxis = Match.StoreAxis;

    // Phase 1: the guard and the work as written, the store going to the
    // tile; an early-return guard's return becomes continue.
    std::vector<std::pair<SourceRange, std::string>> Edits;
    if (M.EarlyReturn)
      if (Error E = returnsToContinue(Ctx, {M.Guard}, Edits))
        return std::move(E);
    std::vector<std::pair<SourceRange, std::string>> GuardEdits = Edits;
    Edits.emplace_back(Match.StoreLHS->getSourceRange(), TileRef(LoadAxis));
    Expected<std::string> LoadWork = textWithEdits(
        Ctx, SourceRange(M.Guard->getBeginLoc(), M.Region.getEnd()), Edits);
    if (!LoadWork)
      return LoadWork.takeError();

    // Phase 2: the same guard, then the store of the tile's element.
    Expected<std::string> Store = textWithEdits(
        Ctx,
        SourceRange(Match.StoreStmt->getBeginLoc(),
                    stmtEnd(Ctx, Match.StoreStmt)),
        {{Match.StoreValue->getSourceRange(), TileRef(StoreAxis)}});
    if (!Store)
      return Store.takeError();
    std::string StoreWork;
    if (M.EarlyReturn) {
      Expected<std::string> Guard = textWithEdits(
          Ctx,
          SourceRange(M.Guard->getBeginLoc(), stmtEnd(Ctx, M.Guard)),
          GuardEdits);
      if (!Guard)
        return Guard.takeError();
      StoreWork = *Guard + "\n" + *Store;
    } else {
      StoreWork = "if (" +
                  sourceText(Ctx, M.Guard->getCond()->getSourceRange()) +
                  ")\n" + *Store;
    }

    std::string Axis[2] = {M.Dims[0].Var->getNameAsString(),
                           M.Dims[1].Var->getNameAsString()};
    std::string Text =
        "// tile-transpose: each block stages a " + TileN + "x" + TileN +
        " tile of (" + Axis[0] + ", " + Axis[1] + ") in shared memory, so that the loads (threadIdx.x along " +
        Axis[LoadAxis] + ") and the store (threadIdx.x along " +
        Axis[StoreAxis] + ") are both coalesced. Launched with dim3(" + TileN +
        ", " + RowsN + ") threads; each thread handles " +
        std::to_string(Plan.Tile / Plan.Rows) + " rows of the tile.\n" +
        "__shared__ " + ElementText + " " + TileName + "[" + TileN + "][" +
        TileN + (Plan.Pad ? " + " + std::to_string(Plan.Pad) : "") + "];\n" +
        PhaseLoop(LoadAxis,
                  "Compute each element with threadIdx.x along " +
                      Axis[LoadAxis] + ".",
                  *LoadWork) +
        "__syncthreads();\n" +
        PhaseLoop(StoreAxis,
                  "Store each element with threadIdx.x along " +
                      Axis[StoreAxis] + ".",
                  StoreWork);

    const SourceManager &SM = T.getSourceManager();
    tooling::Replacements Out;
    if (Error E = Out.add(
            tooling::Replacement(SM, CharSourceRange::getTokenRange(M.Region),
                                 Text, Ctx.getLangOpts())))
      return std::move(E);

    // The grid in tiles, the block of tile x rows threads.
    for (const LaunchShape &S : Plan.Shapes) {
      std::string Grid = "dim3(", Block = "dim3(" + TileN + ", " + RowsN + ")";
      for (unsigned D = 0; D < 2; ++D)
        Grid += (D ? ", " : "") +
                ceilDivText(sourceText(Ctx, S.Work[D]->getSourceRange()),
                            Plan.Tile);
      Grid += ")";
      for (auto [Arg, New] : {std::pair(launchGridExpr(*S.Site), Grid),
                              std::pair(launchBlockExpr(*S.Site), Block)})
        if (Error E = Out.add(tooling::Replacement(
                SM, CharSourceRange::getTokenRange(Arg->getSourceRange()), New,
                Ctx.getLangOpts())))
          return std::move(E);
    }
    return Out;
  }
};

} // namespace

std::unique_ptr<Transform> createTileTransposeTransform() {
  return std::make_unique<TileTranspose>();
}
} // namespace cuda_opt
