//===- BlockReduce.cpp - Fold a reduction per block with warp shuffles ----===//
//
// Part of cuda-opt.
//
// block-reduce{items=F} rewrites a kernel whose only effect is a reduction
// into one grid-uniform target (lib/Analysis/BlockReduction.h: one atomic
// per element, the classic shared-memory tree, or a grid-stride loop) into
//
//   T acc = identity;
//   for (int c = 0; c < F; ++c) {                   // block-cyclic, coalesced
//     int i = (blockIdx.x * F + c) * blockDim.x + threadIdx.x;
//     if (i < n) acc = acc OP e(i);
//   }
//   acc = cudaOptBlockSum(acc);                      // warp shuffles
//   if (threadIdx.x == 0) atomicAdd(target, acc);    // one update per block
//
// and divides every launch's grid by F, rounding up (the grid-stride form
// keeps its loop and its grid). Block b of the new grid folds the elements
// of old blocks b*F .. b*F+F-1, so the same elements reach the target,
// combined in another order: exact for integers and min/max, reassociated
// for floating-point sums and products.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/BlockReduction.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"
#include "cuda-opt/Transforms/Utils/SourceEdits.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RawCommentList.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

struct BlockReducePlan : TransformPlan {
  BlockReduction R;
  int64_t Items = 8;
};

/// cudaOptBlockSum, cudaOptBlockMax, ...
std::string helperName(CombineOp Op) {
  switch (Op) {
  case CombineOp::Sum: return "cudaOptBlockSum";
  case CombineOp::Product: return "cudaOptBlockProduct";
  case CombineOp::Max: return "cudaOptBlockMax";
  case CombineOp::Min: return "cudaOptBlockMin";
  case CombineOp::And: return "cudaOptBlockAnd";
  case CombineOp::Or: return "cudaOptBlockOr";
  case CombineOp::Xor: return "cudaOptBlockXor";
  }
  return "";
}

/// The block reduction helper for \p Op on \p T.
std::string helperText(ASTContext &Ctx, CombineOp Op, QualType T) {
  std::string Ty = typeText(Ctx, T);
  std::string Name = helperName(Op);
  std::string Combine = combineText(Ctx, Op, T, "V", "Other");
  return "/// Added by cuda-opt block-reduce: the " + combineOpName(Op).str() +
         " of V over the threads\n/// of a 1-D block, valid in thread 0: "
         "warp shuffles, one shared slot per\n/// warp, then the first warp. "
         "Every thread of the block must call it.\n"
         "static __device__ __forceinline__ " + Ty + " " + Name + "(" + Ty +
         " V) {\n"
         "  __shared__ " + Ty + " WarpResult[32];\n" +
         warpLanesText() +
         "  for (unsigned Offset = 16; Offset > 0; Offset >>= 1) {\n"
         "    " + Ty + " Other = __shfl_down_sync(Mask, V, Offset);\n"
         "    if (Lane + Offset < Width)\n"
         "      V = " + Combine + ";\n"
         "  }\n"
         "  if (Warps == 1)\n"
         "    return V;\n"
         "  if (Lane == 0)\n"
         "    WarpResult[Warp] = V;\n"
         "  __syncthreads();\n"
         "  if (Warp == 0) {\n"
         "    V = WarpResult[Lane < Warps ? Lane : 0];\n"
         "    for (unsigned Offset = 16; Offset > 0; Offset >>= 1) {\n"
         "      " + Ty + " Other = __shfl_down_sync(0xffffffffu, V, Offset);\n"
         "      if (Lane + Offset < Warps)\n"
         "        V = " + Combine + ";\n"
         "    }\n"
         "  }\n"
         "  return V;\n"
         "}\n\n";
}

/// Where text that must precede the kernel goes: before its declaration
/// (its template header) and the comment above it.
SourceLocation beforeKernel(const KernelTarget &T) {
  const Decl *D = T.Kernel.Template ? static_cast<const Decl *>(T.Kernel.Template)
                                    : T.Kernel.Decl;
  return insertionPointBefore(T.Ctx, D);
}

