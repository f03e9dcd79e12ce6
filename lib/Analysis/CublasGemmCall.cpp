//===- CublasGemmCall.cpp - Recognise cuBLAS GEMM calls in host code -----===//
//
// Part of cuda-opt. The column-major to row-major mapping is explained in
// CublasGemmCall.h; every refusal names the argument that prevents it.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/CublasGemmCall.h"
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/CublasLtDescriptors.h"
#include "cuda-opt/Support/Refusal.h"
#include "clang/Basic/SourceManager.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/StringMap.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

// Enumerator values of cublas_api.h and library_types.h.
enum : int64_t { OpN = 0, OpT = 1, OpC = 2 };
enum : int64_t { R16F = 2, R16BF = 14, R32F = 0 };
enum : int64_t {
  Compute16F = 64,
  Compute16FPedantic = 65,
  Compute32F = 68,
  Compute32FPedantic = 69,
  Compute32FFast16F = 74,
  Compute32FFast16BF = 75,
  Compute32FFastTF32 = 77,
};

StringRef calleeName(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return "";
  return FD->getName();
}

class CallCollector : public RecursiveASTVisitor<CallCollector> {
public:
  explicit CallCollector(ASTContext &Ctx) : Ctx(Ctx) {}
  bool TraverseFunctionDecl(FunctionDecl *FD) {
    const FunctionDecl *Saved = Current;
    Current = FD;
    bool R = RecursiveASTVisitor::TraverseFunctionDecl(FD);
    Current = Saved;
    return R;
  }
  bool VisitCallExpr(CallExpr *CE) {
    const SourceManager &SM = Ctx.getSourceManager();
    if (!SM.isInMainFile(SM.getExpansionLoc(CE->getBeginLoc())) || !Current)
      return true;
    StringRef Name = calleeName(CE);
    Name.consume_back("_v2");
    std::optional<CublasGemmKind> Kind =
        StringSwitch<std::optional<CublasGemmKind>>(Name)
            .Case("cublasGemmEx", CublasGemmKind::GemmEx)
            .Case("cublasHgemm", CublasGemmKind::Hgemm)
            .Case("cublasSgemm", CublasGemmKind::Sgemm)
            .Case("cublasLtMatmul", CublasGemmKind::LtMatmul)
            .Default(std::nullopt);
    if (!Kind)
      return true;
    CublasGemmCall C;
    C.Call = CE;
    C.Caller = Current;
    C.Kind = *Kind;
    C.Name = Name.str();
    C.Location = describeLocation(SM, CE->getBeginLoc());
    Calls.push_back(C);
    return true;
  }
  ASTContext &Ctx;
  const FunctionDecl *Current = nullptr;
  std::vector<CublasGemmCall> Calls;
};

/// Assignments and increments of one variable (its address being taken for
/// a set-attribute call is not one).
class AssignmentCounter : public RecursiveASTVisitor<AssignmentCounter> {
public:
  explicit AssignmentCounter(const VarDecl *V) : V(V) {}
  bool VisitBinaryOperator(BinaryOperator *BO) {
    if (BO->isAssignmentOp() && namedVar(BO->getLHS()) == V &&
        !isa<UnaryOperator>(BO->getLHS()->IgnoreParenImpCasts()))
      ++Count;
    return true;
  }
  bool VisitUnaryOperator(UnaryOperator *UO) {
    if (UO->isIncrementDecrementOp() && namedVar(UO->getSubExpr()) == V)
      ++Count;
    return true;
  }
  const VarDecl *V;
  unsigned Count = 0;
};

class Mapper {
public:
  Mapper(ASTContext &Ctx, const CublasGemmCall &C, const CublasMapOptions &O)
      : Ctx(Ctx), C(C), Opts(O), Call(C.Call) {}

