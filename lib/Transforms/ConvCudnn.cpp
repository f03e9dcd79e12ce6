//===- ConvCudnn.cpp - Route direct convolutions to cuDNN ----------------===//
//
// Part of cuda-opt.
//
// conv-cudnn replaces, in host code, each launch of a kernel that
// ConvKernelMatch proves to be a direct fp32 2-D convolution with
//
//   if (!(<the launch covers the output>) ||
//       cudaoptConv2dLaunch(stream, in, w, out, N, C, ...) != cudaSuccess)
//     kernel<<<grid, block, shmem, stream>>>(args);
//
// cudaoptConv2dLaunch (Snippets/ConvCudnn.cuh, added to the file after its
// includes) runs cuDNN's fastest fp32 FMA algorithm for the shape; the
// original launch stays as the fallback for a launch whose grid does not
// reach every output and for a shape cuDNN does not compute exactly. cuDNN
// sums in its own order: the rewrite needs --fp-model=reassoc, and tune
// verifies it against the fp64 reference like any variant. The rewritten
// file needs -lcudnn.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Transforms/ConvCudnnEntry.h"

#include "cuda-opt/Analysis/ConvKernelMatch.h"
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"
#include "cuda-opt/Support/Refusal.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

// The text is lib/Transforms/Snippets/ConvCudnn.cuh.
constexpr llvm::StringLiteral ConvHelper = "\n"
#include "Snippets/ConvCudnn.cuh.inc"
    ;

StringRef convCudnnHelperText() { return ConvHelper; }

namespace {

/// cudaoptConv2dLaunch's arguments after the stream: the tensors (the bias
/// or nullptr), the
/// extents, paddings, strides and dilations, the layout and the algorithm.
std::string launchArgs(const ConvKernelMatch &M, int64_t Algo,
                       function_ref<std::string(unsigned)> Param) {
  // A constant or a lone int parameter as it is; anything else converted.
  auto Int = [&](const IndexExpr &E) {
    std::string Text = M.render(E, Param);
    if (E.getConstant())
      return Text;
    if (E.terms().size() == 1 && E.terms().begin()->second == 1 &&
        E.terms().begin()->first.size() == 1)
      if (const auto *PD = dyn_cast_or_null<ParmVarDecl>(
              M.Symbols[E.terms().begin()->first[0]].Decl);
          PD && PD->getType().getCanonicalType()->isSpecificBuiltinType(
                    BuiltinType::Int))
        return Text;
    return "static_cast<int>(" + Text + ")";
  };
  std::string S = Param(M.In) + ", " + Param(M.Weight) + ", " +
                  (M.Bias ? Param(*M.Bias) : std::string("nullptr")) + ", " +
                  Param(M.Out);
  for (const IndexExpr *E :
       {&M.N, &M.C, &M.H, &M.W, &M.K, &M.R, &M.S, &M.P, &M.Q, &M.PadH, &M.PadW,
        &M.StrideH, &M.StrideW, &M.DilH, &M.DilW})
    S += ", " + Int(*E);
  S += M.Nhwc ? ", 1, " : ", 0, ";
  return S + std::to_string(Algo);
}

/// The range of the algo parameter: -1 (cuDNN's heuristic choice) and the
/// cudnnConvolutionFwdAlgo_t values.
constexpr int64_t AlgoMin = -1, AlgoMax = 7;

struct ConvPlan : TransformPlan {
  std::vector<std::pair<CharSourceRange, std::string>> Edits;
};

class ConvCudnn : public TransformWithPlan<ConvPlan> {
public:
  StringRef getName() const override { return "conv-cudnn"; }
  StringRef getSummary() const override {
    return "replace the launch of a direct fp32 2-D convolution kernel "
           "(NCHW or NHWC, stride, padding, dilation) with cuDNN's fastest "
           "fp32 algorithm; needs --fp-model=reassoc and -lcudnn";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"algo",
         AlgoMin,
         AlgoMin,
         AlgoMax,
         "the cudnnConvolutionFwdAlgo_t to run (0 implicit GEMM, 1 "
         "precomputed implicit GEMM, 2 GEMM, 3 direct, 4 FFT, 5 tiled FFT, 6 "
         "Winograd, 7 non-fused Winograd); -1 = cuDNN's heuristic first "
         "choice with FMA math. tune measures each",
         false,
         {-1, 0, 1, 5, 6, 7}},
    };
    return Specs;
  }
  bool replacesLaunch(const ParamValues &) const override { return true; }
  std::vector<std::string> linkFlags(const ParamValues &) const override {
    return {"-lcudnn"};
  }
  FpEffect fpEffect(const ParamValues &) const override {
    return FpEffect::Reassociates;
  }

  Expected<ConvPlan> makePlan(const KernelTarget &T,
                              const ParamValues &V) const override {
    const KernelInfo &K = T.Kernel;
    Expected<ConvKernelMatch> Match = matchConvKernel(T.Ctx, K);
    if (!Match)
      return Match.takeError();
    if (K.Launches.empty())
      return refuse("kernel '" + K.name() +
                    "' is a convolution but is not launched in this file");
    ConvPlan Pl;
    const SourceManager &SM = T.getSourceManager();
    for (const LaunchSite &L : K.Launches) {
      std::string Where = describeLocation(SM, L.Call->getBeginLoc());
      // The fallback repeats the launch: nothing in it may have effects.
      if (Error E = checkFallbackLaunch(T.Ctx, K, L))
        return std::move(E);
      const Expr *Grid = launchGridExpr(L), *Block = launchBlockExpr(L);
      for (const Expr *E : {Grid, Block, launchStreamExpr(L)})
        if (E && !isRepeatableExpr(T.Ctx, E))
          return refuse("the launch configuration at " + Where +
                        " has side effects; the rewrite evaluates it twice");
      if (!Grid || !Block)
        return refuse("the launch at " + Where + " has no grid or block");
      Expected<CharSourceRange> Range = statementRange(T.Ctx, L.Call);
      if (!Range)
        return Range.takeError();
      auto Arg = [&](unsigned I) {
        return sourceText(T.Ctx, L.Call->getArg(I)->getSourceRange());
      };
      std::string GridText = sourceText(T.Ctx, Grid->getSourceRange());
      std::string BlockText = sourceText(T.Ctx, Block->getSourceRange());
      std::string Covers;
      for (const ConvLaunchCover &C : Match->Covers) {
        std::string D = std::string(".") + "xyz"[C.Dim];
        std::string Have = "static_cast<long long>(dim3(" + GridText + ")" + D +
                           ")";
        if (!C.BlocksOnly)
          Have += " * dim3(" + BlockText + ")" + D;
        Covers += (Covers.empty() ? "" : " &&\n      ") + Have +
                  (C.Exact ? " == " : " >= ") + Match->render(C.Extent, Arg);
      }
      const Expr *Stream = launchStreamExpr(L);
      std::string StreamText =
          Stream ? sourceText(T.Ctx, Stream->getSourceRange()) : "0";
      std::string Launch = sourceText(T.Ctx, Range->getAsRange());
      if (!StringRef(Launch).rtrim().ends_with(";"))
        Launch += ";";
      Pl.Edits.push_back(
          {*Range, "if (!(" + Covers + ") ||\n    cudaoptConv2dLaunch(" +
                       StreamText + ", " + launchArgs(*Match, V.get("algo"), Arg) +
                       ") != cudaSuccess)\n  " + Launch});
    }
    return Pl;
  }

  Expected<tooling::Replacements> applyPlan(const KernelTarget &T,
                                            const ConvPlan &Pl) const override {
    std::vector<HostAddition> Add = {
        {HostAddition::Include, "cudnn.h", "#include <cudnn.h>\n"},
        {HostAddition::Include, "mutex", "#include <mutex>\n"},
        {HostAddition::Include, "vector", "#include <vector>\n"},
        {HostAddition::Function, "cudaoptConv2dLaunch", ConvHelper.str()}};
    return libraryCallReplacements(T.Ctx, Pl.Edits, Add);
  }
};

} // namespace

