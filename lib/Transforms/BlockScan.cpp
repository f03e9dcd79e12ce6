//===- BlockScan.cpp - Block-wide prefix sums with warp shuffles ----------===//
//
// Part of cuda-opt.
//
// block-scan rewrites the textbook shared-memory prefix sum of a 1-D block
// (lib/Analysis/SharedScan.h: log2(blockDim.x) rounds, each with two
// barriers and every thread reading and writing shared memory)
//
//   for (int d = 1; d < blockDim.x; d *= 2) {
//     int v = 0;
//     if (tid >= d) v = temp[tid - d];
//     __syncthreads();
//     temp[tid] += v;
//     __syncthreads();
//   }
//
// into a scan with warp shuffles: five shuffle steps within each warp, one
// shared slot per warp for its total, a scan of the totals by the first
// warp, two barriers in all:
//
//   if (blockDim.y == 1 && blockDim.z == 1) {
//     __syncthreads();
//     temp[tid] = cudaOptBlockScanSum(temp[tid]);
//     __syncthreads();
//   } else {
//     ... the original loop ...
//   }
//
// Every slot ends with the same prefix sum: exact for integers (addition
// modulo 2^N in any order), reassociated for floating point. A block that
// is not 1-D (threads with the same threadIdx.x) keeps the original loop.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/SharedScan.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"
#include "cuda-opt/Transforms/Utils/SourceEdits.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

constexpr llvm::StringLiteral HelperName = "cudaOptBlockScanSum";

/// The block scan helper for elements of type \p Ty.
std::string helperText(StringRef Ty) {
  std::string T = Ty.str();
  return "/// Added by cuda-opt block-scan: the inclusive prefix sum of V over "
         "the threads\n/// of a 1-D block, in threadIdx.x order: warp "
         "shuffles, one shared slot per\n/// warp for its total, then the "
         "first warp scans the totals. Every thread\n/// of the block must "
         "call it; the caller puts a barrier before the next call.\n"
         "static __device__ __forceinline__ " + T + " " + HelperName.str() +
         "(" + T + " V) {\n"
         "  __shared__ " + T + " WarpTotal[32];\n" +
         warpLanesText() +
         "  for (unsigned Offset = 1; Offset < 32; Offset <<= 1) {\n"
         "    " + T + " Lower = __shfl_up_sync(Mask, V, Offset);\n"
         "    if (Lane >= Offset)\n"
         "      V += Lower;\n"
         "  }\n"
         "  if (Warps == 1)\n"
         "    return V;\n"
         "  if (Lane == Width - 1)\n"
         "    WarpTotal[Warp] = V;\n"
         "  __syncthreads();\n"
         "  if (Warp == 0) {\n"
         "    // More than one warp: the first one is whole.\n"
         "    " + T + " Total = Lane < Warps ? WarpTotal[Lane] : " + T + "(0);\n"
         "    for (unsigned Offset = 1; Offset < 32; Offset <<= 1) {\n"
         "      " + T + " Lower = __shfl_up_sync(0xffffffffu, Total, Offset);\n"
         "      if (Lane >= Offset)\n"
         "        Total += Lower;\n"
         "    }\n"
         "    if (Lane < Warps)\n"
         "      WarpTotal[Lane] = Total;\n"
         "  }\n"
         "  __syncthreads();\n"
         "  if (Warp > 0)\n"
         "    V += WarpTotal[Warp - 1];\n"
         "  return V;\n"
         "}\n\n";
}

struct BlockScanPlan : TransformPlan {
  std::vector<SharedScan> Scans;
};