  Expected<CublasGemmMapping> run();

private:
  std::string text(const Expr *E) const {
    return sourceText(Ctx, E->getSourceRange());
  }
  std::string arg(unsigned I) const { return text(Call->getArg(I)); }
  /// An extent (as int) or leading dimension (as long long) argument.
  std::string dim(unsigned I) const {
    return convertedText(Ctx, Call->getArg(I), Ctx.IntTy);
  }
  std::string ld(unsigned I) const {
    return convertedText(Ctx, Call->getArg(I), Ctx.LongLongTy);
  }
  Error fail(const Twine &Why) const {
    return refuse(C.Name + " at " + C.Location + ": " + Why);
  }
  /// The value of a scalar passed by pointer, read on the host.
  std::string hostScalar(const Expr *E, bool Half) const;
  /// Map the column-major call to the row-major problem.
  Error mapOperands(int64_t TransA, int64_t TransB, std::string M,
                    std::string N, std::string K, std::string X,
                    std::string Ldx, std::string Y, std::string Ldy,
                    std::string Out, std::string Ldo);
  Error checkTypes(ArrayRef<int64_t> Types, ArrayRef<StringRef> Names);
  Error checkCompute(int64_t Compute);
  Expected<CublasGemmMapping> mapLt();

  ASTContext &Ctx;
  const CublasGemmCall &C;
  const CublasMapOptions &Opts;
  const CallExpr *Call;
  CublasGemmMapping Result;
};

std::string Mapper::hostScalar(const Expr *E, bool Half) const {
  const Expr *S = E->IgnoreParenImpCasts();
  std::string Value;
  if (const auto *UO = dyn_cast<UnaryOperator>(S);
      UO && UO->getOpcode() == UO_AddrOf)
    Value = text(UO->getSubExpr());
  else if (Half)
    Value = "*static_cast<const __half *>(" + text(E) + ")";
  else
    Value = "*static_cast<const float *>(" + text(E) + ")";
  return Half ? "__half2float(" + Value + ")" : Value;
}

Error Mapper::mapOperands(int64_t TransA, int64_t TransB, std::string M,
                          std::string N, std::string K, std::string X,
                          std::string Ldx, std::string Y, std::string Ldy,
                          std::string Out, std::string Ldo) {
  if (TransB != OpN)
    return fail("transb is not CUBLAS_OP_N, so the row-major view of the "
                "result needs a column-major A, which cudaoptGemm does not "
                "take");
  GemmProblem &P = Result.Problem;
  // Row-major C (n x m) = op(Y)^T (n x k) * op(X)^T (k x m).
  P.M = std::move(N);
  P.N = std::move(M);
  P.K = std::move(K);
  P.A = std::move(Y);
  P.Lda = std::move(Ldy);
  P.B = std::move(X);
  P.Ldb = std::move(Ldx);
  P.LayoutB = TransA == OpN ? "CUDAOPT_GEMM_B_ROW" : "CUDAOPT_GEMM_B_COL";
  P.C = std::move(Out);
  P.Ldc = std::move(Ldo);
  return Error::success();
}

Error Mapper::checkTypes(ArrayRef<int64_t> Types, ArrayRef<StringRef> Names) {
  for (size_t I = 0; I < Types.size(); ++I)
    if (Types[I] != Types[0] || (Types[I] != R16F && Types[I] != R16BF))
      return fail(Names[I] +
                  " is not CUDA_R_16F or CUDA_R_16BF like the "
                  "other operands; cudaoptGemm needs A, B and C all fp16 or "
                  "all bf16");
  Result.Problem.Type =
      Types[0] == R16BF ? "CUDAOPT_GEMM_BF16" : "CUDAOPT_GEMM_F16";
  return Error::success();
}

Error Mapper::checkCompute(int64_t Compute) {
  switch (Compute) {
  case Compute32F:
  case Compute32FPedantic:
  case R32F: // the pre-11 cudaDataType spelling of CUBLAS_COMPUTE_32F
  case Compute32FFast16F:
  case Compute32FFast16BF:
  case Compute32FFastTF32:
    // fp32 accumulation of 16-bit inputs: what cudaoptGemm does.
    return Error::success();
  case Compute16F:
  case Compute16FPedantic:
  case R16F:
    if (Opts.AllowFp16Compute)
      return Error::success();
    return fail("the compute type accumulates in fp16; cudaoptGemm "
                "accumulates in fp32, which changes the results (give "
                "allow-fp16-compute=1 to accept that)");
  default:
    return fail("the compute type (" + Twine(Compute) +
                ") is not an fp32 or fp16 one; cudaoptGemm accumulates in "
                "fp32");
  }
}

