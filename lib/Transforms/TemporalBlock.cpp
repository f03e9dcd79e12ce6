//===- TemporalBlock.cpp - Several stencil sweeps per launch --------------===//
//
// Part of cuda-opt.
//
// temporal-block{sweeps=S,tile=TX,rows=TY,threads=N} rewrites a host time
// loop that launches one sweep of a 2-D stencil per iteration into
// ping-pong buffers,
//
//   for (int t = 0; t < 10; ++t) {
//     jacobi<<<grid, block>>>(next, cur, nx, ny);
//     CK(cudaGetLastError());
//     std::swap(cur, next);
//   }
//
// into a loop that launches a new kernel advancing S sweeps per launch:
//
//   for (int t = 0; t < 10; t += 2)       // (a remainder loop of the
//     jacobi_tb<<<...>>>(next, cur, ...)  //  original when S does not
//     ...                                 //  divide the trip count)
//
// Each block of the new kernel owns TX x TY cells. It loads the
// (TX + 2H) x (TY + 2H) tile around them (H = S * radius) into shared
// memory, runs sweep s on the cells at least s * radius inside the tile's
// edge (those whose neighbours the previous sweep computed), ping-ponging
// between two tiles, and stores its own cells from the last sweep. The
// cell update is the kernel's own code, with its reads of the input grid
// redirected to the tile and its store to the other tile: every cell is
// computed by the same operations on the same values as before.
//
// Legality: the kernel is one stencil sweep (Analysis/StencilSweep.h:
// constant-offset reads proven inside the grid, one store per cell); its
// launches cover the grid; the loop is `for (T v = A; v < B; ++v)` over
// exactly this launch, error checks and the swap of the two grids (v not
// used in it); the two grids (and any other pointer the launch passes) are
// each their own cudaMalloc allocation; the buffer the loop writes last
// (`next`) is dead after the loop, because with one swap per S sweeps it
// holds a different (older) grid than before.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/HostRegions.h"
#include "cuda-opt/Analysis/LaunchAliasing.h"
#include "cuda-opt/Analysis/LoopAnalysis.h"
#include "cuda-opt/Analysis/PointerUses.h"
#include "cuda-opt/Analysis/StencilSweep.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/TemporalBlockSchedule.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"
#include "cuda-opt/Transforms/Utils/SourceEdits.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/FormatVariadic.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// The largest static __shared__ memory a block may declare.
constexpr uint64_t MaxStaticShared = 48 * 1024;

struct TemporalBlockPlan : TransformPlan {
  const ForStmt *Loop = nullptr;
  std::string LoopText;   ///< Replaces the loop.
  std::string KernelText; ///< The new kernel's definition.
  SourceLocation InsertAfter;
};

