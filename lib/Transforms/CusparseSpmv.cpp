//===- CusparseSpmv.cpp - Route a CSR sparse matrix-vector product --------===//
//
// Part of cuda-opt.
//
// cusparse-spmv replaces, in host code, each launch of a kernel that
// SegmentedReduction proves to be a one-thread-per-row CSR sparse
// matrix-vector product,
//
//   for (j = row_ptr[r]; j < row_ptr[r + 1]; ++j) sum += vals[j] * x[cols[j]];
//   y[r] = sum;                                          // sum from 0
//
// with
//
//   if (cudaoptCsrSpmv<int, float>(stream, rows, row_ptr, cols, vals, x, y,
//                                  alg) != cudaSuccess)
//     kernel<<<grid, block>>>(args);
//
// cudaoptCsrSpmv (Snippets/CusparseSpmv.cuh, added after the includes) runs
// cuSPARSE's CSR SpMV (algorithm 1 or 2, the `alg` parameter tune measures);
// the original launch stays as the fallback for what cuSPARSE cannot take
// exactly as the loop read it (checked at run time: row_ptr[0] not 0, no
// device allocation behind x). cuSPARSE sums each row in its own order:
// the rewrite needs --fp-model=reassoc, and tune verifies it against the
// fp64 reference like any variant. The rewritten file needs -lcusparse.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Transforms/CusparseSpmvEntry.h"

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

// The text is lib/Transforms/Snippets/CusparseSpmv.cuh.
constexpr llvm::StringLiteral SpmvHelper = "\n"
#include "Snippets/CusparseSpmv.cuh.inc"
    ;