/// A replacement deleting \p Range, with its line when nothing else is on
/// it.
tooling::Replacement wholeLines(const SourceManager &SM,
                                CharSourceRange Range) {
  FileID File = SM.getFileID(Range.getBegin());
  StringRef Text = SM.getBufferData(File);
  unsigned B = SM.getFileOffset(Range.getBegin());
  unsigned E = SM.getFileOffset(Range.getEnd());
  unsigned LB = B, LE = E;
  while (LB > 0 && (Text[LB - 1] == ' ' || Text[LB - 1] == '\t'))
    --LB;
  while (LE < Text.size() && (Text[LE] == ' ' || Text[LE] == '\t'))
    ++LE;
  bool LineStart = LB == 0 || Text[LB - 1] == '\n';
  bool LineEnd = LE < Text.size() && Text[LE] == '\n';
  if (LineStart && LineEnd)
    return tooling::Replacement(Text.empty() ? "" : SM.getFilename(Range.getBegin()),
                                LB, LE + 1 - LB, "");
  return tooling::Replacement(SM.getFilename(Range.getBegin()), B, E - B, "");
}

/// `acc = acc OP v` for the update \p U, as the statement replacing it.
std::string accumulateText(const KernelTarget &T, const BlockReduction &R,
                           StringRef Acc) {
  const AtomicUpdate &U = R.Update;
  std::string V;
  if (U.IncrementsByOne) {
    V = "1";
  } else {
    V = sourceText(T.Ctx, U.Value->getSourceRange());
    QualType VT = U.Value->IgnoreParenImpCasts()->getType();
    // `acc += v` converts v as the atomic did, except between float types
    // and for max/min, whose overloads need one type.
    bool Integers = VT->isIntegerType() && R.Type->isIntegerType() &&
                    R.Op != CombineOp::Max && R.Op != CombineOp::Min;
    if (!Integers && !T.Ctx.hasSameUnqualifiedType(VT, R.Type))
      V = "static_cast<" + typeText(T.Ctx, R.Type) + ">(" + V + ")";
  }
  switch (R.Op) {
  case CombineOp::Sum: return (Acc + " += " + V).str();
  case CombineOp::Product: return (Acc + " *= " + V).str();
  case CombineOp::And: return (Acc + " &= " + V).str();
  case CombineOp::Or: return (Acc + " |= " + V).str();
  case CombineOp::Xor: return (Acc + " ^= " + V).str();
  case CombineOp::Max:
  case CombineOp::Min:
    return (Acc + " = " + combineText(T.Ctx, R.Op, R.Type, Acc, V)).str();
  }
  return "";
}

/// The block's combined update of the target, issued by thread 0.
std::string finalUpdateText(const KernelTarget &T, const BlockReduction &R,
                            StringRef Acc) {
  const AtomicUpdate &U = R.Update;
  std::string Callee =
      U.IncrementsByOne
          ? std::string("atomicAdd")
          : sourceText(T.Ctx, U.Call->getCallee()->getSourceRange());
  return Acc.str() + " = " + helperName(R.Op) + "(" + Acc.str() + ");\n" +
         "if (threadIdx.x == 0)\n  " + Callee + "(" +
         sourceText(T.Ctx, U.Address->getSourceRange()) + ", " + Acc.str() +
         ");";
}

