//===- SparseWeights.cpp - Run marked GEMMs on the three-layer format ----===//
//
// Part of cuda-opt.
//
// sparse-weights rewrites a cublasGemmEx call (or the launch of a GEMM
// kernel computing y = x * W^T, see rewriteLaunch) whose weight the user
// marked
//
//   #pragma cuda_opt sparse(W)                  (or sparse(W, file="W.tls"))
//   cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &one, W, CUDA_R_16F,
//                K, X, CUDA_R_16F, ldx, &zero, Y, CUDA_R_16F, ldy,
//                CUBLAS_COMPUTE_32F, algo);
//
// into a call of the three-layer SpMM (runtime/sparse, docs/sparse-format.md)
// through two emitted helpers: one per weight that encodes W the first time
// it is used (copying the dense matrix back from the device) or reads the
// .tls file, and one that runs tlsSpmm on the handle's stream.
//
// tlsSpmm computes Y = W * X for W row-major M x K, X column-major K x N and
// Y column-major M x N, fp16, fp32 accumulation, no alpha or beta. In cuBLAS
// terms that is exactly transa = T, transb = N, fp16 data, an fp32 compute
// type, alpha 1 and beta 0; every other call is refused with the reason.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Analysis/CublasGemmCall.h"
#include "cuda-opt/Analysis/GemmKernelMatch.h"
#include "cuda-opt/Transforms/Utils/HostInsertion.h"
#include "cuda-opt/Analysis/SparsePragma.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

// Added after the includes; the text is lib/Transforms/Snippets/SparseSpmm.cuh.
constexpr llvm::StringLiteral SpmmHelper = "\n"
#include "Snippets/SparseSpmm.cuh.inc"
    ;
// Added after the includes; the text is lib/Transforms/Snippets/SparseGemm.cuh.
constexpr llvm::StringLiteral GemmHelper = "\n"
#include "Snippets/SparseGemm.cuh.inc"
    ;
/// The helper that encodes one weight on first use.
std::string encodeHelper(StringRef Name, StringRef Var, StringRef Caller) {
  return (Twine(R"(
// sparse-weights: )") +
          Var + " of " + Caller + R"(() in the three-layer sparse format,
// encoded from the dense device matrix the first time it is used (and again
// only if a different pointer arrives; the values must not change).
static const cudaopt::sparse::TlsDeviceMatrix *
)" + Name +
          R"((const void *Dense, int Rows, int Cols, int Ld) {
  static cudaopt::sparse::TlsDeviceMatrix Matrix;
  static const void *EncodedFrom = nullptr;
  if (EncodedFrom == Dense)
    return &Matrix;
  std::vector<uint16_t> Host(size_t(Rows) * Cols);
  if (cudaMemcpy2D(Host.data(), Cols * sizeof(uint16_t), Dense,
                   size_t(Ld) * sizeof(uint16_t), Cols * sizeof(uint16_t),
                   Rows, cudaMemcpyDeviceToHost) != cudaSuccess)
    return nullptr;
  if (EncodedFrom)
    cudaopt::sparse::tlsFree(Matrix);
  EncodedFrom = nullptr;
  cudaopt::sparse::TlsMatrix Encoded = cudaopt::sparse::encode(
      Host.data(), Rows, Cols, cudaopt::sparse::ElemType::F16);
  if (cudaopt::sparse::tlsUpload(Encoded, Matrix) != cudaSuccess)
    return nullptr;
  EncodedFrom = Dense;
  return &Matrix;
}
)")
      .str();
}