class BlockScan : public TransformWithPlan<BlockScanPlan> {
public:
  StringRef getName() const override { return "block-scan"; }
  StringRef getSummary() const override {
    return "replace a shared-memory prefix sum over a 1-D block "
           "(Hillis-Steele, two barriers per step) with warp shuffles and "
           "two barriers";
  }
  bool isKernelLocal() const override { return true; }
  FpEffect fpEffect(const ParamValues &) const override {
    return FpEffect::Reassociates;
  }
  FpEffect fpEffectOn(const KernelTarget &T,
                      const ParamValues &P) const override {
    Expected<std::vector<SharedScan>> S = analyzeSharedScans(T.Ctx, T.Kernel);
    if (!S) {
      consumeError(S.takeError());
      return fpEffect(P); // plan() says why it refuses
    }
    for (const SharedScan &Scan : *S)
      if (!Scan.Element->isIntegerType())
        return FpEffect::Reassociates;
    return FpEffect::Preserves;
  }

  Expected<BlockScanPlan> makePlan(const KernelTarget &T,
                                   const ParamValues &) const override {
    Expected<std::vector<SharedScan>> S = analyzeSharedScans(T.Ctx, T.Kernel);
    if (!S)
      return S.takeError();
    BlockScanPlan Plan;
    for (const SharedScan &Scan : *S) {
      if (Scan.Element->isBooleanType())
        return refuse("kernel '" + T.Kernel.name() +
                      "' scans a bool array, which shuffles do not carry");
      Plan.Scans.push_back(Scan);
    }
    return Plan;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const BlockScanPlan &Plan) const override {
    const ASTContext &Ctx = T.Ctx;
    const SourceManager &SM = T.getSourceManager();
    tooling::Replacements Out;
    std::vector<std::string> Types;
    for (const SharedScan &S : Plan.Scans) {
      std::string A = S.Array->getNameAsString();
      std::string Slot = A + "[" + S.Tid + "]";
      std::string Loop = sourceText(Ctx, S.Loop->getSourceRange());
      std::string Text =
          "// cuda-opt block-scan: the prefix sum of '" + A +
          "' over the block with warp\n// shuffles; blocks that are not 1-D "
          "keep the loop it replaces.\nif (blockDim.y == 1 && blockDim.z == "
          "1) {\n__syncthreads();\n" + Slot + " = " + HelperName.str() + "(" +
          Slot + ");\n__syncthreads();\n} else {\n" + Loop + "\n}";
      if (Error E = Out.add(tooling::Replacement(
              SM, CharSourceRange::getTokenRange(S.Loop->getSourceRange()),
              Text, Ctx.getLangOpts())))
        return std::move(E);
      std::string Ty = typeText(Ctx, S.Element);
      if (!llvm::is_contained(Types, Ty))
        Types.push_back(Ty);
    }
    for (const std::string &Ty : Types)
      if (Error E = addHelper(T, Ty, Out))
        return std::move(E);
    return Out;
  }

private:
  /// The helper for \p Ty once per file, before the kernel (a declaration
  /// when an earlier rewrite put it after this kernel).
  Error addHelper(const KernelTarget &T, StringRef Ty,
                  tooling::Replacements &Out) const {
    const SourceManager &SM = T.getSourceManager();
    const Decl *K = T.Kernel.Template
                        ? static_cast<const Decl *>(T.Kernel.Template)
                        : T.Kernel.Decl;
    SourceLocation At = insertionPointBefore(T.Ctx, K);
    for (const Decl *D : T.Ctx.getTranslationUnitDecl()->decls()) {
      const auto *FD = dyn_cast<FunctionDecl>(D);
      if (!FD || !FD->getDeclName().isIdentifier() ||
          FD->getName() != HelperName || FD->getNumParams() != 1 ||
          typeText(T.Ctx, FD->getParamDecl(0)->getType()) != Ty)
        continue;
      if (SM.isBeforeInTranslationUnit(SM.getExpansionLoc(FD->getBeginLoc()),
                                       At))
        return Error::success();
      return Out.add(tooling::Replacement(
          SM, At, 0,
          "static __device__ __forceinline__ " + Ty.str() + " " +
              HelperName.str() + "(" + Ty.str() + " V);\n\n"));
    }
    return Out.add(tooling::Replacement(SM, At, 0, helperText(Ty)));
  }
};

} // namespace

std::unique_ptr<Transform> createBlockScanTransform() {
  return std::make_unique<BlockScan>();
}
} // namespace cuda_opt