class BlockReduce : public TransformWithPlan<BlockReducePlan> {
public:
  StringRef getName() const override { return "block-reduce"; }
  StringRef getSummary() const override {
    return "fold a reduction into one target per block with warp shuffles, "
           "several elements per thread, one atomic per block";
  }
  bool changesLaunchConfig(const ParamValues &P) const override {
    return P.get("items") > 1;
  }
  FpEffect fpEffect(const ParamValues &) const override {
    return FpEffect::Reassociates;
  }
  FpEffect fpEffectOn(const KernelTarget &T,
                      const ParamValues &P) const override {
    Expected<BlockReduction> R = analyzeBlockReduction(T.Ctx, T.Kernel);
    if (!R) {
      consumeError(R.takeError());
      return fpEffect(P); // plan() will say why it refuses
    }
    return isExactInAnyOrder(R->Op, R->Type) ? FpEffect::Preserves
                                             : FpEffect::Reassociates;
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"items", 8, 1, 64,
         "elements each thread folds before the block combines (the grid "
         "shrinks by this factor)",
         /*PowerOfTwo=*/true,
         {1, 4, 8, 16, 32, 64}},
    };
    return Specs;
  }

  Expected<BlockReducePlan> makePlan(const KernelTarget &T,
                                     const ParamValues &P) const override {
    Expected<BlockReduction> R = analyzeBlockReduction(T.Ctx, T.Kernel);
    if (!R)
      return R.takeError();
    BlockReducePlan Plan;
    Plan.R = std::move(*R);
    Plan.Items = P.get("items");
    if (Plan.R.Form == BlockReduction::Shape::GridStride && Plan.Items != 1)
      Plan.Notes.push_back("kernel '" + T.Kernel.name() +
                           "' already loops over the grid; items=" +
                           std::to_string(Plan.Items) +
                           " is not used and the launches keep their grid");
    if (Plan.R.Form == BlockReduction::Shape::SharedTree)
      Plan.Notes.push_back("kernel '" + T.Kernel.name() +
                           "': the shared-memory tree became warp shuffles");
    // The new grid must still be expressible at every launch.
    if (Plan.R.Form != BlockReduction::Shape::GridStride && Plan.Items > 1) {
      tooling::Replacements Probe;
      for (const LaunchSite &L : T.Kernel.Launches)
        if (Error E = rewriteGridX(
                T.Ctx, L, [](StringRef G) { return G.str(); }, Probe))
          return std::move(E);
    }
    return Plan;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const BlockReducePlan &Plan) const override {
    const BlockReduction &R = Plan.R;
    const SourceManager &SM = T.getSourceManager();
    const LangOptions &LO = T.Ctx.getLangOpts();
    tooling::Replacements Out;
    std::string Acc = freshName(T.Kernel.Decl, "acc");
    std::string Ty = typeText(T.Ctx, R.Type);
    int64_t F = R.Form == BlockReduction::Shape::GridStride ? 1 : Plan.Items;
    std::string Comment =
        "// cuda-opt block-reduce" +
        (F > 1 ? "{items=" + std::to_string(F) + "}" : std::string()) +
        ": each thread folds " +
        (R.Form == BlockReduction::Shape::GridStride
             ? std::string("its elements")
             : F > 1 ? std::to_string(F) + " elements" : "its element") +
        " into '" + Acc + "';\n// the block combines the threads' values "
        "with warp shuffles and updates\n// the target once.\n";
    std::string Decl = Comment + Ty + " " + Acc + " = " + R.Identity + ";\n";
    std::string Final = "\n" + finalUpdateText(T, R, Acc);

    if (R.Form == BlockReduction::Shape::GridStride) {
      // Keep the loop; accumulate instead of updating the target.
      if (Error E = Out.add(tooling::Replacement(
              SM, CharSourceRange::getTokenRange(R.Update.Call->getSourceRange()),
              accumulateText(T, R, Acc), LO)))
        return std::move(E);
      if (Error E = Out.add(tooling::Replacement(
              SM, SM.getExpansionLoc(R.Loop->getBeginLoc()), 0, Decl)))
        return std::move(E);
      SourceLocation End = Lexer::getLocForEndOfToken(
          SM.getExpansionLoc(stmtEnd(T.Ctx, R.Loop->getBody())), 0, SM, LO);
      if (Error E = Out.add(tooling::Replacement(SM, End, 0, Final)))
        return std::move(E);
    } else {
      const MappedIndex &I = R.Mapping.x();
      std::string IType = indexTypeText(T.Ctx, I.Var);
      std::string Counter = freshName(T.Kernel.Decl, "c", {Acc});
      std::string Block = isWideIndex(T.Ctx, I.Var)
                              ? "static_cast<" + IType + ">(blockIdx.x)"
                              : std::string("blockIdx.x");
      std::string Index = (I.Var->getType().isConstQualified() ? "const " : "") +
                          IType + " " + I.Var->getNameAsString() + " = (" +
                          Block + " * " + std::to_string(F) + " + " + Counter +
                          ") * blockDim.x + threadIdx.x;\n";
      std::string Work;
      if (R.Form == BlockReduction::Shape::SharedTree) {
        // The element, folded into the accumulator.
        std::string E = sourceText(T.Ctx, R.Element->getSourceRange());
        QualType ET = R.Element->IgnoreParenImpCasts()->getType();
        if (!T.Ctx.hasSameUnqualifiedType(ET, R.Type))
          E = "static_cast<" + Ty + ">(" + E + ")";
        std::string Upd;
        switch (R.Op) {
        case CombineOp::Sum: Upd = Acc + " += " + E; break;
        case CombineOp::Product: Upd = Acc + " *= " + E; break;
        case CombineOp::And: Upd = Acc + " &= " + E; break;
        case CombineOp::Or: Upd = Acc + " |= " + E; break;
        case CombineOp::Xor: Upd = Acc + " ^= " + E; break;
        default:
          Upd = Acc + " = " + combineText(T.Ctx, R.Op, R.Type, Acc, E);
        }
        Work = "if (" + I.Var->getNameAsString() + " < " +
               parenthesizedText(T.Ctx, I.Bound) + ")\n  " + Upd + ";";
        // The shared array and the index go (`__shared__` is a macro, so
        // the range is the file text the declaration was written as).
        for (const Stmt *S : R.Removed) {
          CharSourceRange Range = Lexer::makeFileCharRange(
              CharSourceRange::getTokenRange(S->getSourceRange()), SM, LO);
          if (Range.isInvalid())
            return refuse("the declaration at " +
                          describeLocation(SM, S->getBeginLoc()) +
                          " has no contiguous source text");
          if (Error E = Out.add(wholeLines(SM, Range)))
            return std::move(E);
        }
      } else {
        const ThreadMapping &M = R.Mapping;
        std::vector<std::pair<SourceRange, std::string>> Edits;
        if (Error E = guardReturnsToContinue(T.Ctx, M, Edits))
          return std::move(E);
        Edits.emplace_back(R.Update.Call->getSourceRange(),
                           accumulateText(T, R, Acc));
        Expected<std::string> W = textWithEdits(
            T.Ctx, SourceRange(M.Guard->getBeginLoc(), M.Region.getEnd()),
            Edits);
        if (!W)
          return W.takeError();
        Work = *W;
      }
      std::string Loop = Decl + (F > 1 ? "#pragma unroll\n" : "") + "for (int " +
                         Counter + " = 0; " + Counter + " < " +
                         std::to_string(F) + "; ++" + Counter + ") {\n" +
                         Index + Work + "\n}" + Final;
      SourceRange Region = R.Mapping.Region;
      if (Error E = Out.add(tooling::Replacement(
              SM, CharSourceRange::getTokenRange(Region), Loop, LO)))
        return std::move(E);
      if (F > 1)
        for (const LaunchSite &L : T.Kernel.Launches)
          if (Error E = rewriteGridX(
                  T.Ctx, L, [&](StringRef G) { return ceilDivText(G, F); },
                  Out))
            return std::move(E);
    }

    // The helper, once per file and type, before the kernel.
    if (Error E = addHelper(T, R, Out))
      return std::move(E);
    return Out;
  }

  Error addHelper(const KernelTarget &T, const BlockReduction &R,
                  tooling::Replacements &Out) const {
    const SourceManager &SM = T.getSourceManager();
    std::string Name = helperName(R.Op);
    SourceLocation At = beforeKernel(T);
    for (const Decl *D : T.Ctx.getTranslationUnitDecl()->decls()) {
      const auto *FD = dyn_cast<FunctionDecl>(D);
      if (!FD || !FD->getDeclName().isIdentifier() || FD->getName() != Name ||
          FD->getNumParams() != 1 ||
          !T.Ctx.hasSameUnqualifiedType(FD->getParamDecl(0)->getType(),
                                        R.Type))
        continue;
      if (SM.isBeforeInTranslationUnit(SM.getExpansionLoc(FD->getBeginLoc()),
                                       At))
        return Error::success();
      std::string Ty = typeText(T.Ctx, R.Type);
      return Out.add(tooling::Replacement(
          SM, At, 0,
          "static __device__ __forceinline__ " + Ty + " " + Name + "(" + Ty +
              " V);\n\n"));
    }
    return Out.add(
        tooling::Replacement(SM, At, 0, helperText(T.Ctx, R.Op, R.Type)));
  }
};

} // namespace

std::unique_ptr<Transform> createBlockReduceTransform() {
  return std::make_unique<BlockReduce>();
}
} // namespace cuda_opt
