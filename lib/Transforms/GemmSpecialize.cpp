//===- GemmSpecialize.cpp - Replace recognised GEMMs with cudaoptGemm ----===//
//
// Part of cuda-opt.
//
// gemm-specialize{allow-fp16-compute} replaces, in host code,
//  - each launch of a kernel that GemmKernelMatch proves to be a plain
//    row-major fp16/bf16 GEMM with fp32 accumulation, and
//  - each cublasGemmEx / cublasHgemm / cublasSgemm / cublasLtMatmul call
//    that CublasGemmCall maps to a row-major problem (Hgemm and Sgemm only
//    with allow-fp16-compute=1; Sgemm then runs on fp16 copies)
// by a call of cudaoptGemm (runtime/gemm), whose dispatch picks a tuned
// kernel for the shape at run time. The file gains `#include
// "cudaopt/gemm.h"` and, for cuBLAS calls, a small host helper that runs the
// problem on the call's stream and returns a cublasStatus_t, so a call
// wrapped in an error-checking macro keeps working.
//
// fp32 GEMM kernels become CUDAOPT_GEMM_F32 problems: the exact CUDA-core
// kernel, or with f32-cublas=1 a problem that may reassociate, which the
// runtime runs as cublasSgemm or (lt-algo=k) the k-th cuBLASLt fp32
// candidate; tune times each value of k (issue 14).
//
// cuBLAS calls are not tied to a kernel; the pipeline runs a transform once
// per kernel, so every step rewrites the cuBLAS calls still present (after
// the first step there are none left to rewrite).
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Analysis/CublasGemmCall.h"
#include "cuda-opt/Analysis/GemmKernelMatch.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"

#include "clang/AST/Attr.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

constexpr llvm::StringLiteral GemmInclude = "#include \"cudaopt/gemm.h\"\n";

// Added after the includes; the text is lib/Transforms/Snippets/GemmLaunch.cuh.
constexpr llvm::StringLiteral LaunchHelper = "\n"
#include "Snippets/GemmLaunch.cuh.inc"
    ;
// Added after the includes; the text is lib/Transforms/Snippets/GemmOnHandle.cuh.
constexpr llvm::StringLiteral HandleHelper = "\n"
#include "Snippets/GemmOnHandle.cuh.inc"
    ;
// Added after the includes; the text is lib/Transforms/Snippets/GemmF32OnHandle.cuh.
constexpr llvm::StringLiteral Float32Helper = "\n"
#include "Snippets/GemmF32OnHandle.cuh.inc"
    ;
// Added after the includes; the text is lib/Transforms/Snippets/GemmOnStream.cuh.
constexpr llvm::StringLiteral StreamHelper = "\n"
#include "Snippets/GemmOnStream.cuh.inc"
    ;
/// The edits for one kernel step and the reasons for what was left alone.
struct GemmPlan : TransformPlan {
  std::vector<std::pair<CharSourceRange, std::string>> Edits;
  bool NeedsLaunchHelper = false;
  bool NeedsHandleHelper = false;
  bool NeedsFloat32Helper = false;
  bool NeedsStreamHelper = false;
  std::vector<std::string> Refusals;
};

/// The largest lt-algo: the runtime asks cuBLASLt's heuristic for this many
/// candidates (runtime/gemm/lib/CublasSgemm.cpp, MaxLtAlgos).
constexpr int64_t MaxLtAlgo = 8;

