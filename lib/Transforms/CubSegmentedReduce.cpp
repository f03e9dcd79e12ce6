//===- CubSegmentedReduce.cpp - Route a segmented reduction to CUB --------===//
//
// Part of cuda-opt. `cub-segmented-reduce` on a one-thread-per-segment
// kernel that sums, or takes the maximum or minimum of, one segment of an
// array into its output element (Analysis/SegmentedReduction.h): each
// launch becomes a call of cub::DeviceSegmentedReduce, which spreads a
// segment over a warp or a block and reads it coalesced, where the kernel's
// thread walked its segment alone:
//
//   {
//     // cuda-opt cub-segmented-reduce: ...
//     size_t cudaopt_segred_bytes = 0;
//     CK(cub::DeviceSegmentedReduce::Sum(nullptr, cudaopt_segred_bytes, in,
//                                        out, rows, offsets, offsets + 1));
//     ...stream-ordered scratch, the same call, the scratch freed...
//   }
//
// Segments are offset arrays (`[begin[s], end[s + k])`) or fixed-length rows
// (`[s * len, (s + 1) * len)`, as a transformed counting iterator). CUB
// starts each segment from one initial value, the accumulator's constant
// initial value, and combines with the kernel's own function (fmaxf, max,
// ...), so an empty segment gets the kernel's value too. Integer sums,
// maxima and minima are the same in any order (--fp-model=strict); float
// sums are reassociated, and fmaxf/fminf may keep the other of two equal
// zeros (-0.0, +0.0) in another order: --fp-model=reassoc for floats.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Analysis/SegmentedReduction.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Support/Refusal.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"
#include "cuda-opt/Transforms/Utils/SourceEdits.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

struct CubSegmentedReducePlan : TransformPlan {
  std::vector<std::pair<CharSourceRange, std::string>> Edits;
  /// Fixed-length rows: thrust's iterators give the offsets.
  bool Iterators = false;
};

/// The match, with the pipeline's "kernel 'k': " taken off the reason.
Expected<SegmentedReduction> matchOf(const KernelTarget &T) {
  Expected<SegmentedReduction> S = matchSegmentedReduction(T.Ctx, T.Kernel);
  if (!S) {
    std::string Why = toString(S.takeError());
    StringRef Rest(Why);
    Rest.consume_front("kernel '" + T.Kernel.name() + "': ");
    return refuse(Rest);
  }
  if (const LaunchSite *L = firstLaunchOnStream(T.Kernel, T.Ctx))
    return refuse("the launch at " +
                  describeLocation(T.getSourceManager(),
                                   L->Call->getBeginLoc()) +
                  " is on a stream; the rewrite reduces on the default "
                  "stream");
  if (S->sparseMatVec())
    return refuse("it is a sparse matrix-vector product (a sum of '" +
                  S->In->getNameAsString() + "[j] * " +
                  S->Gathered->getNameAsString() + "[" +
                  S->Columns->getNameAsString() +
                  "[j]]' per row); cusparse-spmv routes it to cuSPARSE");
  return S;
}

class CubSegmentedReduce : public TransformWithPlan<CubSegmentedReducePlan> {
public:
  StringRef getName() const override { return "cub-segmented-reduce"; }
  StringRef getSummary() const override {
    return "launch a one-thread-per-segment sum, max or min (offsets or "
           "fixed-length rows) as cub::DeviceSegmentedReduce (integers stay "
           "exact; float sums reassociated)";
  }
  bool replacesLaunch(const ParamValues &) const override { return true; }
  bool changesLaunchConfig(const ParamValues &) const override { return true; }
  bool rewritesHostRegion() const override { return true; }
  FpEffect fpEffect(const ParamValues &) const override {
    return FpEffect::Reassociates;
  }
  /// Integer sums, maxima and minima are the same in any order.
  FpEffect fpEffectOn(const KernelTarget &T,
                      const ParamValues &P) const override {
    Expected<SegmentedReduction> S = matchOf(T);
    if (!S) {
      consumeError(S.takeError());
      return FpEffect::Preserves;
    }
    return S->exact() ? FpEffect::Preserves : FpEffect::Reassociates;
  }