/// The helper that reads one weight from a .tls file on first use.
std::string fileHelper(StringRef Name, StringRef Var, StringRef Caller,
                       StringRef File) {
  return (Twine(R"(
// sparse-weights: )") +
          Var + " of " + Caller + R"(() in the three-layer sparse format,
// read from )" +
          File + R"( the first time it is used.
static const cudaopt::sparse::TlsDeviceMatrix *
)" + Name +
          R"((const void *Dense, int Rows, int Cols, int Ld) {
  (void)Dense;
  (void)Ld;
  static cudaopt::sparse::TlsDeviceMatrix Matrix;
  static bool Loaded = false;
  if (Loaded)
    return &Matrix;
  cudaopt::sparse::TlsMatrix Encoded;
  if (!cudaopt::sparse::readTlsFile(")" +
          File + R"(", Encoded).empty() ||
      Encoded.Rows != uint32_t(Rows) || Encoded.Cols != uint32_t(Cols) ||
      Encoded.Type != cudaopt::sparse::ElemType::F16 ||
      cudaopt::sparse::tlsUpload(Encoded, Matrix) != cudaSuccess)
    return nullptr;
  Loaded = true;
  return &Matrix;
}
)")
      .str();
}

struct SparsePlan : TransformPlan {
  std::vector<std::pair<CharSourceRange, std::string>> Edits;
  /// A cublasGemmEx call was rewritten: emit the handle-based helper.
  bool NeedsGemmHelper = false;
  /// Helper name -> its text, for the weights used.
  std::vector<std::pair<std::string, std::string>> Helpers;
  std::vector<std::string> Refusals;
};

class SparseWeights : public TransformWithPlan<SparsePlan> {
public:
  StringRef getName() const override { return "sparse-weights"; }
  StringRef getSummary() const override {
    return "run a cublasGemmEx or GEMM kernel launch whose weight is marked "
           "`#pragma cuda_opt sparse(W)` on the three-layer sparse format "
           "(tlsSpmm)";
  }
  ArrayRef<ParamSpec> getParams() const override {
    static const ParamSpec Specs[] = {
        {"weight", 0, 0, 0,
         "the weight variable, as if `#pragma cuda_opt sparse(NAME)` stood "
         "above every marked-able call or launch that uses it",
         false, {}, /*IsText=*/true},
        {"file", 0, 0, 0,
         "a .tls file (cuda-opt sparse-encode) to read instead of encoding "
         "at load time, for marks that name none",
         false, {}, /*IsText=*/true},
    };
    return Specs;
  }
  /// The call becomes a library call: no kernel variant to replay.
  bool replacesLaunch(const ParamValues &) const override { return true; }
  /// The SpMM runtime (docs/transforms/sparse-weights.md, "Building").
  std::vector<std::string> linkFlags(const ParamValues &) const override {
    return {"-lcudaopt_spmm", "-lCudaOptSparse", "-lCudaOptRuntimeCommon",
            "-lcublas"};
  }
  /// The sparse kernel sums each output in its own order.
  FpEffect fpEffect(const ParamValues &) const override {
    return FpEffect::Reassociates;
  }

  Expected<SparsePlan> makePlan(const KernelTarget &T,
                                const ParamValues &P) const override {
    SparsePlan Pl = planEdits(T, P);
    if (!Pl.Edits.empty())
      return Pl;
    return refuse(join(Pl.Refusals, "\n    "));
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T, const SparsePlan &Pl) const override {
    std::vector<HostAddition> Add = {
        {HostAddition::Include, "TlsSpmm.h", "#include \"TlsSpmm.h\"\n"},
        {HostAddition::Include, "vector", "#include <vector>\n"},
        {HostAddition::Function, "cudaoptSparseSpmm", SpmmHelper.str()}};
    if (Pl.NeedsGemmHelper)
      Add.push_back(
          {HostAddition::Function, "cudaoptSparseGemm", GemmHelper.str()});
    for (const auto &[Name, Text] : Pl.Helpers)
      Add.push_back({HostAddition::Function, Name, Text});
    return libraryCallReplacements(T.Ctx, Pl.Edits, Add);
  }

private:
  SparsePlan planEdits(const KernelTarget &T, const ParamValues &P) const;
  /// The replacement of one marked kernel launch statement, or why not.
  Expected<std::string> rewriteLaunch(ASTContext &Ctx, const KernelInfo &K,
                                      const LaunchSite &L, const SparseMark &M,
                                      SparsePlan &Pl) const;
  /// The replacement of one marked call, or why it cannot be replaced.
  Expected<std::string> rewriteCall(ASTContext &Ctx, const CublasGemmCall &C,
                                    const SparseMark &M, SparsePlan &Pl) const;
};

