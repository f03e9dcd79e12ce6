//===- LibraryVariant.cpp - Measure a launch replaced by a library call --===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Measure/LibraryVariant.h"
#include "WorkerProtocol.h"
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
      {worker::library::Batch, I64(Batch)},
      {worker::library::StrideA, I64(*M) * I64(*KK)},
      {worker::library::StrideB, I64(*KK) * I64(*N)},
      {worker::library::StrideC, I64(*M) * I64(*N)},
      {worker::library::Kind, worker::library::KindGemm},
      {worker::library::Path, LibraryPath},
      {worker::library::M, I64(*M)},
      {worker::library::N, I64(*N)},
      {worker::library::K, I64(*KK)},
      {worker::library::DType, Match->F32    ? "f32"
                               : Match->BF16 ? "bf16"
                                             : "f16"},
      {worker::library::BLayout,
       Match->BColumnMajor ? worker::library::BLayoutCol : "row"},
      {worker::library::A, Match->A},
      {worker::library::B, Match->B},
      {worker::library::C, Match->C},
      {worker::library::Lda, I64(*KK)},
      {worker::library::Ldb, Match->BColumnMajor ? I64(*KK) : I64(*N)},
      {worker::library::Ldc, I64(*N)},
      {worker::library::Alpha, Alpha},
      {worker::library::Beta, 0.0}};
}

} // namespace cuda_opt