  Expected<CubSegmentedReducePlan> makePlan(const KernelTarget &T,
                                            const ParamValues &) const override {
    const KernelInfo &K = T.Kernel;
    const SourceManager &SM = T.getSourceManager();
    Expected<SegmentedReduction> S = matchOf(T);
    if (!S)
      return S.takeError();
    if (K.Launches.empty())
      return refuse("it is never launched from host code");
    // CUB reads the input and the offsets while it writes the output.
    for (const ParmVarDecl *P : {S->In, S->Begin, S->End})
      if (P)
        if (std::optional<std::string> Why =
                rowPointersMayOverlap(T.Ctx, K, S->Out, P))
          return refuseMayAlias("'" + S->Out->getNameAsString() + "' and '" +
                                P->getNameAsString() + "' may overlap (" +
                                *Why + "); CUB needs the output apart");
    CubSegmentedReducePlan P;
    P.Iterators = S->fixedLength();
    PrintingPolicy PP(T.Ctx.getLangOpts());
    std::string Elem = S->Element.getAsString(PP);
    std::string Prefix = "cudaopt_" + K.name();
    // Helpers after the kernel: the combining function (max/min), the
    // start of a fixed-length row.
    std::string Helpers;
    if (S->Kind != RecurrenceKind::Sum)
      Helpers += "\n\n// cuda-opt cub-segmented-reduce: " + K.name() +
                 " combined a segment's elements with " + S->Combine +
                 ".\nstruct " + Prefix + "_op {\n  __device__ " + Elem +
                 " operator()(" + Elem + " a, " + Elem +
                 " b) const { return " + S->Combine + "(a, b); }\n};";
    if (P.Iterators)
      Helpers += "\n\n// cuda-opt cub-segmented-reduce: where row s of " +
                 K.name() + " starts.\nstruct " + Prefix +
                 "_row_start {\n  long long len;\n  __host__ __device__ long "
                 "long operator()(long long s) const { return s * len; }\n};";
    if (!Helpers.empty()) {
      auto Edit = textAfterKernel(T.Ctx, K, Helpers, "helpers");
      if (!Edit)
        return Edit.takeError();
      P.Edits.push_back(std::move(*Edit));
    }
    std::string Init = sourceText(T.Ctx, S->Init->getSourceRange());
    bool PlainSum = S->Kind == RecurrenceKind::Sum &&
                    isPositiveZeroConstant(T.Ctx, S->Init);
    std::string What = S->Kind == RecurrenceKind::Sum   ? "sum"
                       : S->Kind == RecurrenceKind::Max ? "maximum"
                                                        : "minimum";
    std::string Exactness =
        S->exact() ? "integers: the same result in any order"
        : S->Kind == RecurrenceKind::Sum
            ? "float sums in another order: --fp-model=reassoc"
            : "another order may keep the other of -0.0 and +0.0: "
              "--fp-model=reassoc";
    for (const LaunchSite &L : K.Launches) {
      std::string At = describeLocation(SM, L.Call->getBeginLoc());
      Expected<CharSourceRange> Range = statementRange(T.Ctx, L.Call);
      if (!Range)
        return Range.takeError();
      for (const Expr *A : L.Call->arguments())
        if (A->HasSideEffects(T.Ctx))
          return refuse("the launch at " + At +
                        " passes an argument with side effects");
      auto Arg = [&](const ParmVarDecl *Param) {
        return sourceText(
            T.Ctx,
            L.Call->getArg(Param->getFunctionScopeIndex())->getSourceRange());
      };
      std::string N = S->CountParam ? Arg(S->CountParam)
                                    : std::to_string(S->CountValue);
      if (S->Inclusive)
        N = parenthesizedUnlessName(N) + " + 1";
      std::string In = Arg(S->In), Out = Arg(S->Out);
      std::string Begin, End, Segments;
      std::string Macro = checkMacroOf(T.Ctx, L.Caller);
      unsigned Col = SM.getSpellingColumnNumber(L.Call->getBeginLoc());
      std::string Ind(Col - 1, ' ');
      std::string Ind2 = Ind + "  ";
      std::string Pre;
      if (P.Iterators) {
        std::string Len = S->LengthParam ? Arg(S->LengthParam)
                                         : std::to_string(S->LengthValue);
        Pre += Ind2 + Prefix + "_row_start cudaopt_segred_rows;\n";
        Pre += Ind2 + "cudaopt_segred_rows.len = " + Len + ";\n";
        Pre += Ind2 +
               "auto cudaopt_segred_begin = thrust::make_transform_iterator(\n" +
               Ind2 +
               "    thrust::make_counting_iterator<long long>(0), "
               "cudaopt_segred_rows);\n";
        Begin = "cudaopt_segred_begin";
        End = "cudaopt_segred_begin + 1";
        Segments = In + "[s * " + Len + ", (s + 1) * " + Len + ")";
      } else {
        Begin = Arg(S->Begin);
        End =
            parenthesizedUnlessName(Arg(S->End)) + (S->EndShift ? " + 1" : "");
        Segments = In + "[" + Begin + "[s], " +
                   parenthesizedUnlessName(Arg(S->End)) + "[s" +
                   (S->EndShift ? " + 1" : "") + "])";
      }
      auto Call = [&](StringRef Temp) {
        std::string C = PlainSum ? "cub::DeviceSegmentedReduce::Sum("
                                 : "cub::DeviceSegmentedReduce::Reduce(";
        C += Temp.str() + ", cudaopt_segred_bytes, " + In + ", " + Out +
             ", " + N + ", " + Begin + ", " + End;
        if (!PlainSum)
          C += ", " +
               (S->Kind == RecurrenceKind::Sum
                    ? "cuda::std::plus<" + Elem + ">()"
                    : Prefix + "_op()") +
               ", (" + Elem + ")(" + Init + ")";
        return C + ")";
      };
      std::string Body =
          cubTempStorageCall(Ind2, Macro, "cudaopt_segred", Call);
      if (S->CountParam) {
        // No segment: the original launched an empty grid (an error CUDA
        // reports; nothing written).
        std::string Deeper;
        StringRef Rest(Body);
        while (!Rest.empty()) {
          auto [Line, Tail] = Rest.split('\n');
          Deeper += "  " + Line.str() + "\n";
          Rest = Tail;
        }
        Body = Ind2 + "if (" + parenthesizedUnlessName(N) + " > 0) {\n" +
               Deeper + Ind2 + "}\n";
      }
      std::string Text =
          "{\n" + Ind2 + "// cuda-opt cub-segmented-reduce: " + K.name() +
          " stored the " + What + " of segment s,\n" + Ind2 + "// " +
          Segments + ", into " + Out + "[s] for each of the " + N +
          " segments, one thread\n" + Ind2 +
          "// per segment; CUB's segmented reduction spreads a segment over "
          "a warp or a block\n" +
          Ind2 + "// (" + Exactness + ").\n" + Pre + Body + Ind + "}";
      P.Edits.push_back({*Range, Text});
      P.Notes.push_back("cub-segmented-reduce: the launch at " + At +
                        " calls cub::DeviceSegmentedReduce::" +
                        (PlainSum ? "Sum" : "Reduce"));
    }
    return P;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T,
            const CubSegmentedReducePlan &P) const override {
    std::vector<HostAddition> Add = {
        {HostAddition::Include, "cub/device/device_segmented_reduce.cuh",
         "#include <cub/device/device_segmented_reduce.cuh>\n"}};
    if (P.Iterators) {
      Add.push_back({HostAddition::Include,
                     "thrust/iterator/counting_iterator.h",
                     "#include <thrust/iterator/counting_iterator.h>\n"});
      Add.push_back({HostAddition::Include,
                     "thrust/iterator/transform_iterator.h",
                     "#include <thrust/iterator/transform_iterator.h>\n"});
    }
    return libraryCallReplacements(T.Ctx, P.Edits, Add);
  }
};

} // namespace

std::unique_ptr<Transform> createCubSegmentedReduceTransform() {
  return std::make_unique<CubSegmentedReduce>();
}

} // namespace cuda_opt