/// The helper that gives the encoded weight \p M of \p Caller, added to
/// the plan once.
std::string weightHelper(SparsePlan &Pl, const SparseMark &M,
                         StringRef Caller) {
  std::string Helper = ("cudaoptSparse_" + Caller + "_" + M.Var).str();
  if (!llvm::is_contained(llvm::make_first_range(Pl.Helpers), Helper))
    Pl.Helpers.push_back(
        {Helper, M.File.empty() ? encodeHelper(Helper, M.Var, Caller)
                                : fileHelper(Helper, M.Var, Caller, M.File)});
  return Helper;
}

Expected<std::string> SparseWeights::rewriteCall(ASTContext &Ctx,
                                                 const CublasGemmCall &C,
                                                 const SparseMark &M,
                                                 SparsePlan &Pl) const {
  const CallExpr *Call = C.Call;
  auto Fail = [&](const Twine &Why) {
    return refuse(C.Name + " at " + C.Location + " (marked sparse(" + M.Var +
                  ")): " + Why);
  };
  if (C.Kind != CublasGemmKind::GemmEx || Call->getNumArgs() != 19)
    return Fail("only cublasGemmEx calls and GEMM kernel launches are "
                "rewritten");
  auto Arg = [&](unsigned I) {
    return sourceText(Ctx, Call->getArg(I)->getSourceRange());
  };
  // The weight is cuBLAS's first matrix operand.
  const auto *Ref =
      dyn_cast<DeclRefExpr>(Call->getArg(7)->IgnoreParenImpCasts());
  if (!Ref || Ref->getDecl()->getName() != M.Var)
    return Fail("the weight operand (cuBLAS's A, the W of Y = W * X) is '" +
                Arg(7) + "', not '" + M.Var + "'");
  std::optional<int64_t> TransA = constantArg(Ctx, Call->getArg(1));
  std::optional<int64_t> TransB = constantArg(Ctx, Call->getArg(2));
  if (TransA != 1 || TransB != 0)
    return Fail("tlsSpmm needs transa = CUBLAS_OP_T (W row-major M x K, "
                "lda = K) and transb = CUBLAS_OP_N (X column-major K x N), "
                "as compile-time constants");
  for (unsigned I : {8u, 11u, 15u})
    if (constantArg(Ctx, Call->getArg(I)) != 2) // CUDA_R_16F
      return Fail("tlsSpmm supports fp16 only (CUDA_R_16F for W, X and Y); '" +
                  Arg(I) + "' is not");
  std::optional<int64_t> Compute = constantArg(Ctx, Call->getArg(17));
  if (!Compute || !is_contained(ArrayRef<int64_t>{68, 69, 74, 0}, *Compute))
    return Fail("tlsSpmm accumulates in fp32; the compute type must be "
                "CUBLAS_COMPUTE_32F (or _PEDANTIC, _FAST_16F)");
  if (constantScalarArg(Ctx, Call->getArg(6)) != 1.0 ||
      constantScalarArg(Ctx, Call->getArg(13)) != 0.0)
    return Fail("tlsSpmm computes Y = W * X without scaling; alpha must be "
                "a local constant 1 and beta a local constant 0");
  for (unsigned I = 0; I < 19; ++I)
    if (Call->getArg(I)->HasSideEffects(Ctx))
      return Fail("argument '" + Arg(I) + "' has side effects");

  std::string Helper = weightHelper(Pl, M, C.Caller->getNameAsString());
  Pl.NeedsGemmHelper = true;
  // cudaoptSparseGemm(h, W(dense, M, K, lda), X, ldx, N, Y, ldy)
  return "cudaoptSparseGemm(" + Arg(0) + ", " + Helper + "(" + Arg(7) + ", " +
         Arg(3) + ", " + Arg(5) + ", " + Arg(9) + "), " + Arg(10) + ", " +
         Arg(12) + ", " + Arg(4) + ", " + Arg(14) + ", " + Arg(16) + ")";
}