namespace {

/// A CSR product cuSPARSE can compute, with the C++ spellings of its index
/// and value types.
struct CsrSpmv {
  SegmentedReduction S;
  std::string Index, Value;
};

/// The product kernel \p T computes, or why cuSPARSE cannot compute it.
Expected<CsrSpmv> matchSpmv(ASTContext &Ctx, const KernelInfo &K) {
  Expected<SegmentedReduction> S = matchSegmentedReduction(Ctx, K);
  if (!S) {
    std::string Why = toString(S.takeError());
    StringRef Rest(Why);
    Rest.consume_front("kernel '" + K.name() + "': ");
    return refuse(Rest);
  }
  if (!S->sparseMatVec())
    return refuse("it is a segmented reduction, not a sparse matrix-vector "
                  "product ('sum += vals[j] * x[cols[j]]' over 'row_ptr[r] "
                  ".. row_ptr[r + 1]')");
  if (S->Kind != RecurrenceKind::Sum || S->Begin != S->End ||
      S->EndShift != 1)
    return refuse("its rows run over 'begin[r] .. end[r]' of two arrays; "
                  "cuSPARSE's CSR takes one array of row offsets, "
                  "'row_ptr[r] .. row_ptr[r + 1]'");
  const auto *BT = S->Element->getAs<BuiltinType>();
  if (!BT || (BT->getKind() != BuiltinType::Float &&
              BT->getKind() != BuiltinType::Double))
    return refuse("it sums '" + S->Element.getAsString() +
                  "' products; cuSPARSE's SpMV is routed for float and "
                  "double");
  if (!isPositiveZeroConstant(Ctx, S->Init))
    return refuse("its sum starts at '" +
                  sourceText(Ctx, S->Init->getSourceRange()) +
                  "'; cuSPARSE computes y = A x from 0");
  QualType Offsets = S->Begin->getType()->getPointeeType();
  QualType Columns = S->Columns->getType()->getPointeeType();
  Offsets = Offsets.getCanonicalType().getUnqualifiedType();
  Columns = Columns.getCanonicalType().getUnqualifiedType();
  uint64_t Bits = Ctx.getTypeSize(Offsets);
  if (Offsets != Columns || !Offsets->isSignedIntegerType() ||
      (Bits != 32 && Bits != 64))
    return refuse("its row offsets are '" + Offsets.getAsString() +
                  "' and its column indices '" + Columns.getAsString() +
                  "'; cuSPARSE takes one signed 32- or 64-bit index type "
                  "for both");
  CsrSpmv M{std::move(*S), "", ""};
  PrintingPolicy PP(Ctx.getLangOpts());
  M.Index = Offsets.getAsString(PP);
  M.Value = M.S.Element.getAsString(PP);
  return M;
}

/// The rows of the product: the segment count, as a long long.
std::string rowsText(const CsrSpmv &M,
                     function_ref<std::string(const ParmVarDecl *)> Arg) {
  std::string N = M.S.CountParam ? Arg(M.S.CountParam)
                                 : std::to_string(M.S.CountValue);
  if (M.S.Inclusive)
    N = parenthesizedUnlessName(N) + " + 1";
  return "static_cast<long long>(" + N + ")";
}

/// cudaoptCsrSpmv's call on \p Stream with the kernel's arguments.
std::string callText(const CsrSpmv &M, StringRef Stream, int64_t Alg,
                     function_ref<std::string(const ParmVarDecl *)> Arg) {
  return "cudaoptCsrSpmv<" + M.Index + ", " + M.Value + ">(" + Stream.str() +
         ", " + rowsText(M, Arg) + ", " + Arg(M.S.Begin) + ", " +
         Arg(M.S.Columns) + ", " + Arg(M.S.In) + ", " + Arg(M.S.Gathered) +
         ", " + Arg(M.S.Out) + ", " + std::to_string(Alg) + ")";
}

struct SpmvPlan : TransformPlan {
  std::vector<std::pair<CharSourceRange, std::string>> Edits;
};

class CusparseSpmv : public TransformWithPlan<SpmvPlan> {
public:
  StringRef getName() const override { return "cusparse-spmv"; }
  StringRef getSummary() const override {
    return "replace the launch of a one-thread-per-row CSR sparse "
           "matrix-vector product (float or double) with cuSPARSE's SpMV; "
           "needs --fp-model=reassoc and -lcusparse";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"alg",
         1,
         1,
         2,
         "cuSPARSE's CSR algorithm: 1 (CUSPARSE_SPMV_CSR_ALG1) or 2 "
         "(CUSPARSE_SPMV_CSR_ALG2); tune measures both",
         false,
         {1, 2}},
    };
    return Specs;
  }
  bool replacesLaunch(const ParamValues &) const override { return true; }
  std::vector<std::string> linkFlags(const ParamValues &) const override {
    return {"-lcusparse"};
  }
  FpEffect fpEffect(const ParamValues &) const override {
    return FpEffect::Reassociates;
  }

  Expected<SpmvPlan> makePlan(const KernelTarget &T,
                              const ParamValues &V) const override {
    const KernelInfo &K = T.Kernel;
    Expected<CsrSpmv> M = matchSpmv(T.Ctx, K);
    if (!M)
      return M.takeError();
    if (K.Launches.empty())
      return refuse("it is never launched from host code");
    // cuSPARSE reads the matrix and x while it writes y.
    for (const ParmVarDecl *P :
         {M->S.In, M->S.Begin, M->S.Columns, M->S.Gathered})
      if (std::optional<std::string> Why =
              rowPointersMayOverlap(T.Ctx, K, M->S.Out, P))
        return refuseMayAlias("'" + M->S.Out->getNameAsString() + "' and '" +
                              P->getNameAsString() + "' may overlap (" +
                              *Why + "); cuSPARSE needs y apart");
    SpmvPlan Pl;
    const SourceManager &SM = T.getSourceManager();
    for (const LaunchSite &L : K.Launches) {
      std::string At = describeLocation(SM, L.Call->getBeginLoc());
      // The fallback repeats the launch's arguments.
      if (Error E = checkFallbackLaunch(T.Ctx, K, L))
        return std::move(E);
      Expected<CharSourceRange> Range = statementRange(T.Ctx, L.Call);
      if (!Range)
        return Range.takeError();
      auto Arg = [&](const ParmVarDecl *P) {
        return sourceText(
            T.Ctx, L.Call->getArg(P->getFunctionScopeIndex())->getSourceRange());
      };
      const Expr *Stream = launchStreamExpr(L);
      std::string StreamText =
          Stream ? sourceText(T.Ctx, Stream->getSourceRange()) : "0";
      std::string Launch = sourceText(T.Ctx, Range->getAsRange());
      if (!StringRef(Launch).rtrim().ends_with(";"))
        Launch += ";";
      unsigned Col = SM.getSpellingColumnNumber(L.Call->getBeginLoc());
      std::string Ind(Col - 1, ' ');
      // In braces: the launch may be the body of an if with an else.
      std::string Ind2 = Ind + "  ";
      Pl.Edits.push_back(
          {*Range, "{\n" + Ind2 + "// cuda-opt cusparse-spmv: " + K.name() +
                       " computed y = A x for a CSR matrix, one thread\n" +
                       Ind2 +
                       "// per row; cuSPARSE's SpMV sums each row in its own "
                       "order (--fp-model=reassoc),\n" +
                       Ind2 + "// the launch stays for what it cannot take.\n" +
                       Ind2 + "if (" +
                       callText(*M, StreamText, V.get("alg"), Arg) +
                       " != cudaSuccess)\n" + Ind2 + "  " + Launch + "\n" +
                       Ind + "}"});
      Pl.Notes.push_back("cusparse-spmv: the launch at " + At +
                         " calls cuSPARSE's SpMV (link with -lcusparse)");
    }
    return Pl;
  }

  Expected<tooling::Replacements> applyPlan(const KernelTarget &T,
                                            const SpmvPlan &Pl) const override {
    std::vector<HostAddition> Add = {
        {HostAddition::Include, "cusparse.h", "#include <cusparse.h>\n"},
        {HostAddition::Include, "mutex", "#include <mutex>\n"},
        {HostAddition::Include, "vector", "#include <vector>\n"},
        {HostAddition::Function, "cudaoptCsrSpmv", SpmvHelper.str()}};
    return libraryCallReplacements(T.Ctx, Pl.Edits, Add);
  }
};

} // namespace

std::unique_ptr<Transform> createCusparseSpmvTransform() {
  return std::make_unique<CusparseSpmv>();
}

std::string cusparseSpmvEntryName(int64_t Alg) {
  return "cudaopt_spmv_alg_" + std::to_string(Alg);
}

Expected<std::string> cusparseSpmvEntryText(ASTContext &Ctx,
                                            const KernelInfo &K) {
  Expected<CsrSpmv> M = matchSpmv(Ctx, K);
  if (!M)
    return M.takeError();
  // args[i] points at argument i, of the kernel parameter's type.
  auto Arg = [&](const ParmVarDecl *P) { return libraryEntryArgument(Ctx, P); };
  std::string Text = "#include <cuda_runtime.h>\n#include <cusparse.h>\n"
                     "#include <mutex>\n#include <vector>\n" +
                     SpmvHelper.str();
  for (int64_t Alg : {1, 2})
    Text += "\nextern \"C\" int " + cusparseSpmvEntryName(Alg) +
            "(void **Args, void *Stream) {\n  return static_cast<int>(" +
            callText(*M, "static_cast<cudaStream_t>(Stream)", Alg, Arg) +
            ");\n}\n";
  return Text;
}

} // namespace cuda_opt