Expected<CublasGemmMapping> Mapper::run() {
  if (StringRef(Ctx.getSourceManager().getBufferData(
                    Ctx.getSourceManager().getMainFileID()))
          .contains("CUBLAS_POINTER_MODE_DEVICE"))
    return fail("the file sets CUBLAS_POINTER_MODE_DEVICE, so alpha and beta "
                "may be device pointers that the host cannot read");
  if (C.Kind == CublasGemmKind::LtMatmul)
    return mapLt();
  unsigned Want = C.Kind == CublasGemmKind::GemmEx ? 19 : 14;
  if (Call->getNumArgs() != Want)
    return fail("expected " + Twine(Want) + " arguments");
  std::optional<int64_t> TransA = constantArg(Ctx, Call->getArg(1));
  std::optional<int64_t> TransB = constantArg(Ctx, Call->getArg(2));
  if (!TransA || !TransB)
    return fail("transa and transb must be compile-time constants");
  Result.Handle = arg(0);
  if (C.Kind == CublasGemmKind::GemmEx) {
    // (h, ta, tb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C,
    //  Ctype, ldc, computeType, algo)
    std::optional<int64_t> TA = constantArg(Ctx, Call->getArg(8));
    std::optional<int64_t> TB = constantArg(Ctx, Call->getArg(11));
    std::optional<int64_t> TC = constantArg(Ctx, Call->getArg(15));
    std::optional<int64_t> Compute = constantArg(Ctx, Call->getArg(17));
    if (!TA || !TB || !TC || !Compute)
      return fail("the data and compute types must be compile-time "
                  "constants");
    if (Error E = checkTypes({*TA, *TB, *TC}, {"Atype", "Btype", "Ctype"}))
      return std::move(E);
    if (Error E = checkCompute(*Compute))
      return std::move(E);
    bool HalfScale = *Compute == Compute16F || *Compute == Compute16FPedantic ||
                     *Compute == R16F;
    if (Error E = mapOperands(*TransA, *TransB, dim(3), dim(4), dim(5), arg(7),
                              ld(9), arg(10), ld(12), arg(14), ld(16)))
      return std::move(E);
    Result.Problem.Alpha = hostScalar(Call->getArg(6), HalfScale);
    Result.Problem.Beta = hostScalar(Call->getArg(13), HalfScale);
    return Result;
  }
  // (h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)
  if (C.Kind == CublasGemmKind::Sgemm && !Opts.AllowFp16Compute)
    return fail("fp32 operands: cudaoptGemm's fp32 path is a CUDA-core "
                "kernel for naive fp32 GEMM kernels, not a replacement for "
                "cuBLAS's own SGEMM; TF32 or fp16 would change precision (give "
                "allow-fp16-compute=1 to run it in fp16 with fp32 "
                "accumulation, as CUBLAS_COMPUTE_32F_FAST_16F allows, with "
                "an fp16-rounded result)");
  if (C.Kind == CublasGemmKind::Hgemm && !Opts.AllowFp16Compute)
    return fail("cublasHgemm accumulates in fp16; cudaoptGemm accumulates in "
                "fp32, which changes the results (give allow-fp16-compute=1 "
                "to accept that)");
  Result.Float32 = C.Kind == CublasGemmKind::Sgemm;
  Result.Problem.Type = "CUDAOPT_GEMM_F16";
  if (Error E = mapOperands(*TransA, *TransB, dim(3), dim(4), dim(5), arg(7),
                            ld(8), arg(9), ld(10), arg(12), ld(13)))
    return std::move(E);
  Result.Problem.Alpha = hostScalar(Call->getArg(6), !Result.Float32);
  Result.Problem.Beta = hostScalar(Call->getArg(11), !Result.Float32);
  return Result;
}