Expected<std::string> SparseWeights::rewriteLaunch(ASTContext &Ctx,
                                                   const KernelInfo &K,
                                                   const LaunchSite &L,
                                                   const SparseMark &M,
                                                   SparsePlan &Pl) const {
  std::string Where =
      describeLocation(Ctx.getSourceManager(), L.Call->getBeginLoc());
  auto Fail = [&](const Twine &Why) {
    return refuse("the launch of '" + K.name() + "' at " + Where +
                  " (marked sparse(" + M.Var + ")): " + Why);
  };
  Expected<GemmKernelMatch> Match = matchGemmKernel(Ctx, K);
  if (!Match)
    return Fail(toString(Match.takeError()));
  if (!L.Caller || L.Caller->hasAttr<CUDAGlobalAttr>() ||
      L.Caller->hasAttr<CUDADeviceAttr>())
    return Fail("the launch is in device code");
  // Row-major C (M x N) = A * B with B stored N x K is, column-major,
  // C^T = B' * A^T: tlsSpmm with W = B' (N x K row-major), X = A (K x M
  // column-major) and Y = C (N x M column-major).
  auto ArgIs = [&](unsigned I) {
    const auto *Ref =
        dyn_cast<DeclRefExpr>(L.Call->getArg(I)->IgnoreParenImpCasts());
    return Ref && Ref->getDecl()->getName() == M.Var;
  };
  if (!ArgIs(Match->B))
    return Fail("'" + M.Var +
                "' is not the kernel's B operand; tlsSpmm's weight is B "
                "stored N x K (B[col * K + k], y = x * W^T)");
  if (!Match->BColumnMajor)
    return Fail("the kernel reads B as B[k * N + col]; tlsSpmm needs the "
                "weight stored N x K (B[col * K + k])");
  if (Match->BF16)
    return Fail("tlsSpmm supports fp16 only");
  if (Match->Alpha)
    return Fail("tlsSpmm computes Y = W * X without scaling");
  Expected<GemmProblem> P = problemAtLaunch(Ctx, K, *Match, L);
  if (!P)
    return Fail(toString(P.takeError()));
  const Expr *Stream = launchStreamExpr(L);
  std::string Helper = weightHelper(Pl, M, L.Caller->getNameAsString());
  // cudaoptSparseSpmm(stream, W(dense, N, K, ldb), A, lda, M, C, ldc)
  return "cudaoptSparseSpmm(" +
         (Stream ? sourceText(Ctx, Stream->getSourceRange()) : "0") + ", " +
         Helper + "(" + P->B + ", " + P->N + ", " + P->K + ", " + P->Ldb +
         "), " + P->A + ", " + P->Lda + ", " + P->M + ", " + P->C + ", " +
         P->Ldc + ");";
}

/// The line the statement containing \p E starts on (`cublasStatus_t s =`
/// before a call on the next line, or the CHECK( of a wrapping macro).
unsigned statementLine(ASTContext &Ctx, const Expr *E) {
  DynTypedNode Node = DynTypedNode::create(*E);
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.size() != 1 || Parents[0].get<CompoundStmt>() ||
        Parents[0].get<FunctionDecl>() || Parents[0].get<TranslationUnitDecl>())
      break;
    Node = Parents[0];
  }
  const SourceManager &SM = Ctx.getSourceManager();
  return SM.getExpansionLineNumber(
      SM.getExpansionLoc(Node.getSourceRange().getBegin()));
}

