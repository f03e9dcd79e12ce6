//===- CubHistogram.cpp - Route a histogram kernel to CUB -----------------===//
//
// Part of cuda-opt. `cub-histogram` on a kernel that counts each element of
// [0, n) into a bin of a histogram with one global atomicAdd
// (Analysis/HistogramKernel.h): every launch becomes a call of
// cub::DeviceHistogram::HistogramEven, whose privatised, load-balanced
// counting is much faster than a global atomic per element:
//
//   {
//     // cuda-opt cub-histogram: ...
//     size_t cudaopt_hist_bytes = 0;
//     unsigned int *cudaopt_hist_counts = nullptr;
//     CK(cub::DeviceHistogram::HistogramEven(nullptr, cudaopt_hist_bytes,
//                                            data, cudaopt_hist_counts,
//                                            256 + 1, 0, 256, n));
//     ...scratch from the stream-ordered pool, the same call...
//     cudaoptAddCounts<<<...>>>(bins, cudaopt_hist_counts, 256, 1);
//     ...
//   }
//
// Exactness. HistogramEven counts a sample s into bin
// (s - lower) * bins / (upper - lower) when lower <= s < upper and drops it
// otherwise; with integer samples and levels 0 .. B (one level per bin)
// that is bin s for s in [0, B), computed in integers, so the counts are
// the original's exactly when the samples are the bins. Either the data
// are the bins (`bins[data[i]]`, 8- or 16-bit unsigned data, B = 256 or
// 65536), or the samples are a counting iterator transformed by a functor
// that runs the kernel's per-element work with the update replaced by
// `return bin;` and every other path returning -1 (dropped): the bin is
// proven in [0, B) wherever the update runs, and the functor has no
// effect, reads no thread index, and runs once per element. Floating-point
// data are therefore binned by the user's own expression, never by CUB's
// float scaling. The original adds to the counters in memory; CUB writes
// its output, so it counts into scratch counters that cudaoptAddCounts
// adds (times the update's constant or parameter weight) to the histogram,
// modulo 2^bits like the atomics. Integer counts: --fp-model=strict.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/HistogramKernel.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Support/Refusal.h"
#include "cuda-opt/Transforms/Passes.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"
#include "cuda-opt/Transforms/Utils/SourceEdits.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

// The text is lib/Transforms/Snippets/CubHistogram.cuh.
constexpr llvm::StringLiteral CubHistogramHelpers = "\n"
#include "Snippets/CubHistogram.cuh.inc"
    ;

namespace {

/// Whether the statement just before the launch \p Call zeroes at least
/// \p Bins counters of \p CounterBytes bytes of the histogram \p Hist
/// (`cudaMemset(bins, 0, bytes)`, in a check macro or not), so that CUB can
/// write its counts there. \p BinsArg: the launch's argument for the bin
/// count when a kernel parameter gives it, else \p Bins is the constant.
bool zeroedJustBefore(ASTContext &Ctx, const CUDAKernelCallExpr *Call,
                      const VarDecl *Hist, int64_t Bins, const Expr *BinsArg,
                      uint64_t CounterBytes) {
  if (!Hist)
    return false;
  DynTypedNodeList Parents = Ctx.getParents(*Call);
  const Stmt *Self = Call;
  while (Parents.size() == 1 && Parents[0].get<ExprWithCleanups>()) {
    Self = Parents[0].get<Stmt>();
    Parents = Ctx.getParents(*Self);
  }
  const auto *CS =
      Parents.size() == 1 ? Parents[0].get<CompoundStmt>() : nullptr;
  if (!CS)
    return false;
  const Stmt *Prev = nullptr;
  for (const Stmt *S : CS->body()) {
    if (S == Self)
      break;
    Prev = S;
  }
  if (!Prev)
    return false;
  class Calls : public RecursiveASTVisitor<Calls> {
  public:
    bool VisitCallExpr(CallExpr *CE) {
      const FunctionDecl *FD = CE->getDirectCallee();
      StringRef N = FD ? FD->getName() : "";
      if (N == "cudaMemset")
        Memset.push_back(CE);
      else if (N != "cudaGetErrorString" && N != "printf" &&
               N != "fprintf" && N != "exit" && N != "abort")
        Other = true;
      return true;
    }
    SmallVector<const CallExpr *, 1> Memset;
    bool Other = false;
  } C;
  C.TraverseStmt(const_cast<Stmt *>(Prev));
  if (C.Other || C.Memset.size() != 1 || C.Memset[0]->getNumArgs() != 3)
    return false;
  const CallExpr *M = C.Memset[0];
  const auto *P = dyn_cast<DeclRefExpr>(M->getArg(0)->IgnoreParenImpCasts());
  Expr::EvalResult Zero, Size;
  if (!P || P->getDecl() != Hist || !M->getArg(1)->EvaluateAsInt(Zero, Ctx) ||
      !Zero.Val.getInt().isZero())
    return false;
  const Expr *Bytes = M->getArg(2)->IgnoreParenImpCasts();
  if (!BinsArg)
    return Bytes->EvaluateAsInt(Size, Ctx) &&
           Size.Val.getInt().getLimitedValue() >=
               uint64_t(Bins) * CounterBytes;
  // bins * sizeof(T) in either order, bins the launch's own argument.
  const auto *Mul = dyn_cast<BinaryOperator>(Bytes);
  const auto *BinsVar = dyn_cast<DeclRefExpr>(BinsArg->IgnoreParenImpCasts());
  if (!Mul || Mul->getOpcode() != BO_Mul || !BinsVar)
    return false;
  for (auto [A, B] : {std::pair{Mul->getLHS(), Mul->getRHS()},
                      std::pair{Mul->getRHS(), Mul->getLHS()}}) {
    const auto *V = dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts());
    Expr::EvalResult SizeOf;
    if (V && V->getDecl() == BinsVar->getDecl() &&
        B->EvaluateAsInt(SizeOf, Ctx) &&
        SizeOf.Val.getInt().getLimitedValue() >= CounterBytes)
      return true;
  }
  return false;
}

