//===- LibraryVariant.cpp - Measure a launch replaced by a library call --===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Measure/LibraryVariant.h"
#include "cuda-opt/Analysis/GemmKernelMatch.h"

#include "clang/AST/ASTContext.h"
#include <cstring>

using namespace llvm;

namespace cuda_opt {

/// The captured by-value argument \p I read as a number of its type.
static std::optional<double> capturedNumber(clang::ASTContext &Ctx,
                                            const KernelInfo &K,
                                            const CapturedLaunch &L,
                                            unsigned I) {
  if (I >= L.Params.size() || L.Params[I].K != CapturedParam::Value)
    return std::nullopt;
  const std::vector<uint8_t> &B = L.Params[I].Bytes;
  clang::QualType T = K.Decl->getParamDecl(I)->getType().getCanonicalType();
  if (T->isSpecificBuiltinType(clang::BuiltinType::Float) && B.size() == 4) {
    float F;
    std::memcpy(&F, B.data(), 4);
    return F;
  }
  if (T->isSpecificBuiltinType(clang::BuiltinType::Double) && B.size() == 8) {
    double D;
    std::memcpy(&D, B.data(), 8);
    return D;
  }
  if (std::optional<int64_t> V = capturedInteger(L.Params[I], T))
    return static_cast<double>(*V);
  return std::nullopt;
}

Expected<json::Object> gemmLibraryCall(clang::ASTContext &Ctx,
                                       const KernelInfo &K,
                                       const CapturedLaunch &L,
                                       StringRef LibraryPath) {
  Expected<GemmKernelMatch> Match = matchGemmKernel(Ctx, K);
  if (!Match)
    return Match.takeError();
  std::optional<double> M = capturedNumber(Ctx, K, L, Match->M);
  std::optional<double> N = capturedNumber(Ctx, K, L, Match->N);
  std::optional<double> KK = capturedNumber(Ctx, K, L, Match->K);
  if (!M || !N || !KK || *M <= 0 || *N <= 0 || *KK <= 0 || *M > INT32_MAX ||
      *N > INT32_MAX || *KK > INT32_MAX)
    return createStringError(inconvertibleErrorCode(),
                             "the captured launch has no positive M, N, K "
                             "that fit cudaoptGemm's int sizes");
  double Alpha = 1;
  if (Match->Alpha) {
    std::optional<double> A = capturedNumber(Ctx, K, L, *Match->Alpha);
    if (!A)
      return createStringError(inconvertibleErrorCode(),
                               "alpha is not a captured float or double");
    Alpha = *A;
  }
  double Batch = 1;
  if (Match->Batch) {
    std::optional<double> B = capturedNumber(Ctx, K, L, *Match->Batch);
    if (!B || *B < 1 || *B > 65535)
      return createStringError(inconvertibleErrorCode(),
                               "the captured batch count is not in 1..65535");
    Batch = *B;
  }
  auto I64 = [](double V) { return static_cast<int64_t>(V); };
  return json::Object{
      {"batch", I64(Batch)},
      {"stride_a", I64(*M) * I64(*KK)},
      {"stride_b", I64(*KK) * I64(*N)},
      {"stride_c", I64(*M) * I64(*N)},
      {"kind", "cudaopt_gemm"},
      {"path", LibraryPath},
      {"m", I64(*M)},
      {"n", I64(*N)},
      {"k", I64(*KK)},
      {"dtype", Match->F32 ? "f32" : Match->BF16 ? "bf16" : "f16"},
      {"b_layout", Match->BColumnMajor ? "col" : "row"},
      {"a", Match->A},
      {"b", Match->B},
      {"c", Match->C},
      {"lda", I64(*KK)},
      {"ldb", Match->BColumnMajor ? I64(*KK) : I64(*N)},
      {"ldc", I64(*N)},
      {"alpha", Alpha},
      {"beta", 0.0}};
}

} // namespace cuda_opt
