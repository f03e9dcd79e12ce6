//===- PrivatizeAtomics.cpp - Per-block copies of atomically updated bins -===//
//
// Part of cuda-opt.
//
// privatize-atomics{copies=C,items=F} rewrites a one-element-per-thread
// kernel whose effect is atomic updates `atomicAdd(&bins[idx], v)` at
// indices of a proven small range [0, B) (lib/Analysis/BinnedAtomics.h)
// into
//
//   __shared__ T binsShared[C][B];                  // zeroed (the identity)
//   __syncthreads();
//   for (int c = 0; c < F; ++c) {                   // F elements per thread
//     int i = (blockIdx.x * F + c) * blockDim.x + threadIdx.x;
//     if (i < n) atomicAdd(&binsShared[threadIdx.x % C][idx], v);
//   }
//   __syncthreads();
//   for (int b = threadIdx.x; b < B; b += blockDim.x)  // one flush per block
//     if (sum of the copies of b != 0) atomicAdd(&bins[b], sum);
//
// and divides every launch's grid by F. Each element still adds v to its
// bin once; only the grouping changes, which is exact for integers and
// min/max and reassociates float sums.
//
// When a kernel parameter bounds the indices (`if (v < nbins)`), B is known
// only at launch: the private copies hold `capacity` counters and the kernel
// takes the private path when `nbins <= capacity`, else the original global
// atomics (the test is uniform over the grid, so the barriers stay legal).
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/BinnedAtomics.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/SourceEdits.h"

#include "clang/AST/ASTContext.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// Static shared memory one block may declare.
constexpr int64_t SharedBudget = 48 * 1024;

struct PrivatizePlan : TransformPlan {
  BinnedAtomics B;
  int64_t Copies = 1;
  int64_t Items = 16;
  /// Counters per private copy: B, or `capacity` when B is a parameter.
  int64_t Bins = 0;
};

/// The atomic that flushes a block's total into the global array.
std::string flushCallee(const ASTContext &Ctx, const BinnedAtomics &B) {
  const AtomicUpdate &U = B.Updates.front();
  if (U.Helper)
    return U.Helper->getNameAsString();
  switch (B.Op) {
  case CombineOp::Sum: return "atomicAdd";
  case CombineOp::Max: return "atomicMax";
  case CombineOp::Min: return "atomicMin";
  case CombineOp::And: return "atomicAnd";
  case CombineOp::Or: return "atomicOr";
  case CombineOp::Xor: return "atomicXor";
  case CombineOp::Product: break;
  }
  return "";
}