struct CubHistogramPlan : TransformPlan {
  std::vector<std::pair<CharSourceRange, std::string>> Edits;
  /// The samples are a transformed counting iterator (thrust's iterators).
  bool Functor = false;
  /// Some launch counts into scratch counters (cudaoptAddCounts adds them).
  bool Scratch = false;
};

/// The functor that computes element i's bin (-1: none): the per-element
/// work of \p H with the update replaced by `return (long long)(bin);` and
/// the kernel's parameters other than the histogram as members.
Expected<std::string> binFunctor(const ASTContext &Ctx, const KernelInfo &K,
                                 const HistogramKernel &H,
                                 StringRef StructName) {
  const SourceManager &SM = Ctx.getSourceManager();
  const ThreadMapping &M = H.Binned.Mapping;
  SourceRange Body = bodyRange(Ctx, M);
  if (Body.getBegin().isMacroID() || Body.getEnd().isMacroID())
    return refuse("the per-element work is written inside a macro");
  unsigned Begin = SM.getFileOffset(Body.getBegin());
  unsigned End = SM.getFileOffset(
      Lexer::getLocForEndOfToken(Body.getEnd(), 0, SM, Ctx.getLangOpts()));
  StringRef File = SM.getBufferData(SM.getMainFileID());
  // Edits inside the work's text: (offset, length, new text).
  std::vector<std::tuple<unsigned, unsigned, std::string>> Edits;
  auto Replace = [&](SourceRange R, std::string New) -> Error {
    if (R.getBegin().isMacroID() || R.getEnd().isMacroID())
      return refuse("the statement at " +
                    describeLocation(SM, R.getBegin()) +
                    " is written inside a macro");
    unsigned B = SM.getFileOffset(R.getBegin());
    unsigned E = SM.getFileOffset(Lexer::getLocForEndOfToken(
        R.getEnd(), 0, SM, Ctx.getLangOpts()));
    Edits.emplace_back(B, E - B, std::move(New));
    return Error::success();
  };
  // `(void)atomicAdd(...)`: the whole cast goes.
  SourceRange Update = H.UpdateStmt->getSourceRange();
  if (Error E = Replace(Update, "return (long long)(" +
                                    sourceText(Ctx, H.Bin->getSourceRange()) +
                                    ")"))
    return std::move(E);
  Expected<SmallVector<const ReturnStmt *, 4>> Returns =
      loopableReturns(Ctx, M.Body);
  if (!Returns)
    return Returns.takeError();
  for (const ReturnStmt *R : *Returns)
    if (Error E = Replace(R->getSourceRange(), "return -1"))
      return std::move(E);
  llvm::sort(Edits);
  std::string Work;
  unsigned At = Begin;
  for (auto &[Off, Len, New] : Edits) {
    if (Off < At || Off + Len > End)
      return refuse("the per-element work of kernel '" + K.name() +
                    "' cannot be copied into a bin function");
    Work += File.slice(At, Off).str() + New;
    At = Off + Len;
  }
  Work += File.slice(At, End).str();

  PrintingPolicy PP(Ctx.getLangOpts());
  std::string Members;
  for (const ParmVarDecl *P : K.Decl->parameters()) {
    if (P == H.Binned.Array)
      continue;
    if (P->getName().empty())
      return refuse("kernel '" + K.name() + "' has an unnamed parameter");
    Members += "  " + P->getType().getUnqualifiedType().getAsString(PP) +
               (P->getType()->isPointerType() ? "" : " ") +
               P->getNameAsString() + ";\n";
  }
  std::string Guard;
  for (const Expr *C : M.Conditions)
    Guard += "    if (!(" + sourceText(Ctx, C->getSourceRange()) +
             "))\n      return -1;\n";
  const VarDecl *I = M.x().Var;
  // The work's locals stay in a scope of their own.
  bool Braced = M.Body.size() == 1 && isa<CompoundStmt>(M.Body.front());
  return "\n\n// cuda-opt cub-histogram: the bin " + K.name() +
         " counts element " + I->getNameAsString() +
         " in (-1: none); the samples\n// cub::DeviceHistogram counts.\n"
         "struct " +
         StructName.str() + " {\n" + Members +
         "  __device__ long long operator()(" +
         I->getType().getUnqualifiedType().getAsString(PP) + " " +
         I->getNameAsString() + ") const {\n" + Guard +
         (Braced ? "    " + Work + "\n"
                 : "    {\n    " + Work + "\n    }\n") +
         "    return -1;\n  }\n};";
}