SparsePlan SparseWeights::planEdits(const KernelTarget &T,
                                    const ParamValues &P) const {
  SparsePlan Pl;
  std::vector<SparseMark> Marks = findSparseMarks(T.Ctx);
  for (SparseMark &M : Marks) {
    if (!M.Error.empty())
      Pl.Refusals.push_back("malformed pragma at " + M.Error);
    else if (M.File.empty())
      M.File = P.getText("file");
  }
  // weight=NAME marks every call or launch whose arguments name it.
  SparseMark Option;
  Option.Var = P.getText("weight");
  Option.File = P.getText("file");
  auto MarkOf = [&](const Expr *S, ArrayRef<const Expr *> Args) {
    const SparseMark *M = markAbove(T.Ctx, Marks, statementLine(T.Ctx, S));
    if (M || Option.Var.empty())
      return M;
    for (const Expr *A : Args)
      if (const auto *DRE =
              dyn_cast<DeclRefExpr>(A->IgnoreParenImpCasts()))
        if (DRE->getDecl()->getName() == Option.Var)
          return static_cast<const SparseMark *>(&Option);
    return static_cast<const SparseMark *>(nullptr);
  };
  std::vector<const SparseMark *> Used;
  for (const CublasGemmCall &C : findCublasGemmCalls(T.Ctx)) {
    const SparseMark *M = MarkOf(
        C.Call, ArrayRef<const Expr *>(C.Call->getArgs(), C.Call->getNumArgs()));
    if (!M || !M->Error.empty())
      continue;
    Used.push_back(M);
    Expected<std::string> Text = rewriteCall(T.Ctx, C, *M, Pl);
    Expected<CharSourceRange> Range =
        Text ? callRange(T.Ctx, C.Call)
             : Expected<CharSourceRange>(Text.takeError());
    if (!Range) {
      Pl.Refusals.push_back(toString(Range.takeError()));
      continue;
    }
    Pl.Edits.push_back({*Range, *Text});
  }
  // Launches of this kernel; a mark above another kernel's launch is that
  // kernel's step's business.
  for (const KernelInfo &K : findKernels(T.Ctx))
    for (const LaunchSite &L : K.Launches) {
      const SparseMark *M = MarkOf(
          L.Call,
          ArrayRef<const Expr *>(L.Call->getArgs(), L.Call->getNumArgs()));
      if (!M || !M->Error.empty())
        continue;
      Used.push_back(M);
      if (K.Decl != T.Kernel.Decl)
        continue;
      Expected<std::string> Text = rewriteLaunch(T.Ctx, K, L, *M, Pl);
      Expected<CharSourceRange> Range =
          Text ? statementRange(T.Ctx, L.Call)
               : Expected<CharSourceRange>(Text.takeError());
      if (!Range) {
        Pl.Refusals.push_back(toString(Range.takeError()));
        continue;
      }
      Pl.Edits.push_back({*Range, *Text});
    }
  for (const SparseMark &M : Marks)
    if (M.Error.empty() && !is_contained(Used, &M))
      Pl.Refusals.push_back(
          ("the `#pragma cuda_opt sparse(" + M.Var + ")` at line " +
           Twine(M.Line) +
           " is not directly above a cublasGemmEx call or a kernel launch "
           "(cublasLtMatmul is not rewritten yet)")
              .str());
  if (!Option.Var.empty() && !is_contained(Used, &Option))
    Pl.Refusals.push_back("weight=" + Option.Var +
                          ": no cublasGemmEx call or kernel launch in this "
                          "file passes '" + Option.Var + "'");
  if (Marks.empty() && Option.Var.empty())
    Pl.Refusals.push_back("no `#pragma cuda_opt sparse(W)` (or weight=W) "
                          "marks the weight of a cublasGemmEx call in this "
                          "file");
  return Pl;
}

} // namespace

std::unique_ptr<Transform> createSparseWeightsTransform() {
  return std::make_unique<SparseWeights>();
}
} // namespace cuda_opt