class PrivatizeAtomics : public TransformWithPlan<PrivatizePlan> {
public:
  StringRef getName() const override { return "privatize-atomics"; }
  StringRef getSummary() const override {
    return "atomics into a small array go to per-block shared-memory copies, "
           "flushed once per block; several elements per thread";
  }
  bool changesLaunchConfig(const ParamValues &P) const override {
    return P.get("items") > 1;
  }
  FpEffect fpEffect(const ParamValues &) const override {
    return FpEffect::Reassociates;
  }
  FpEffect fpEffectOn(const KernelTarget &T,
                      const ParamValues &P) const override {
    Expected<BinnedAtomics> B = analyzeBinnedAtomics(T.Ctx, T.Kernel, 1 << 14);
    if (!B) {
      consumeError(B.takeError());
      return fpEffect(P);
    }
    return isExactInAnyOrder(B->Op, B->Type) ? FpEffect::Preserves
                                             : FpEffect::Reassociates;
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"copies", 1, 1, 4,
         "private copies per block; thread t updates copy t % copies "
         "(fewer same-address collisions within a warp)",
         /*PowerOfTwo=*/true,
         {1, 2, 4}},
        {"items", 16, 1, 64,
         "elements per thread (the grid shrinks by this factor, so each "
         "block's flush is shared by more elements)",
         /*PowerOfTwo=*/true,
         {4, 16, 64}},
        {"capacity", 4096, 64, 8192,
         "counters per private copy when a kernel parameter bounds the bins "
         "(`if (v < nbins)`); a launch with more bins keeps the global "
         "atomics. Unused when a constant bounds them",
         /*PowerOfTwo=*/true,
         {1024, 4096}},
    };
    return Specs;
  }

  Expected<PrivatizePlan> makePlan(const KernelTarget &T,
                                   const ParamValues &P) const override {
    Expected<BinnedAtomics> B = analyzeBinnedAtomics(T.Ctx, T.Kernel, 1 << 14);
    if (!B)
      return B.takeError();
    PrivatizePlan Plan;
    Plan.B = std::move(*B);
    Plan.Copies = P.get("copies");
    Plan.Items = P.get("items");
    Plan.Bins = Plan.B.BinsParam ? P.get("capacity") : Plan.B.Bins;
    int64_t Stride = Plan.Bins + (Plan.Copies > 1 ? 1 : 0);
    int64_t Bytes = Plan.Copies * Stride *
                    int64_t(T.Ctx.getTypeSizeInChars(Plan.B.Type).getQuantity());
    if (Bytes > SharedBudget)
      return refuse(Twine(Plan.Copies).str() + " private copies of " +
                    Twine(Plan.Bins).str() + " counters need " +
                    Twine(Bytes).str() + " bytes of shared memory, more than "
                    "the " + Twine(SharedBudget).str() +
                    " a block may declare statically");
    if (Plan.Items > 1) {
      tooling::Replacements Probe;
      for (const LaunchSite &L : T.Kernel.Launches)
        if (Error E = rewriteGridX(
                T.Ctx, L, [](StringRef G) { return G.str(); }, Probe))
          return std::move(E);
    }
    return Plan;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const PrivatizePlan &Plan) const override {
    const BinnedAtomics &B = Plan.B;
    const ThreadMapping &M = B.Mapping;
    const SourceManager &SM = T.getSourceManager();
    const LangOptions &LO = T.Ctx.getLangOpts();
    int64_t C = Plan.Copies, F = Plan.Items;
    int64_t Stride = Plan.Bins + (C > 1 ? 1 : 0);
    std::string Ty = typeText(T.Ctx, B.Type);
    std::string Arr = B.Array->getNameAsString();
    std::string Priv = freshName(T.Kernel.Decl, Arr + "Shared");
    std::string Counter = freshName(T.Kernel.Decl, "c", {Priv});
    std::string Bin = freshName(T.Kernel.Decl, "b", {Priv, Counter});
    std::string Sum = freshName(T.Kernel.Decl, "total", {Priv, Counter, Bin});
    std::string Ident = *identityText(T.Ctx, B.Op, B.Type);
    std::string Copy = C > 1 ? "threadIdx.x % " + std::to_string(C) : "0";
    // The bins to flush: the constant bound, or the parameter.
    std::string NB = B.BinsParam ? B.BinsParam->getNameAsString()
                                 : std::to_string(B.Bins);
    std::string Range = B.BinsParam ? "[0.." + NB + "-1]"
                                    : "[0.." + std::to_string(B.Bins - 1) + "]";

    std::string Head =
        "// cuda-opt privatize-atomics{copies=" + std::to_string(C) +
        ",items=" + std::to_string(F) +
        (B.BinsParam ? ",capacity=" + std::to_string(Plan.Bins) : "") +
        "}:\n// the block's atomics go to " +
        (C > 1 ? std::to_string(C) + " private copies" : "a private copy") +
        " of '" + Arr + Range +
        "'\n// in shared memory; each changed counter is folded into '" + Arr +
        "'\n// once at the end." +
        (B.BinsParam ? "\n// Launches with more than " +
                           std::to_string(Plan.Bins) + " bins ('" + NB +
                           "') keep the global atomics."
                     : "") +
        (C > 1 ? "\n// Thread t uses copy t % " + std::to_string(C) +
                     "; each copy is padded by one counter\n// so that a "
                     "bin's copies sit in different banks."
               : std::string()) +
        "\n__shared__ " + Ty + " " + Priv + "[" + std::to_string(C) + "][" +
        std::to_string(Stride) + "];\n" + "for (int " + Bin +
        " = threadIdx.x; " + Bin + " < " + std::to_string(C * Stride) + "; " +
        Bin + " += blockDim.x)\n  (&" + Priv + "[0][0])[" + Bin + "] = " +
        Ident + ";\n__syncthreads();\n";

    // The per-element work, its updates aimed at the private copy.
    std::vector<std::pair<SourceRange, std::string>> Edits;
    if (Error E = guardReturnsToContinue(T.Ctx, M, Edits))
      return std::move(E);
    // The original per-element work, for launches over a run-time capacity.
    std::string GlobalWork;
    if (B.BinsParam) {
      Expected<std::string> Text = textWithEdits(
          T.Ctx, SourceRange(M.Guard->getBeginLoc(), M.Region.getEnd()), Edits);
      if (!Text)
        return Text.takeError();
      GlobalWork = std::move(*Text);
    }
    for (size_t K = 0; K < B.Updates.size(); ++K)
      Edits.emplace_back(
          B.Updates[K].Address->getSourceRange(),
          "&" + Priv + "[" + Copy + "][" +
              sourceText(T.Ctx, B.Indices[K]->getSourceRange()) + "]");
    Expected<std::string> Work = textWithEdits(
        T.Ctx, SourceRange(M.Guard->getBeginLoc(), M.Region.getEnd()), Edits);
    if (!Work)
      return Work.takeError();

    const MappedIndex &I = M.x();
    std::string IType = indexTypeText(T.Ctx, I.Var);
    std::string Block = isWideIndex(T.Ctx, I.Var)
                            ? "static_cast<" + IType + ">(blockIdx.x)"
                            : std::string("blockIdx.x");
    std::string Index = (I.Var->getType().isConstQualified() ? "const " : "") +
                        IType + " " + I.Var->getNameAsString() + " = (" +
                        Block + " * " + std::to_string(F) + " + " + Counter +
                        ") * blockDim.x + threadIdx.x;\n";
    auto ElementLoop = [&](StringRef Body) {
      return "for (int " + Counter + " = 0; " + Counter + " < " +
             std::to_string(F) + "; ++" + Counter + ") {\n" + Index +
             Body.str() + "\n}\n";
    };
    std::string Loop = ElementLoop(*Work);

    std::string Total = Priv + "[0][" + Bin + "]";
    for (int64_t K = 1; K < C; ++K)
      Total = combineText(T.Ctx, B.Op, B.Type, Total,
                          Priv + "[" + std::to_string(K) + "][" + Bin + "]");
    std::string Flush =
        "__syncthreads();\n// One update of '" + Arr +
        "' per changed counter.\nfor (int " + Bin + " = threadIdx.x; " + Bin +
        " < " + NB + "; " + Bin + " += blockDim.x) {\n" + Ty + " " + Sum +
        " = " + Total + ";\nif (" + Sum + " != " + Ident + ")\n  " +
        flushCallee(T.Ctx, B) + "(&" + Arr + "[" + Bin + "], " + Sum +
        ");\n}";

    std::string Text = Head + Loop + Flush;
    if (B.BinsParam)
      Text = "if (" + NB + " <= " + std::to_string(Plan.Bins) + ") {\n" +
             Text + "\n} else {\n" + ElementLoop(GlobalWork) + "}";
    tooling::Replacements Out;
    if (Error E = Out.add(tooling::Replacement(
            SM, CharSourceRange::getTokenRange(M.Region), Text, LO)))
      return std::move(E);
    if (F > 1)
      for (const LaunchSite &L : T.Kernel.Launches)
        if (Error E = rewriteGridX(
                T.Ctx, L, [&](StringRef G) { return ceilDivText(G, F); }, Out))
          return std::move(E);
    return Out;
  }
};

} // namespace

std::unique_ptr<Transform> createPrivatizeAtomicsTransform() {
  return std::make_unique<PrivatizeAtomics>();
}
} // namespace cuda_opt