class GemmSpecialize : public TransformWithPlan<GemmPlan> {
public:
  StringRef getName() const override { return "gemm-specialize"; }
  StringRef getSummary() const override {
    return "replace a recognised fp16/bf16 GEMM (kernel launch, "
           "cublasGemmEx, cublasLtMatmul; cublasHgemm/Sgemm on opt-in) with "
           "the tuned cudaoptGemm";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"allow-fp16-compute",
         0,
         0,
         1,
         "1 = also replace GEMMs that accumulate in fp16 (cublasHgemm, "
         "CUBLAS_COMPUTE_16F; results change) and run cublasSgemm on fp16 "
         "copies (CUBLAS_COMPUTE_32F_FAST_16F-like, fp16-rounded result)",
         false,
         {0}},
        {"f32-cublas",
         0,
         0,
         1,
         "fp32 GEMM kernels: 1 = cuBLAS SGEMM (fp32, its own summation "
         "order; under --fp-model=reassoc, verified against the fp64 "
         "reference), 0 = the exact kernel (bit for bit the naive result)",
         false,
         {0, 1}},
        // The tuner times every value: which cuBLASLt candidate beats
        // cublasSgemm depends on the shape (on the H200, #0, #1, #2 or #7
        // of the corpus's fp32 GEMMs; bench/explore/sgemm-lt-algos.cu).
        {"lt-algo",
         0,
         0,
         MaxLtAlgo,
         "with f32-cublas=1: 0 = cublasSgemm, k = the k-th candidate of "
         "cuBLASLt's heuristic (fp32 compute, no TF32; cublasSgemm when "
         "there are fewer)",
         false,
         {0, 1, 2, 3, 4, 5, 6, 7, 8}},
    };
    return Specs;
  }
  /// The launch becomes a library call: there is no kernel variant whose
  /// cubin the tuner could replay.
  bool replacesLaunch(const ParamValues &) const override { return true; }
  /// The runtime GEMM library (runtime/gemm; docs/transforms/
  /// gemm-specialize.md, "Building and linking the output") and cuBLAS and
  /// cuBLASLt, which it calls for fp32 problems that may reassociate.
  std::vector<std::string> linkFlags(const ParamValues &) const override {
    return {"-lcudaopt_gemm", "-lcublas", "-lcublasLt"};
  }
  /// The library sums in its own order; fp16 compute lowers the precision
  /// (docs/transforms/gemm-specialize.md, "Precision").
  FpEffect fpEffect(const ParamValues &P) const override {
    return P.get("allow-fp16-compute") ? FpEffect::Approximates
                                       : FpEffect::Reassociates;
  }

  Expected<GemmPlan> makePlan(const KernelTarget &T,
                              const ParamValues &P) const override {
    GemmPlan Pl = planEdits(T, P);
    if (!Pl.Edits.empty())
      return Pl;
    // One refusal per line under the pipeline's "kernel 'k':" heading.
    return refuse(join(Pl.Refusals, "\n    "));
  }

  Expected<tooling::Replacements> applyPlan(const KernelTarget &T,
                                            const GemmPlan &Pl) const override {
    std::vector<HostAddition> Add = {
        {HostAddition::Include, "cudaopt/gemm.h", GemmInclude.str()}};
    if (Pl.NeedsLaunchHelper)
      Add.push_back({HostAddition::Function, "cudaoptGemmLaunch",
                     LaunchHelper.str()});
    if (Pl.NeedsHandleHelper)
      Add.push_back({HostAddition::Function, "cudaoptGemmOnHandle",
                     HandleHelper.str()});
    if (Pl.NeedsFloat32Helper)
      Add.push_back({HostAddition::Function, "cudaoptGemmF32OnHandle",
                     Float32Helper.str()});
    if (Pl.NeedsStreamHelper)
      Add.push_back({HostAddition::Function, "cudaoptGemmOnStream",
                     StreamHelper.str()});
    return libraryCallReplacements(T.Ctx, Pl.Edits, Add);
  }