Expected<CublasGemmMapping> Mapper::mapLt() {
  // (lt, desc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo,
  //  workspace, workspaceSize, stream)
  if (Call->getNumArgs() != 16)
    return fail("expected 16 arguments");
  auto Wrap = [&](Error E) { return fail(toString(std::move(E))); };
  Expected<LtMatmulDesc> Desc =
      findLtMatmulDesc(Ctx, C.Caller, Call->getArg(1));
  if (!Desc)
    return Wrap(Desc.takeError());
  // The layouts of A, B, C and D.
  const unsigned LayoutArgs[4] = {4, 6, 9, 11};
  std::optional<LtMatrixLayout> Layouts[4];
  for (unsigned I = 0; I < 4; ++I) {
    Expected<LtMatrixLayout> L =
        findLtMatrixLayout(Ctx, C.Caller, Call->getArg(LayoutArgs[I]));
    if (!L)
      return Wrap(L.takeError());
    Layouts[I] = *L;
  }
  const LtMatrixLayout &LA = *Layouts[0], &LC = *Layouts[2], &LD = *Layouts[3];
  if (arg(10) != arg(8) || LD.Rows != LC.Rows || LD.Cols != LC.Cols ||
      LD.Ld != LC.Ld || LD.Type != LC.Type)
    return fail("D is not C with C's layout; cudaoptGemm writes its result "
                "over C");
  if (Desc->Scale != R32F)
    return fail("the scale type is not CUDA_R_32F");
  if (Error E = checkCompute(Desc->Compute))
    return std::move(E);
  if (Error E = checkTypes({LA.Type, Layouts[1]->Type, LC.Type},
                           {"the type of A's layout", "the type of B's layout",
                            "the type of C's layout"}))
    return std::move(E);
  // m x n is C's shape; k is A's inner dimension after op(A).
  std::string K = Desc->TransA == OpN ? LA.Cols : LA.Rows;
  if (Error E =
          mapOperands(Desc->TransA, Desc->TransB, LC.Rows, LC.Cols, K, arg(3),
                      LA.Ld, arg(5), Layouts[1]->Ld, arg(8), LC.Ld))
    return std::move(E);
  Result.Problem.Alpha = hostScalar(Call->getArg(2), /*Half=*/false);
  Result.Problem.Beta = hostScalar(Call->getArg(7), /*Half=*/false);
  Result.Stream = arg(15);
  return Result;
}

/// The local \p V when it has an initialiser and its function never assigns
/// it again (so the initialiser is its value everywhere); else null.
const VarDecl *unassignedLocal(const VarDecl *V) {
  if (!V || !V->hasLocalStorage() || !V->getInit() || isa<ParmVarDecl>(V))
    return nullptr;
  const auto *FD = dyn_cast<FunctionDecl>(V->getDeclContext());
  if (!FD || !FD->getBody())
    return nullptr;
  AssignmentCounter Count(V);
  Count.TraverseStmt(FD->getBody());
  return Count.Count ? nullptr : V;
}

} // namespace

const VarDecl *namedVar(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    if (UO->getOpcode() == UO_AddrOf)
      E = UO->getSubExpr()->IgnoreParenImpCasts();
  const auto *DRE = dyn_cast<DeclRefExpr>(E);
  return DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
}

std::optional<int64_t> constantArg(ASTContext &Ctx, const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (E->isValueDependent())
    return std::nullopt;
  Expr::EvalResult R;
  if (E->EvaluateAsInt(R, Ctx))
    return R.Val.getInt().getExtValue();
  // A local initialised with a constant and never assigned again.
  const VarDecl *V = unassignedLocal(namedVar(E));
  if (!V)
    return std::nullopt;
  if (V->getInit()->EvaluateAsInt(R, Ctx))
    return R.Val.getInt().getExtValue();
  return std::nullopt;
}

std::optional<double> constantScalarArg(ASTContext &Ctx, const Expr *E) {
  const auto *UO = dyn_cast<UnaryOperator>(E->IgnoreParenImpCasts());
  if (!UO || UO->getOpcode() != UO_AddrOf)
    return std::nullopt;
  const VarDecl *V = unassignedLocal(namedVar(UO));
  Expr::EvalResult R;
  if (!V || !V->getInit()->EvaluateAsRValue(R, Ctx))
    return std::nullopt;
  if (R.Val.isFloat())
    return R.Val.getFloat().convertToDouble();
  if (R.Val.isInt())
    return double(R.Val.getInt().getExtValue());
  return std::nullopt;
}

std::vector<CublasGemmCall> findCublasGemmCalls(ASTContext &Ctx) {
  CallCollector Collector(Ctx);
  Collector.TraverseDecl(Ctx.getTranslationUnitDecl());
  return std::move(Collector.Calls);
}

Expected<CublasGemmMapping> mapCublasGemm(ASTContext &Ctx,
                                          const CublasGemmCall &C,
                                          const CublasMapOptions &Opts) {
  return Mapper(Ctx, C, Opts).run();
}

} // namespace cuda_opt
