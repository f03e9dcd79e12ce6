//===- CubSort.cpp - Route a bitonic sorting network to CUB's radix sort --===//
//
// Part of cuda-opt. `cub-sort` on the compare-exchange kernel of a host loop
// nest that sorts with a bitonic network (Analysis/BitonicSort.h): the nest
// launches the kernel log2(n) * (log2(n) + 1) / 2 times, each launch reading
// and writing all n keys; CUB's radix sort reads and writes them a few
// times. The nest becomes
//
//   // cuda-opt cub-sort: ...
//   if (cudaoptBitonicSorts((long long)(n), dim3(grid), dim3(block)) &&
//       cudaoptSortKeys(d, (long long)(n), false) == cudaSuccess) {
//     // Sorted by CUB.
//   } else                               // (an else: no dangling else
//     for (k = 2; k <= n; k <<= 1)       // when the nest was an if's body)
//       ...                              // the original nest, unchanged
//
// The network sorts only when n is a power of two and the launch runs one
// thread per key along x; cudaoptBitonicSorts checks that for the values
// of this run, and otherwise (or when CUB cannot allocate its buffers) the
// original loops run as before. The helpers are Snippets/CubSort.cuh.
// Integer keys have one sorted arrangement: the same bits (allowed under
// --fp-model=strict). Floating-point keys do not (NaN compares false with
// everything, -0 equals +0, and the radix sort orders both): only under
// --fp-model=fast.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/BitonicSort.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Support/Refusal.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

// The text is lib/Transforms/Snippets/CubSort.cuh.
constexpr llvm::StringLiteral CubSortHelpers = "\n"
#include "Snippets/CubSort.cuh.inc"
    ;

namespace {

struct CubSortPlan : TransformPlan {
  std::vector<std::pair<CharSourceRange, std::string>> Edits;
};

/// The nests that launch \p T's kernel, or why there are none.
Expected<std::vector<BitonicSort>> nestsOf(const KernelTarget &T) {
  std::vector<KernelInfo> Kernels = findKernels(T.Ctx);
  int Index = -1;
  for (unsigned I = 0; I < Kernels.size(); ++I)
    if (Kernels[I].Decl == T.Kernel.Decl)
      Index = I;
  std::string Why;
  std::vector<BitonicSort> Nests =
      findBitonicSortsOf(T.Ctx, Index, Kernels, Why);
  if (Nests.empty()) {
    if (Why.empty())
      return refuse("it is never launched from host code");
    // The pipeline names the kernel already.
    StringRef Rest(Why);
    std::string Name = "kernel '" + T.Kernel.name() + "'";
    if (Rest.consume_front(Name + ": "))
      return refuse(Rest);
    if (Rest.consume_front(Name + " "))
      return refuse("it " + Rest);
    return refuse(Why);
  }
  return Nests;
}

/// \p Text with every line after the first indented by \p Indent more.
std::string indentLines(StringRef Text, StringRef Indent) {
  std::string Out;
  SmallVector<StringRef, 16> Lines;
  Text.split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (I)
      Out += "\n" + (Lines[I].empty() ? std::string() : Indent.str());
    Out += Lines[I].str();
  }
  return Out;
}

class CubSort : public TransformWithPlan<CubSortPlan> {
public:
  StringRef getName() const override { return "cub-sort"; }
  StringRef getSummary() const override {
    return "replace a host loop nest that sorts with a bitonic network of "
           "this compare-exchange kernel (one launch per stage) with CUB's "
           "radix sort, the loops kept for sizes the network would not sort "
           "(host region rewrite; integer keys stay exact)";
  }
  bool replacesLaunch(const ParamValues &) const override { return true; }
  bool changesLaunchConfig(const ParamValues &) const override { return true; }
  bool rewritesHostRegion() const override { return true; }
  FpEffect fpEffect(const ParamValues &) const override {
    return FpEffect::Approximates;
  }
  /// Integer keys: one sorted arrangement, the same bits. A kernel of no
  /// sorting nest gets no rewrite at all: plan() says why, rather than the
  /// fp-model check.
  FpEffect fpEffectOn(const KernelTarget &T,
                      const ParamValues &P) const override {
    Expected<std::vector<BitonicSort>> N = nestsOf(T);
    if (!N) {
      consumeError(N.takeError());
      return FpEffect::Preserves;
    }
    return N->front().Element->isIntegerType() ? FpEffect::Preserves
                                               : FpEffect::Approximates;
  }