class CubHistogram : public TransformWithPlan<CubHistogramPlan> {
public:
  StringRef getName() const override { return "cub-histogram"; }
  StringRef getSummary() const override {
    return "launch a histogram kernel (one atomicAdd of an integer counter "
           "per element into a proven-bounded bin) as "
           "cub::DeviceHistogram::HistogramEven into scratch counters added "
           "to the histogram (integer counts stay exact)";
  }
  bool replacesLaunch(const ParamValues &) const override { return true; }
  bool changesLaunchConfig(const ParamValues &) const override { return true; }
  bool rewritesHostRegion() const override { return true; }

  Expected<CubHistogramPlan> makePlan(const KernelTarget &T,
                                      const ParamValues &) const override {
    const KernelInfo &K = T.Kernel;
    const SourceManager &SM = T.getSourceManager();
    Expected<HistogramKernel> H = matchHistogramKernel(T.Ctx, K);
    if (!H) {
      // The pipeline names the kernel already.
      std::string Why = toString(H.takeError());
      StringRef Rest(Why);
      Rest.consume_front("kernel '" + K.name() + "': ");
      return refuse(Rest);
    }
    if (K.Launches.empty())
      return refuse("it is never launched from host code");
    const BinnedAtomics &BA = H->Binned;
    CubHistogramPlan P;
    P.Functor = !H->Samples;
    std::string StructName = "cudaopt_" + K.name() + "_bin";
    if (P.Functor) {
      Expected<std::string> F = binFunctor(T.Ctx, K, *H, StructName);
      if (!F)
        return F.takeError();
      auto Edit = textAfterKernel(T.Ctx, K, *F, "bin function");
      if (!Edit)
        return Edit.takeError();
      P.Edits.push_back(std::move(*Edit));
    }
    PrintingPolicy PP(T.Ctx.getLangOpts());
    std::string CountType =
        T.Ctx.getTypeSize(BA.Type) == 64 ? "unsigned long long" : "unsigned int";
    for (const LaunchSite &L : K.Launches) {
      std::string At = describeLocation(SM, L.Call->getBeginLoc());
      Expected<CharSourceRange> Range = statementRange(T.Ctx, L.Call);
      if (!Range)
        return Range.takeError();
      auto Arg = [&](const ParmVarDecl *Param) -> std::string {
        unsigned I = Param->getFunctionScopeIndex();
        const Expr *A = L.Call->getArg(I);
        return sourceText(T.Ctx, A->getSourceRange());
      };
      for (const Expr *A : L.Call->arguments())
        if (A->HasSideEffects(T.Ctx))
          return refuse("the launch at " + At +
                        " passes an argument with side effects");
      std::string N = H->CountParam ? Arg(H->CountParam)
                                    : std::to_string(H->BoundValue);
      if (H->Inclusive)
        N = parenthesizedUnlessName(N) + " + 1";
      std::string Bins = BA.BinsParam ? Arg(BA.BinsParam)
                                      : std::to_string(BA.Bins);
      std::string Levels =
          BA.BinsParam ? "(int)" + parenthesizedUnlessName(Bins) + " + 1"
                       : std::to_string(BA.Bins + 1);
      std::string Hist = Arg(BA.Array);
      std::string Weight =
          H->Weight ? (H->Weight->isEvaluatable(T.Ctx)
                           ? sourceText(T.Ctx, H->Weight->getSourceRange())
                           : Arg(cast<ParmVarDecl>(
                                 cast<DeclRefExpr>(
                                     H->Weight->IgnoreParenImpCasts())
                                     ->getDecl())))
                    : "1";
      if (H->Negated)
        Weight = "-(" + Weight + ")";
      std::string Macro = checkMacroOf(T.Ctx, L.Caller);
      unsigned Col = SM.getSpellingColumnNumber(L.Call->getBeginLoc());
      std::string In(Col - 1, ' ');
      std::string In2 = In + "  ";
      std::string Samples, Lower = "0", Upper = Bins;
      // A histogram zeroed just before (and a weight of one): CUB's counts
      // are what the original leaves, written in place.
      const auto *HistRef = dyn_cast<DeclRefExpr>(
          L.Call->getArg(BA.Array->getFunctionScopeIndex())
              ->IgnoreParenImpCasts());
      bool Zeroed =
          !H->Weight && !H->Negated && HistRef &&
          zeroedJustBefore(
              T.Ctx, L.Call, dyn_cast<VarDecl>(HistRef->getDecl()), BA.Bins,
              BA.BinsParam
                  ? L.Call->getArg(BA.BinsParam->getFunctionScopeIndex())
                  : nullptr,
              T.Ctx.getTypeSize(BA.Type) / 8);
      std::string Text =
          "{\n" + In2 + "// cuda-opt cub-histogram: " + K.name() +
          " counted each of the " + N + " elements into " + Hist + "[0, " +
          Bins + ")\n" + In2 + "// with atomicAdd; " +
          (Zeroed ? Hist + " is zeroed just before, so CUB's histogram "
                           "writes the same counts\n" +
                        In2 + "// there (integer counts: the same bits).\n"
                  : "CUB's histogram counts them into scratch counters, "
                    "which are\n" +
                        In2 + "// then added to " + Hist +
                        " (integer counts: the same bits).\n");
      if (P.Functor) {
        Text += In2 + StructName + " cudaopt_hist_bin;\n";
        for (const ParmVarDecl *Param : K.Decl->parameters())
          if (Param != BA.Array)
            Text += In2 + "cudaopt_hist_bin." + Param->getNameAsString() +
                    " = " + Arg(Param) + ";\n";
        std::string IndexType = BA.Mapping.x()
                                    .Var->getType()
                                    .getUnqualifiedType()
                                    .getAsString(PP);
        Text += In2 +
                "auto cudaopt_hist_samples = thrust::make_transform_iterator(\n" +
                In2 + "    thrust::make_counting_iterator<" + IndexType +
                ">(0), cudaopt_hist_bin);\n";
        Samples = "cudaopt_hist_samples";
        Lower = "0LL";
        Upper = "(long long)" + parenthesizedUnlessName(Bins);
      } else {
        Samples = Arg(H->Samples);
      }
      auto Call = [&](StringRef Temp) {
        return "cub::DeviceHistogram::HistogramEven(" + Temp.str() +
               ", cudaopt_hist_bytes, " + Samples +
               ", cudaopt_hist_counts, " + Levels + ", " + Lower +
               ", " + Upper + ", " + N + ")";
      };
      auto DirectCall = [&](StringRef Temp) {
        return "cub::DeviceHistogram::HistogramEven(" + Temp.str() +
               ", cudaopt_hist_bytes, " + Samples + ", " + Hist + ", " +
               Levels + ", " + Lower + ", " + Upper + ", " + N + ")";
      };
      P.Scratch |= !Zeroed;
      std::string Checked =
          Zeroed ? cubTempStorageCall(In2, Macro, "cudaopt_hist", DirectCall)
                 : [&] {
        std::string S;
        S += In2 + "size_t cudaopt_hist_bytes = 0;\n";
        S += In2 + CountType + " *cudaopt_hist_counts = nullptr;\n";
        S += In2 + checkedCall(Macro, Call("nullptr")) + "\n";
        S += In2 + "void *cudaopt_hist_temp = nullptr;\n";
        S += In2 +
             checkedCall(Macro, "cudaMallocAsync(&cudaopt_hist_temp, "
                                "cudaopt_hist_bytes, 0)") +
             "\n";
        S += In2 +
             checkedCall(Macro, "cudaMallocAsync(&cudaopt_hist_counts, "
                                "(size_t)" +
                                    parenthesizedUnlessName(Bins) +
                                    " * sizeof(" + CountType + "), 0)") +
             "\n";
        S += In2 + checkedCall(Macro, Call("cudaopt_hist_temp")) + "\n";
        S += In2 + "cudaoptAddCounts<<<(unsigned)(((long long)" +
             parenthesizedUnlessName(Bins) + " + 255) / 256), 256>>>(\n" + In2 +
             "    " + Hist + ", cudaopt_hist_counts, (long long)" +
             parenthesizedUnlessName(Bins) + ", " + Weight + ");\n";
        S += In2 + checkedCall(Macro, "cudaGetLastError()") + "\n";
        S += In2 +
             checkedCall(Macro, "cudaFreeAsync(cudaopt_hist_temp, 0)") + "\n";
        S += In2 +
             checkedCall(Macro, "cudaFreeAsync(cudaopt_hist_counts, 0)") +
             "\n";
        return S;
      }();
      // Nothing to count: the original launched an empty grid (an error
      // CUDA reports, no count changed); CUB would be called with no bins.
      std::vector<std::string> Conds;
      if (H->CountParam)
        Conds.push_back(parenthesizedUnlessName(N) + " > 0");
      if (BA.BinsParam)
        Conds.push_back(parenthesizedUnlessName(Bins) + " > 0");
      if (!Conds.empty()) {
        std::string C = Conds[0];
        for (size_t I = 1; I < Conds.size(); ++I)
          C += " && " + Conds[I];
        // The body one level deeper.
        std::string Deeper;
        StringRef Rest(Checked);
        while (!Rest.empty()) {
          auto [Line, Tail] = Rest.split('\n');
          Deeper += "  " + Line.str() + "\n";
          Rest = Tail;
        }
        Text += In2 + "if (" + C + ") {\n" + Deeper + In2 + "}\n";
      } else {
        Text += Checked;
      }
      Text += In + "}";
      P.Edits.push_back({*Range, Text});
      P.Notes.push_back("cub-histogram: the launch at " + At +
                        " calls cub::DeviceHistogram::HistogramEven" +
                        (P.Functor ? " on the kernel's bin function"
                                   : std::string()));
    }
    return P;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const CubHistogramPlan &P) const override {
    std::vector<HostAddition> Add = {
        {HostAddition::Include, "cub/device/device_histogram.cuh",
         "#include <cub/device/device_histogram.cuh>\n"}};
    if (P.Functor) {
      Add.push_back({HostAddition::Include,
                     "thrust/iterator/counting_iterator.h",
                     "#include <thrust/iterator/counting_iterator.h>\n"});
      Add.push_back({HostAddition::Include,
                     "thrust/iterator/transform_iterator.h",
                     "#include <thrust/iterator/transform_iterator.h>\n"});
    }
    // A template: declaresFunction would not see it.
    if (P.Scratch && T.Ctx.getTranslationUnitDecl()
                         ->lookup(&T.Ctx.Idents.get("cudaoptAddCounts"))
                         .empty())
      Add.push_back({HostAddition::Function, "cudaoptAddCounts",
                     CubHistogramHelpers.str()});
    return libraryCallReplacements(T.Ctx, P.Edits, Add);
  }
};

} // namespace

std::unique_ptr<Transform> createCubHistogramTransform() {
  return std::make_unique<CubHistogram>();
}

} // namespace cuda_opt