private:
  GemmPlan planEdits(const KernelTarget &T, const ParamValues &P) const {
    GemmPlan Pl;
    const int64_t LtAlgo = P.get("lt-algo");
    if (LtAlgo && !P.get("f32-cublas")) {
      Pl.Refusals.push_back(
          "lt-algo=" + std::to_string(LtAlgo) +
          " picks a cuBLASLt algorithm for the fp32 path that may "
          "reassociate; it needs f32-cublas=1");
      return Pl;
    }
    planKernel(T, P.get("f32-cublas") != 0, LtAlgo, Pl);
    // f32-cublas is about fp32 kernels; cuBLAS calls are rewritten with it
    // off (the same rewrite would be measured twice).
    if (P.get("f32-cublas"))
      return Pl;
    CublasMapOptions Opts;
    Opts.AllowFp16Compute = P.get("allow-fp16-compute") != 0;
    for (const CublasGemmCall &C : findCublasGemmCalls(T.Ctx)) {
      Expected<CublasGemmMapping> M = mapCublasGemm(T.Ctx, C, Opts);
      Expected<CharSourceRange> Range =
          M ? callRange(T.Ctx, C.Call)
            : Expected<CharSourceRange>(M.takeError());
      if (!Range) {
        Pl.Refusals.push_back(toString(Range.takeError()));
        continue;
      }
      std::string Init = renderProblemInit(M->Problem);
      if (M->Float32) {
        Pl.NeedsFloat32Helper = true;
        Pl.Edits.push_back({*Range, "cudaoptGemmF32OnHandle(" + M->Handle +
                                        ", " + Init + ")"});
      } else if (M->Handle.empty()) {
        Pl.NeedsStreamHelper = true;
        Pl.Edits.push_back(
            {*Range, "cudaoptGemmOnStream(" + M->Stream + ", " + Init + ")"});
      } else {
        Pl.NeedsHandleHelper = true;
        Pl.Edits.push_back(
            {*Range, "cudaoptGemmOnHandle(" + M->Handle + ", " + Init + ")"});
      }
    }
    if (Pl.Edits.empty() && Pl.Refusals.size() == 1 &&
        StringRef(Pl.Refusals[0]).contains("is not a GEMM ("))
      Pl.Refusals[0] += ", and the file has no cublasGemmEx, cublasHgemm, "
                        "cublasSgemm or cublasLtMatmul call";
    return Pl;
  }

  void planKernel(const KernelTarget &T, bool F32Cublas, int64_t LtAlgo,
                  GemmPlan &Pl) const {
    const KernelInfo &K = T.Kernel;
    Expected<GemmKernelMatch> Match = matchGemmKernel(T.Ctx, K);
    if (!Match) {
      Pl.Refusals.push_back(toString(Match.takeError()));
      return;
    }
    if (K.Launches.empty()) {
      Pl.Refusals.push_back("kernel '" + K.name() +
                            "' is a GEMM but is not launched in this file");
      return;
    }
    if (F32Cublas && !Match->F32) {
      Pl.Refusals.push_back("f32-cublas=1 applies to fp32 GEMM kernels; "
                            "kernel '" +
                            K.name() + "' is fp16/bf16");
      return;
    }
    // All launches or none: a kernel still launched somewhere would be
    // timed by the tuner as if it were the rewrite.
    std::vector<std::pair<CharSourceRange, std::string>> Edits;
    size_t Refused = Pl.Refusals.size();
    for (const LaunchSite &L : K.Launches) {
      if (L.Caller && (L.Caller->hasAttr<CUDAGlobalAttr>() ||
                       L.Caller->hasAttr<CUDADeviceAttr>())) {
        Pl.Refusals.push_back(
            "the launch of '" + K.name() + "' at " +
            describeLocation(T.getSourceManager(), L.Call->getBeginLoc()) +
            " is in device code");
        continue;
      }
      Expected<GemmProblem> Problem = problemAtLaunch(T.Ctx, K, *Match, L);
      if (Problem && F32Cublas) {
        Problem->Reassociate = true;
        Problem->LibraryAlgo = static_cast<int>(LtAlgo);
      }
      Expected<CharSourceRange> Range =
          Problem ? statementRange(T.Ctx, L.Call)
                  : Expected<CharSourceRange>(Problem.takeError());
      if (!Range) {
        Pl.Refusals.push_back(toString(Range.takeError()));
        continue;
      }
      const Expr *Stream = launchStreamExpr(L);
      std::string StreamText =
          Stream ? sourceText(T.Ctx, Stream->getSourceRange()) : "0";
      // No comment of our own here: clang-format would reflow it into a
      // comment the user wrote above the launch.
      Edits.push_back({*Range, "cudaoptGemmLaunch(" + StreamText + ", " +
                                   renderProblemInit(*Problem) + ");"});
    }
    if (Pl.Refusals.size() != Refused)
      return;
    Pl.NeedsLaunchHelper = true;
    llvm::append_range(Pl.Edits, Edits);
  }
};

} // namespace

std::unique_ptr<Transform> createGemmSpecializeTransform() {
  return std::make_unique<GemmSpecialize>();
}
} // namespace cuda_opt