std::unique_ptr<Transform> createConvCudnnTransform() {
  return std::make_unique<ConvCudnn>();
}

std::string convCudnnEntryName(int64_t Algo) {
  return "cudaopt_conv_algo_" +
         (Algo < 0 ? std::string("default") : std::to_string(Algo));
}

Expected<std::string> convCudnnEntryText(
    ASTContext &Ctx, const KernelInfo &K,
    const std::array<int64_t, 3> &Grid, const std::array<int64_t, 3> &Block,
    function_ref<std::optional<int64_t>(unsigned)> Param) {
  Expected<ConvKernelMatch> Match = matchConvKernel(Ctx, K);
  if (!Match)
    return Match.takeError();
  for (const ConvLaunchCover &C : Match->Covers) {
    std::optional<int64_t> Need = Match->evaluate(C.Extent, Param);
    if (!Need)
      return refuse("the captured launch's arguments do not give the extent " +
                    C.Extent.str(Match->Symbols));
    int64_t Have = Grid[C.Dim] * (C.BlocksOnly ? 1 : Block[C.Dim]);
    if (C.Exact ? Have != *Need : Have < *Need)
      return refuse("the captured launch supplies " + Twine(Have) +
                    " indices in dimension " + Twine("xyz"[C.Dim]) +
                    " for the " + Twine(*Need) +
                    " output coordinates taken from it");
  }
  // args[i] points at argument i, of the kernel parameter's type.
  auto Arg = [&](unsigned I) {
    return libraryEntryArgument(Ctx, K.Decl->getParamDecl(I));
  };
  // One entry per algorithm: every setting tune measures shares one build.
  std::string Text = "#include <cuda_runtime.h>\n#include <cudnn.h>\n"
                     "#include <mutex>\n#include <vector>\n" +
                     convCudnnHelperText().str();
  for (int64_t Algo = AlgoMin; Algo <= AlgoMax; ++Algo)
    Text += "\nextern \"C\" int " + convCudnnEntryName(Algo) +
            "(void **Args, void *Stream) {\n  return static_cast<int>("
            "cudaoptConv2dLaunch(static_cast<cudaStream_t>(Stream), " +
            launchArgs(*Match, Algo, Arg) + "));\n}\n";
  return Text;
}

} // namespace cuda_opt