  Expected<CubSortPlan> makePlan(const KernelTarget &T,
                                 const ParamValues &) const override {
    Expected<std::vector<BitonicSort>> Nests = nestsOf(T);
    if (!Nests)
      return Nests.takeError();
    const SourceManager &SM = T.getSourceManager();
    CubSortPlan P;
    for (const BitonicSort &S : *Nests) {
      SourceLocation B = S.Nest->getBeginLoc(), E = S.Nest->getEndLoc();
      if (B.isMacroID() || E.isMacroID() || !SM.isWrittenInMainFile(B))
        return refuse("the loop nest at " + describeLocation(SM, B) +
                      " is not written out in the main file");
      std::string Indent(SM.getSpellingColumnNumber(B) - 1, ' ');
      auto Text = [&](const Expr *X) {
        return sourceText(T.Ctx, X->getSourceRange());
      };
      std::string N = "(long long)(" + Text(S.Count) + ")";
      std::string Nest = sourceText(T.Ctx, S.Nest->getSourceRange());
      std::string Order = S.Descending ? "descending" : "ascending";
      std::string New =
          "// cuda-opt cub-sort: these loops sort " +
          S.Keys->getNameAsString() + "[0, " + Text(S.Count) + ") " + Order +
          " with a bitonic\n" + Indent + "// network, one launch of " +
          T.Kernel.name() + " per stage; CUB's radix sort gives the same\n" +
          Indent + "// keys. The loops still run when " + Text(S.Count) +
          " is not a power of two or the grid\n" + Indent +
          "// is not one thread per key (the network would not sort).\n" +
          Indent + "if (cudaoptBitonicSorts(" + N + ", dim3(" + Text(S.Grid) +
          "), dim3(" + Text(S.Block) + ")" +
          (S.Guard ? ", (long long)(" + Text(S.Guard) + ")" : std::string()) +
          ") &&\n" + Indent + "    cudaoptSortKeys(" +
          S.Keys->getNameAsString() + ", " + N + ", " +
          (S.Descending ? "true" : "false") + ") == cudaSuccess) {\n" + Indent +
          (S.Synchronizes
               ? "  // Synchronised as the loops did after each stage.\n" +
                     Indent + "  cudaDeviceSynchronize();\n"
               : "  // Sorted by CUB.\n") +
          Indent + "} else\n" + Indent + "  " + indentLines(Nest, "  ");
      P.Edits.push_back(
          {CharSourceRange::getTokenRange(S.Nest->getSourceRange()), New});
      P.Notes.push_back("cub-sort: the loops at " + describeLocation(SM, B) +
                        " call cub::DeviceRadixSort::SortKeys" +
                        (S.Descending ? "Descending" : "") +
                        " when the network would sort");
    }
    return P;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const CubSortPlan &P) const override {
    std::vector<HostAddition> Add = {
        {HostAddition::Include, "cub/device/device_radix_sort.cuh",
         "#include <cub/device/device_radix_sort.cuh>\n"},
        {HostAddition::Function, "cudaoptBitonicSorts", CubSortHelpers.str()}};
    return libraryCallReplacements(T.Ctx, P.Edits, Add);
  }
};

} // namespace

std::unique_ptr<Transform> createCubSortTransform() {
  return std::make_unique<CubSort>();
}

} // namespace cuda_opt