const VarDecl *plainVar(const Expr *E) {
  if (const auto *DRE =
          dyn_cast<DeclRefExpr>(stripLaunchArgImplicit(E)->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

/// The cells per block along x: \p Tile, or for 0 the width that makes the
/// shared tile (with its halo \p Halo on both sides) a multiple of 32 cells
/// of at least 128, so the cell loops' warps run full.
int64_t tileWidth(int64_t Tile, int64_t Halo) {
  if (Tile > 0)
    return Tile;
  int64_t W = 128;
  while (W - 2 * Halo < 32)
    W += 32;
  return W - 2 * Halo;
}

/// " + 2", " - 1" or "" for an offset.
std::string offsetText(int64_t D) {
  if (!D)
    return "";
  return (D < 0 ? " - " : " + ") + std::to_string(D < 0 ? -D : D);
}

class TemporalBlock : public TransformWithPlan<TemporalBlockPlan> {
public:
  StringRef getName() const override { return "temporal-block"; }
  StringRef getSummary() const override {
    return "advance several sweeps of a stencil time loop per launch "
           "through shared-memory tiles with halos (host region rewrite)";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"sweeps", 4, 2, 16, "sweeps per launch", false, {2, 4, 6, 8}},
        {"tile", 64, 0, 256,
         "cells per block along x; 0 = 128 - 2 x halo, so that the shared "
         "tile is 128 cells (four warps' lanes) wide",
         false, {64, 0}},
        {"rows", 32, 4, 256, "cells per block along y", false, {32, 64}},
        {"threads", 256, 64, 1024, "threads per block", true, {256, 512}},
        {"walk", 1, 0, 1,
         "1: each thread walks a run of rows down one column, holding the "
         "column's reads in registers; 0: cells interleaved over the threads",
         false, {1, 0}},
    };
    return Specs;
  }
  bool changesLaunchConfig(const ParamValues &) const override { return true; }
  bool rewritesHostRegion() const override { return true; }
  /// Every cell is computed by the kernel's own operations on the same
  /// values, so the result keeps every bit.
  FpEffect fpEffect(const ParamValues &) const override {
    return FpEffect::Preserves;
  }

  Expected<TemporalBlockPlan> makePlan(const KernelTarget &T,
                                       const ParamValues &Params) const override {
    ASTContext &Ctx = T.Ctx;
    const KernelInfo &K = T.Kernel;
    Expected<StencilSweep> Sw = matchStencilSweep(Ctx, K);
    if (!Sw)
      return Sw.takeError();
    // The tile.
    int64_t S = Params.get("sweeps"), TY = Params.get("rows");
    int64_t H = S * Sw->Radius;
    int64_t TX = tileWidth(Params.get("tile"), H);
    uint64_t Elem = Ctx.getTypeSizeInChars(Sw->Element).getQuantity();
    uint64_t Bytes = 2 * (TX + 2 * H) * (TY + 2 * H) * Elem;
    if (Bytes > MaxStaticShared)
      return refuse(formatv("two {0} x {1} tiles of {2}-byte cells take {3} "
                            "bytes of shared memory, more than {4}; lower "
                            "sweeps, tile or rows",
                            TX + 2 * H, TY + 2 * H, Elem, Bytes,
                            MaxStaticShared)
                        .str());

    Expected<SmallVector<LaunchShape, 4>> Shapes =
        analyzeLaunches(Ctx, K, Sw->M);
    if (!Shapes)
      return Shapes.takeError();
    const ParmVarDecl *YBound = nullptr;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(
            Sw->M.Dims[1].Bound->IgnoreParenImpCasts()))
      YBound = dyn_cast<ParmVarDecl>(DRE->getDecl());
    if (!YBound)
      return refuse("kernel '" + K.name() + "''s y bound '" +
                    sourceText(Ctx, Sw->M.Dims[1].Bound->getSourceRange()) +
                    "' is not a parameter; temporal-block sizes its grid "
                    "from the launch's arguments");

    // The time loop around a launch of the kernel.
    std::vector<KernelInfo> Kernels = findKernels(Ctx);
    std::vector<HostRegion> Regions = findHostRegions(Ctx, Kernels);
    const HostRegion *R = nullptr;
    const RegionStep *Launch = nullptr;
    for (const HostRegion &Cand : Regions)
      for (const RegionStep &St : Cand.Steps)
        if (St.Kind == RegionStep::Launch &&
            Kernels[St.Kernel].Decl == K.Decl && Cand.TimeLoop) {
          R = &Cand;
          Launch = &St;
        }
    if (!R)
      return refuse("kernel '" + K.name() +
                    "' is not launched as the body of a counted host loop "
                    "(a time loop; cuda-opt --list-regions shows the "
                    "regions)");
    return planLoop(Ctx, K, *Sw, Regions, *R, *Launch, YBound, Params);
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const TemporalBlockPlan &P) const override {
    const SourceManager &SM = T.getSourceManager();
    tooling::Replacements Out;
    CharSourceRange Loop = CharSourceRange::getTokenRange(
        SM.getExpansionLoc(P.Loop->getBeginLoc()),
        SM.getExpansionLoc(P.Loop->getEndLoc()));
    if (Error E = Out.add(tooling::Replacement(SM, Loop, P.LoopText)))
      return std::move(E);
    if (Error E = Out.add(tooling::Replacement(SM, P.InsertAfter, 0,
                                               "\n\n" + P.KernelText)))
      return std::move(E);
    return Out;
  }

private:
  Expected<TemporalBlockPlan> planLoop(ASTContext &Ctx, const KernelInfo &K,
                                       const StencilSweep &Sw,
                                       ArrayRef<HostRegion> Regions,
                                       const HostRegion &R,
                                       const RegionStep &Launch,
                                       const ParmVarDecl *YBound,
                                       const ParamValues &Params) const {
    const SourceManager &SM = Ctx.getSourceManager();
    const CUDAKernelCallExpr *KC = nullptr;
    for (const LaunchSite &L : K.Launches)
      if (containsStmt(Launch.S, L.Call))
        KC = L.Call;
    if (!KC)
      return refuse("internal: the time loop's launch of '" + K.name() +
                    "' is not among its launch sites");
    std::string At = describeLocation(SM, R.TimeLoop->getBeginLoc());

    // The loop: this launch, checks and one swap of the two grids.
    unsigned Launches = 0, Swaps = 0;
    const RegionStep *Swap = nullptr;
    for (const RegionStep &St : R.Steps) {
      if (St.Kind == RegionStep::Launch)
        ++Launches;
      else if (St.Kind == RegionStep::Swap) {
        ++Swaps;
        Swap = &St;
      } else if (St.Kind != RegionStep::Check)
        return refuse("the time loop at " + At +
                      " also copies or sets memory; temporal-block needs a "
                      "loop of one launch, checks and one swap");
    }
    if (Launches != 1 || Swaps != 1)
      return refuse("the time loop at " + At + " has " +
                    std::to_string(Launches) + " launches and " +
                    std::to_string(Swaps) +
                    " swaps; temporal-block needs one launch of the sweep "
                    "and one swap of its two grids");
    if (SM.isBeforeInTranslationUnit(Swap->S->getBeginLoc(),
                                     Launch.S->getBeginLoc()))
      return refuse("the time loop at " + At +
                    " swaps the grids before the launch");
    const auto *Kernel = K.Decl;
    unsigned InIdx = Sw.In->getFunctionScopeIndex();
    unsigned OutIdx = Sw.Out->getFunctionScopeIndex();
    if (KC->getNumArgs() != Kernel->getNumParams())
      return refuse("the launch at " + At + " passes default arguments");
    const VarDecl *VIn = plainVar(KC->getArg(InIdx));
    const VarDecl *VOut = plainVar(KC->getArg(OutIdx));
    if (!VIn || !VOut || VIn == VOut)
      return refuse("the launch in the time loop at " + At +
                    " does not pass two different variables for '" +
                    Sw.In->getNameAsString() + "' and '" +
                    Sw.Out->getNameAsString() + "'");
    SmallVector<const VarDecl *, 2> Swapped;
    for (int B : Swap->Args)
      if (B >= 0)
        Swapped.push_back(R.Buffers[B].Var);
    if (Swapped.size() != 2 || !is_contained(Swapped, VIn) ||
        !is_contained(Swapped, VOut))
      return refuse("the time loop at " + At + " does not swap '" +
                    VIn->getNameAsString() + "' and '" +
                    VOut->getNameAsString() + "', the sweep's two grids");
    // Swapping the two grids keeps each its own allocation: every swap of
    // the pair in the host function's regions is not a reason to refuse.
    SmallVector<SourceRange, 4> PairSwaps;
    for (const HostRegion &Other : Regions)
      for (const RegionStep &St : Other.Steps) {
        if (St.Kind != RegionStep::Swap || Other.Host != R.Host)
          continue;
        SmallVector<const VarDecl *, 2> Vs;
        for (int B : St.Args)
          if (B >= 0)
            Vs.push_back(Other.Buffers[B].Var);
        if (Vs.size() == 2 && is_contained(Vs, VIn) && is_contained(Vs, VOut))
          PairSwaps.push_back(St.Span);
      }
    for (unsigned I = 0; I < KC->getNumArgs(); ++I) {
      const Expr *A = KC->getArg(I);
      if (A->HasSideEffects(Ctx))
        return refuse("the launch's argument '" +
                      sourceText(Ctx, A->getSourceRange()) +
                      "' has side effects");
      if (!Kernel->getParamDecl(I)->getType()->isPointerType())
        continue;
      const VarDecl *V = plainVar(A);
      if (!V)
        return refuse("the launch passes '" +
                      sourceText(Ctx, A->getSourceRange()) +
                      "', not a pointer variable, to '" +
                      Kernel->getParamDecl(I)->getNameAsString() + "'");
      if (std::optional<std::string> Why = notOwnAllocation(
              Ctx, V,
              V == VIn || V == VOut ? ArrayRef<SourceRange>(PairSwaps)
                                    : ArrayRef<SourceRange>()))
        return refuse(*Why + "; temporal-block reads one grid while it "
                             "writes the other and needs them apart");
      if (I != InIdx && I != OutIdx && (V == VIn || V == VOut))
        return refuse("the launch also passes the grid '" +
                      V->getNameAsString() + "' to '" +
                      Kernel->getParamDecl(I)->getNameAsString() + "'");
    }
    for (const RegionBuffer &B : R.Buffers)
      if (B.Var == VOut && B.LiveOut)
        return refuse("'" + VOut->getNameAsString() +
                      "' is used after the time loop at " + At +
                      "; with several sweeps per launch it would hold an "
                      "older sweep than now, so temporal-block needs it "
                      "dead after the loop (only freed)");
    const auto *Config = KC->getConfig();
    for (unsigned I = 2; I < Config->getNumArgs(); ++I)
      if (!isa<CXXDefaultArgExpr>(Config->getArg(I)))
        return refuse("the launch at " + At +
                      " passes shared memory or a stream; temporal-block "
                      "launches on the default stream");

    const std::string Form = "temporal-block needs the time loop written "
                             "'for (int t = A; t < B; ++t)'";
    if (!R.Counter || !R.Counter->getType()->isIntegerType())
      return refuse("the time loop at " + At +
                    " does not count one integer up by one; " + Form);
    if (R.Start->HasSideEffects(Ctx) || R.Bound->HasSideEffects(Ctx))
      return refuse("the loop's start or bound has side effects; " + Form);
    if (!referencesTo(R.Counter, R.TimeLoop->getBody()).empty())
      return refuse("the body of the time loop at " + At + " uses '" +
                    R.Counter->getNameAsString() +
                    "'; temporal-block launches several sweeps at once");
    if (!referencesTo(VIn, R.Bound).empty() ||
        !referencesTo(VOut, R.Bound).empty())
      return refuse("the time loop's bound names a grid");

    int64_t S = Params.get("sweeps"), TY = Params.get("rows"),
            Threads = Params.get("threads");
    int64_t H = S * Sw.Radius;
    int64_t TX = tileWidth(Params.get("tile"), H);
    TemporalBlockPlan P;
    P.Loop = R.TimeLoop;
    std::string Name = temporalBlockKernelName(Ctx, K);
    Expected<std::string> KText = kernelText(Ctx, K, Sw, Name, S, TX, TY,
                                             Threads, H,
                                             Params.get("walk") != 0);
    if (!KText)
      return KText.takeError();
    P.KernelText = *KText;
    P.InsertAfter = Lexer::getLocForEndOfToken(
        SM.getExpansionLoc(Kernel->getEndLoc()), 0, SM, Ctx.getLangOpts());

    // The host loop.
    std::string XArg = parenthesizedText(Ctx, KC->getArg(Sw.Pitch->getFunctionScopeIndex()));
    std::string YArg = parenthesizedText(Ctx, KC->getArg(YBound->getFunctionScopeIndex()));
    std::string NewLaunch = Name + "<<<dim3(" + ceilDivText(XArg, TX) + ", " +
                            ceilDivText(YArg, TY) + "), " +
                            std::to_string(Threads) + ">>>(";
    for (unsigned I = 0; I < KC->getNumArgs(); ++I)
      NewLaunch += (I ? ", " : "") +
                   sourceText(Ctx, KC->getArg(I)->getSourceRange());
    NewLaunch += ")";
    const Stmt *Body = R.TimeLoop->getBody();
    Expected<std::string> Blocked = textWithEdits(
        Ctx, Body->getSourceRange(), {{KC->getSourceRange(), NewLaunch}});
    if (!Blocked)
      return Blocked.takeError();
    std::string Original = sourceText(Ctx, Body->getSourceRange());
    std::string V = R.Counter->getNameAsString();
    std::string VT = typeText(Ctx, R.Counter->getType());
    std::string A = sourceText(Ctx, R.Start->getSourceRange());
    std::string B = sourceText(Ctx, R.Bound->getSourceRange());
    std::string SS = std::to_string(S);
    unsigned Col = SM.getExpansionColumnNumber(R.TimeLoop->getBeginLoc());
    std::string Pad(Col > 0 ? Col - 1 : 0, ' ');
    std::string Head = formatv("// cuda-opt temporal-block: {0} sweeps of "
                               "'{1}' per launch of '{2}'",
                               S, K.name(), Name)
                           .str();
    // The launches keep the parity of the swaps: after the loop the result
    // is in the allocation it is in now (cur after an even number of swaps
    // is the buffer it started as), so whatever knows the allocations apart
    // (the tuner's replay compares allocations) sees the same. With S odd
    // every split of the trips does; with S even the number of launches of
    // S sweeps must be even, the rest run one at a time.
    auto Blocked2 = [&](StringRef End) {
      return Pad + "  for (; " + V + " < " + End.str() + "; " + V + " += " +
             SS + ") " + *Blocked + "\n";
    };
    auto Rest = [&]() {
      return Pad + "  for (; " + V + " < " + B + "; ++" + V + ") " +
             Original + "\n";
    };
    std::optional<int64_t> InitValue;
    if (Expr::EvalResult E; R.Start->EvaluateAsInt(E, Ctx))
      InitValue = E.Val.getInt().getExtValue();
    if (R.Trips) {
      int64_t Launches = temporalBlockSchedule(*R.Trips, S).Launches;
      if (Launches == 0)
        return refuse(formatv("the time loop at {0} runs {1} sweeps: with {2} "
                              "sweeps per launch there is no run of launches "
                              "that keeps which buffer holds the result (an "
                              "even count when the sweeps per launch are "
                              "even); use fewer sweeps per launch",
                              At, *R.Trips, S)
                          .str());
      if (Launches * S == *R.Trips) {
        P.LoopText = Head + "\n" + Pad + "for (" + VT + " " + V + " = " + A +
                     "; " + V + " < " + B + "; " + V + " += " + SS + ") " +
                     *Blocked;
      } else {
        P.LoopText = Head + formatv(" ({0} launches; the last {1} sweeps one "
                                    "at a time)\n",
                                    Launches, *R.Trips - Launches * S)
                                .str() +
                     Pad + "{\n" + Pad + "  " + VT + " " + V + " = " + A +
                     ";\n" +
                     Blocked2(InitValue ? std::to_string(*InitValue +
                                                         Launches * S)
                                        : "(" + A + ") + " +
                                              std::to_string(Launches * S)) +
                     Rest() + Pad + "}";
      }
    } else {
      // The trip count is known at run time only.
      int64_t Step = S % 2 ? S : 2 * S;
      std::string End = "cudaopt_" + V + "_blocked";
      P.LoopText =
          Head + " (the sweeps left over run one at a time)\n" + Pad + "{\n" + Pad + "  " + VT +
          " " + V + " = " + A + ";\n" + Pad + "  const " + VT + " " + End +
          " = " + V + " + (" + B + " - " + V + ") / " + std::to_string(Step) +
          " * " + std::to_string(Step) + ";\n" + Blocked2(End) + Rest() +
          Pad + "}";
    }
    P.Notes.push_back("temporal-block: kernel '" + K.name() + "': " +
                      Sw.Summary + "; " + SS + " sweeps per launch of '" +
                      Name + "' (" + std::to_string(TX) + " x " +
                      std::to_string(TY) + " cells per block, halo " +
                      std::to_string(H) + ")");
    return P;
  }

  /// The new kernel's definition.
  static Expected<std::string>
  kernelText(ASTContext &Ctx, const KernelInfo &K, const StencilSweep &Sw,
             StringRef Name, int64_t S, int64_t TX, int64_t TY,
             int64_t Threads, int64_t H, bool Walk) {
    const FunctionDecl *FD = K.Decl;
    std::string ParamsText;
    for (unsigned I = 0; I < FD->getNumParams(); ++I)
      ParamsText += (I ? ", " : "") +
                    sourceText(Ctx, FD->getParamDecl(I)->getSourceRange());
    std::string T = typeText(Ctx, Sw.Element);
    std::string XB = sourceText(Ctx, Sw.M.Dims[0].Bound->getSourceRange());
    std::string YB = sourceText(Ctx, Sw.M.Dims[1].Bound->getSourceRange());
    std::string XV = Sw.M.Dims[0].Var->getNameAsString();
    std::string YV = Sw.M.Dims[1].Var->getNameAsString();
    std::string XT = typeText(Ctx, Sw.M.Dims[0].Var->getType());
    std::string YT = typeText(Ctx, Sw.M.Dims[1].Var->getType());

    // The columns the cell reads: dx in [MinDX, MaxDX].
    int64_t MinDX = 0, MaxDX = 0;
    for (const StencilRead &R : Sw.Reads) {
      MinDX = std::min(MinDX, R.DX);
      MaxDX = std::max(MaxDX, R.DX);
    }
    // The cell update with its grid accesses redirected.
    auto Cell = [&](StringRef Src, StringRef Dst) -> Expected<std::string> {
      std::vector<std::pair<SourceRange, std::string>> Edits;
      for (const StencilRead &R : Sw.Reads)
        Edits.push_back(
            {R.E->getSourceRange(),
             Walk
                 // Every read comes from the registers of the walk.
                 ? formatv("cudaopt_col[{0}][{1}]", R.DX - MinDX,
                           Sw.Radius + R.DY)
                       .str()
                 : formatv("cudaopt_tile[{0}][cudaopt_ly{1}][cudaopt_lx{2}]",
                           Src, offsetText(R.DY), offsetText(R.DX))
                       .str()});
      if (!Dst.empty())
        for (const ArraySubscriptExpr *W : Sw.Writes)
          Edits.push_back({W->getSourceRange(),
                           ("cudaopt_tile[" + Dst +
                            "][cudaopt_ly][cudaopt_lx]")
                               .str()});
      return textWithEdits(Ctx, bodyRange(Ctx, Sw.M), Edits);
    };
    Expected<std::string> Middle = Cell("(cudaopt_s - 1) & 1", "cudaopt_s & 1");
    if (!Middle)
      return Middle.takeError();
    Expected<std::string> Last =
        Cell(std::to_string((S - 1) & 1), "");
    if (!Last)
      return Last.takeError();

    std::string In = Sw.In->getNameAsString();
    std::string Pitch = Sw.Pitch->getNameAsString();
    std::string K_;
    raw_string_ostream OS(K_);
    OS << "/// Added by cuda-opt temporal-block: " << S << " sweeps of '"
       << K.name() << "' per launch. Each block owns " << TX << " x " << TY
       << " cells; it loads\n/// them with a halo of " << H
       << " cells (sweeps x radius " << Sw.Radius
       << ") into shared memory, runs sweep s on the\n/// cells at least "
          "s x radius inside the tile's edge, and stores its own cells "
          "from\n/// the last sweep. The cell update is '"
       << K.name() << "''s own.\n";
    OS << "__global__ void __launch_bounds__(" << Threads << ") " << Name
       << "(" << ParamsText << ") {\n";
    OS << "  constexpr int cudaopt_halo = " << H << ";\n";
    OS << "  constexpr int cudaopt_w = " << TX
       << " + 2 * cudaopt_halo, cudaopt_h = " << TY
       << " + 2 * cudaopt_halo;\n";
    OS << "  __shared__ " << T << " cudaopt_tile[2][cudaopt_h][cudaopt_w];\n";
    OS << "  const int cudaopt_x0 = (int)blockIdx.x * " << TX
       << " - cudaopt_halo;\n";
    OS << "  const int cudaopt_y0 = (int)blockIdx.y * " << TY
       << " - cudaopt_halo;\n";
    OS << "  for (int cudaopt_c = threadIdx.x; cudaopt_c < cudaopt_w * "
          "cudaopt_h; cudaopt_c += "
       << Threads << ") {\n";
    OS << "    const int cudaopt_ly = cudaopt_c / cudaopt_w, cudaopt_lx = "
          "cudaopt_c % cudaopt_w;\n";
    OS << "    const int cudaopt_gx = cudaopt_x0 + cudaopt_lx, cudaopt_gy = "
          "cudaopt_y0 + cudaopt_ly;\n";
    OS << "    if (cudaopt_gx >= 0 && cudaopt_gy >= 0 && cudaopt_gx < " << XB
       << " && cudaopt_gy < " << YB << ")\n";
    OS << "      cudaopt_tile[0][cudaopt_ly][cudaopt_lx] = " << In
       << "[(size_t)cudaopt_gy * " << Pitch << " + cudaopt_gx];\n";
    OS << "  }\n  __syncthreads();\n";
    // The cell loops: 32 threads along x, the others along y; tiles that lie
    // wholly inside the grid take a copy of the sweeps without the bounds
    // checks.
    OS << "  const int cudaopt_tx = threadIdx.x % 32, cudaopt_ty = threadIdx.x "
          "/ 32;\n";
    OS << "  const bool cudaopt_inside = cudaopt_x0 >= 0 && cudaopt_y0 >= 0 && "
          "cudaopt_x0 + cudaopt_w <= "
       << XB << " && cudaopt_y0 + cudaopt_h <= " << YB << ";\n";
    // The cell's coordinates and, for tiles that reach past the grid, the
    // test that the cell is inside it; opens the cell's block. In a tile
    // inside the grid every cell a sweep computes is at least `margin >=
    // radius` cells inside the tile, hence the grid: the compiler may assume
    // so (and fold the kernel's own border tests).
    bool Inside = false;
    const int64_t R = Sw.Radius;
    auto CellHead = [&](StringRef Indent) {
      std::string I = Indent.str();
      OS << I << "    const int cudaopt_gx = cudaopt_x0 + cudaopt_lx, "
                 "cudaopt_gy = cudaopt_y0 + cudaopt_ly;\n";
      if (Inside)
        OS << I << "    {\n";
      else
        OS << I << "    if (cudaopt_gx >= 0 && cudaopt_gy >= 0 && cudaopt_gx < "
           << XB << " && cudaopt_gy < " << YB << ") {\n";
      OS << I << "      " << XT << " " << XV << " = cudaopt_gx;\n";
      OS << I << "      " << YT << " " << YV << " = cudaopt_gy;\n";
      auto Operand = [](StringRef B) {
        return all_of(B, [](char C) { return isAlnum(C) || C == '_'; })
                   ? B.str()
                   : "(" + B.str() + ")";
      };
      if (Inside)
        OS << I << "      __builtin_assume(" << XV << " >= " << R << " && "
           << XV << " < " << Operand(XB) << " - " << R << " && " << YV
           << " >= " << R << " && " << YV << " < " << Operand(YB) << " - "
           << R << ");\n";
    };
    auto CellLoops = [&](StringRef Margin, StringRef Indent) {
      std::string I = Indent.str();
      OS << I << "for (int cudaopt_ly = " << Margin
         << " + cudaopt_ty; cudaopt_ly < cudaopt_h - " << Margin
         << "; cudaopt_ly += " << Threads / 32 << ")\n";
      OS << I << "  for (int cudaopt_lx = " << Margin
         << " + cudaopt_tx; cudaopt_lx < cudaopt_w - " << Margin
         << "; cudaopt_lx += 32) {\n";
      CellHead(Indent);
    };
    // The walk: the warps split the sweep's rows into runs; a thread walks
    // its run down one column at a time, keeping the cells the update reads
    // in registers: cudaopt_col[c][r] is the tile cell at column lx + MinDX
    // + c, row ly - R + r. Each row down loads one new row of them, so a
    // tile cell is read once per column that needs it instead of once per
    // cell that reads it. Closed by EndWalk; \p Src is the tile the sweep
    // reads.
    const int64_t Warps = Threads / 32, Cols = MaxDX - MinDX + 1;
    auto WalkLoops = [&](StringRef Margin, StringRef Src, StringRef Indent) {
      std::string I = Indent.str();
      OS << I << "const int cudaopt_run = (cudaopt_h - 2 * " << Margin
         << " + " << Warps - 1 << ") / " << Warps << ";\n";
      OS << I << "const int cudaopt_ly0 = " << Margin
         << " + cudaopt_ty * cudaopt_run;\n";
      OS << I << "const int cudaopt_ly1 = min(cudaopt_h - " << Margin
         << ", cudaopt_ly0 + cudaopt_run);\n";
      OS << I << "for (int cudaopt_lx = " << Margin
         << " + cudaopt_tx; cudaopt_ly0 < cudaopt_ly1 && cudaopt_lx < "
            "cudaopt_w - "
         << Margin << "; cudaopt_lx += 32) {\n";
      std::string Col = "cudaopt_lx" + offsetText(MinDX) + " + cudaopt_c";
      OS << I << "  " << T << " cudaopt_col[" << Cols << "][" << 2 * R + 1
         << "];\n";
      OS << I << "#pragma unroll\n";
      OS << I << "  for (int cudaopt_c = 0; cudaopt_c < " << Cols
         << "; ++cudaopt_c)\n";
      OS << I << "#pragma unroll\n";
      OS << I << "    for (int cudaopt_k = 0; cudaopt_k < " << 2 * R
         << "; ++cudaopt_k)\n";
      OS << I << "      cudaopt_col[cudaopt_c][cudaopt_k] = cudaopt_tile["
         << Src << "][cudaopt_ly0 - " << R << " + cudaopt_k][" << Col
         << "];\n";
      OS << I << "  for (int cudaopt_ly = cudaopt_ly0; cudaopt_ly < "
                 "cudaopt_ly1; ++cudaopt_ly) {\n";
      OS << I << "#pragma unroll\n";
      OS << I << "    for (int cudaopt_c = 0; cudaopt_c < " << Cols
         << "; ++cudaopt_c)\n";
      OS << I << "      cudaopt_col[cudaopt_c][" << 2 * R
         << "] = cudaopt_tile[" << Src << "][cudaopt_ly + " << R << "]["
         << Col << "];\n";
      CellHead(Indent);
    };
    // Closes WalkLoops: the cell's block, then the window moves down a row.
    auto EndWalk = [&](StringRef Indent) {
      std::string I = Indent.str();
      OS << I << "    }\n";
      OS << I << "#pragma unroll\n";
      OS << I << "    for (int cudaopt_c = 0; cudaopt_c < " << Cols
         << "; ++cudaopt_c)\n";
      OS << I << "#pragma unroll\n";
      OS << I << "      for (int cudaopt_k = 0; cudaopt_k < " << 2 * R
         << "; ++cudaopt_k)\n";
      OS << I << "        cudaopt_col[cudaopt_c][cudaopt_k] = "
                 "cudaopt_col[cudaopt_c][cudaopt_k + 1];\n";
      OS << I << "  }\n" << I << "}\n";
    };
    // One sweep over the cells at least \p Margin inside the tile, reading
    // tile \p Src, running \p Cell on each.
    auto OneSweep = [&](StringRef Margin, StringRef Src, StringRef Cell,
                        StringRef Indent) {
      std::string I = Indent.str();
      if (Walk) {
        WalkLoops(Margin, Src, Indent);
        OS << indentBlock(Cell, I + "      ");
        EndWalk(Indent);
        return;
      }
      CellLoops(Margin, Indent);
      OS << indentBlock(Cell, I + "      ");
      OS << I << "    }\n" << I << "  }\n";
    };
    auto Sweeps = [&]() {
      if (S > 1) {
        OS << "  // Sweeps 1 .. " << S - 1
           << " stay in shared memory, each on a smaller tile.\n";
        OS << "#pragma unroll\n";
        OS << "  for (int cudaopt_s = 1; cudaopt_s < " << S
           << "; ++cudaopt_s) {\n";
        OS << "    const int cudaopt_m = cudaopt_s * " << Sw.Radius << ";\n";
        OneSweep("cudaopt_m", "(cudaopt_s - 1) & 1", *Middle, "    ");
        OS << "    __syncthreads();\n  }\n";
      }
      OS << "  // The last sweep stores the block's own cells.\n  {\n";
      OneSweep("cudaopt_halo", std::to_string((S - 1) & 1), *Last, "    ");
      OS << "  }\n";
    };
    OS << "  if (cudaopt_inside) {\n";
    OS << "  // The tile lies inside the grid: no cell needs the bounds test.\n";
    Inside = true;
    Sweeps();
    OS << "  } else {\n";
    Inside = false;
    Sweeps();
    OS << "  }\n}";
    return OS.str();
  }
};

} // namespace

std::string temporalBlockKernelName(ASTContext &Ctx, const KernelInfo &K) {
  std::string Name = K.name() + "_tb";
  while (declaresFunction(Ctx, Name))
    Name += "_";
  return Name;
}

std::unique_ptr<Transform> createTemporalBlockTransform() {
  return std::make_unique<TemporalBlock>();
}

} // namespace cuda_opt
