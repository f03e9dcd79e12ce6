//===- TlsCpuRuntime.cpp - A CPU stand-in for the TLS SpMM runtime --------===//
//
// The C entry points of runtime/sparse/lib/TlsMlirAbi.h with the GPU kernel
// replaced by the CPU decoder and an fp32-accumulating matmul, for
// run-cpu.test: a lowered module runs end to end under mlir-runner on a
// machine without a GPU. The host side is the real one (TlsWeightCache.h:
// the same cache keys, fingerprints, encoders and change detection as
// TlsMlirAbi.cu); only tlsUpload + tlsSpmm are replaced. Also exports
// tls_cpu_check[_bf16], which the test module calls to compare a result
// with W * X + Acc computed here in double precision.
//
//===----------------------------------------------------------------------===//

#include "TlsMlirAbi.h"
#include "TlsWeightCache.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace cudaopt::sparse;

namespace {

float halfToFloat(uint16_t H) {
  const uint32_t Sign = uint32_t(H >> 15) << 31, Exp = (H >> 10) & 0x1F,
                 Man = H & 0x3FF;
  float F;
  if (Exp == 0)
    F = std::ldexp(float(Man), -24);
  else if (Exp == 31)
    F = Man ? NAN : INFINITY;
  else
    F = std::ldexp(float(Man | 0x400), int(Exp) - 25);
  uint32_t Bits;
  std::memcpy(&Bits, &F, 4);
  Bits |= Sign;
  std::memcpy(&F, &Bits, 4);
  return F;
}

uint16_t floatToHalf(float F) {
  // Round to nearest even through double arithmetic on the magnitude.
  uint16_t Sign = std::signbit(F) ? 0x8000 : 0;
  double A = std::fabs(double(F));
  if (std::isnan(F))
    return 0x7E00;
  if (A >= 65520.0)
    return Sign | 0x7C00;
  if (A < std::ldexp(1.0, -14)) { // subnormal: units of 2^-24
    double Q = std::nearbyint(A * std::ldexp(1.0, 24));
    return Sign | uint16_t(Q);
  }
  int E;
  std::frexp(A, &E); // A = f * 2^E, f in [0.5, 1)
  double Q = std::nearbyint(std::ldexp(A, 11 - E)); // 11 significant bits
  if (Q >= 2048) {
    Q /= 2;
    ++E;
  }
  return Sign | uint16_t((E + 14) << 10) | (uint16_t(Q) & 0x3FF);
}

float bf16ToFloat(uint16_t H) {
  uint32_t Bits = uint32_t(H) << 16;
  float F;
  std::memcpy(&F, &Bits, 4);
  return F;
}

uint16_t floatToBf16(float F) {
  uint32_t Bits;
  std::memcpy(&Bits, &F, 4);
  if (std::isnan(F))
    return 0x7FC0;
  Bits += 0x7FFF + ((Bits >> 16) & 1);
  return uint16_t(Bits >> 16);
}

float toFloat(uint16_t H, ElemType T) {
  return T == ElemType::BF16 ? bf16ToFloat(H) : halfToFloat(H);
}
uint16_t fromFloat(float F, ElemType T) {
  return T == ElemType::BF16 ? floatToBf16(F) : floatToHalf(F);
}

/// The "device" copy of a weight: its decoded dense matrix.
struct CpuWeight {
  uint32_t Rows = 0, Cols = 0, MaxBlockResidual = 0;
  ElemType Type = ElemType::F16;
  std::vector<uint16_t> Dense;
};

WeightCache<CpuWeight> Cache;

[[noreturn]] void die(const char *Entry, const std::string &What) {
  std::fprintf(stderr, "%s: %s\n", Entry, What.c_str());
  std::fflush(stdout);
  std::abort();
}

const CpuWeight &cached(const char *Entry, const WeightRequest &R,
                        const std::string &RequestError) {
  if (!RequestError.empty())
    die(Entry, RequestError);
  std::string Error;
  CpuWeight *W = Cache.get(
      R.Key, R.Fingerprint,
      [&](CpuWeight &Out, std::string &Err) {
        TlsMatrix M;
        Err = R.encode(M);
        if (!Err.empty())
          return false;
        Out.Rows = M.Rows;
        Out.Cols = M.Cols;
        Out.Type = M.Type;
        Out.MaxBlockResidual = computeStats(M).MaxBlockResidual;
        Out.Dense.resize(size_t(M.Rows) * M.Cols);
        decode(M, Out.Dense.data());
        return true;
      },
      Error);
  if (!W)
    die(Entry, Error);
  return *W;
}

/// Y^T = (W X)^T from X^T (N x K), fp32 accumulation, as tlsSpmm.
void runSpmm(const char *Entry, const CpuWeight &W, MemRef<uint16_t, 2> *Result,
             const MemRef<uint16_t, 2> *Xt) {
  const int64_t M = W.Rows, K = W.Cols, N = Xt->Sizes[0];
  if (Xt->Sizes[1] != K)
    die(Entry, "X^T has the wrong number of columns (not the weight's K)");
  const size_t Bytes = size_t(N) * size_t(M) * sizeof(uint16_t);
  uint16_t *Y = static_cast<uint16_t *>(std::malloc(Bytes ? Bytes : 1));
  for (int64_t Nn = 0; Nn < N; ++Nn)
    for (int64_t R = 0; R < M; ++R) {
      float Acc = 0;
      for (int64_t Kk = 0; Kk < K; ++Kk) {
        uint16_t Wv = W.Dense[size_t(R * K + Kk)];
        if (Wv)
          Acc += toFloat(Wv, W.Type) *
                 toFloat(Xt->Aligned[Xt->Offset + Nn * Xt->Strides[0] +
                                     Kk * Xt->Strides[1]],
                         W.Type);
      }
      Y[Nn * M + R] = fromFloat(Acc, W.Type);
    }
  Result->Allocated = Y;
  Result->Aligned = Y;
  Result->Offset = 0;
  Result->Sizes[0] = N;
  Result->Sizes[1] = M;
  Result->Strides[0] = M;
  Result->Strides[1] = 1;
}

void spmmEncoded(const char *Entry, ElemType Type, MemRef<uint16_t, 2> *Result,
                 MemRef<uint16_t, 1> *Values, MemRef<uint32_t, 1> *Bitmap,
                 MemRef<uint32_t, 1> *Offsets, MemRef<uint16_t, 1> *Residual,
                 int32_t M, int32_t K, int32_t MaxBlockResidual,
                 MemRef<uint16_t, 2> *Xt) {
  std::string Error;
  WeightRequest R =
      encodedWeight(*Values, *Bitmap, *Offsets, *Residual, M, K, Type, Error);
  const CpuWeight &W = cached(Entry, R, Error);
  if (W.MaxBlockResidual != uint32_t(MaxBlockResidual))
    die(Entry, "the max block residual operand does not match the arrays");
  runSpmm(Entry, W, Result, Xt);
}

uint64_t samples() {
  const char *V = std::getenv("CUDA_OPT_TLS_VERIFY_WEIGHTS");
  return V && *V && std::strcmp(V, "0") != 0 ? 0 : WeightSamples;
}

} // namespace

extern "C" {

void _mlir_ciface_cuda_opt_tls_spmm(MemRef<uint16_t, 2> *Result,
                                    MemRef<uint16_t, 1> *Values,
                                    MemRef<uint32_t, 1> *Bitmap,
                                    MemRef<uint32_t, 1> *Offsets,
                                    MemRef<uint16_t, 1> *Residual, int32_t M,
                                    int32_t K, int32_t MaxBlockResidual,
                                    MemRef<uint16_t, 2> *Xt) {
  spmmEncoded("cuda_opt_tls_spmm", ElemType::F16, Result, Values, Bitmap,
              Offsets, Residual, M, K, MaxBlockResidual, Xt);
}

void _mlir_ciface_cuda_opt_tls_spmm_bf16(
    MemRef<uint16_t, 2> *Result, MemRef<uint16_t, 1> *Values,
    MemRef<uint32_t, 1> *Bitmap, MemRef<uint32_t, 1> *Offsets,
    MemRef<uint16_t, 1> *Residual, int32_t M, int32_t K,
    int32_t MaxBlockResidual, MemRef<uint16_t, 2> *Xt) {
  spmmEncoded("cuda_opt_tls_spmm_bf16", ElemType::BF16, Result, Values, Bitmap,
              Offsets, Residual, M, K, MaxBlockResidual, Xt);
}

void _mlir_ciface_cuda_opt_tls_spmm_dense_weight(MemRef<uint16_t, 2> *Result,
                                                 MemRef<uint16_t, 2> *W,
                                                 MemRef<uint16_t, 2> *Xt) {
  std::string Error;
  WeightRequest R = denseWeight(*W, ElemType::F16, samples(), Error);
  runSpmm("cuda_opt_tls_spmm_dense_weight",
          cached("cuda_opt_tls_spmm_dense_weight", R, Error), Result, Xt);
}

void _mlir_ciface_cuda_opt_tls_spmm_dense_weight_bf16(
    MemRef<uint16_t, 2> *Result, MemRef<uint16_t, 2> *W,
    MemRef<uint16_t, 2> *Xt) {
  std::string Error;
  WeightRequest R = denseWeight(*W, ElemType::BF16, samples(), Error);
  runSpmm("cuda_opt_tls_spmm_dense_weight_bf16",
          cached("cuda_opt_tls_spmm_dense_weight_bf16", R, Error), Result, Xt);
}

void _mlir_ciface_cuda_opt_tls_spmm_csr_weight(MemRef<uint16_t, 2> *Result,
                                               MemRef<int64_t, 1> *Positions,
                                               MemRef<int64_t, 1> *Coordinates,
                                               MemRef<uint16_t, 1> *Values,
                                               int32_t M, int32_t K,
                                               MemRef<uint16_t, 2> *Xt) {
  std::string Error;
  WeightRequest R = csrWeight(*Positions, *Coordinates, *Values, M, K,
                              ElemType::F16, samples(), Error);
  runSpmm("cuda_opt_tls_spmm_csr_weight",
          cached("cuda_opt_tls_spmm_csr_weight", R, Error), Result, Xt);
}

void _mlir_ciface_cuda_opt_tls_spmm_csr_weight_bf16(
    MemRef<uint16_t, 2> *Result, MemRef<int64_t, 1> *Positions,
    MemRef<int64_t, 1> *Coordinates, MemRef<uint16_t, 1> *Values, int32_t M,
    int32_t K, MemRef<uint16_t, 2> *Xt) {
  std::string Error;
  WeightRequest R = csrWeight(*Positions, *Coordinates, *Values, M, K,
                              ElemType::BF16, samples(), Error);
  runSpmm("cuda_opt_tls_spmm_csr_weight_bf16",
          cached("cuda_opt_tls_spmm_csr_weight_bf16", R, Error), Result, Xt);
}

int cuda_opt_tls_forget_weight(const void *Data) {
  return int(Cache.forget(Data, [](CpuWeight &) {}));
}

/// Compares Y (M x N) with W (M x K) * X (K x N) + Acc (M x N), computed in
/// double from the same 16-bit inputs, and prints one line: the case number,
/// the shape, the relative error and how many weights the cache has encoded
/// so far.
static void check(ElemType T, int32_t Case, MemRef<uint16_t, 2> *Y,
                  MemRef<uint16_t, 2> *W, MemRef<uint16_t, 2> *X,
                  MemRef<uint16_t, 2> *Acc) {
  auto At = [](MemRef<uint16_t, 2> *A, int64_t I, int64_t J) {
    return A->Aligned[A->Offset + I * A->Strides[0] + J * A->Strides[1]];
  };
  const int64_t M = W->Sizes[0], K = W->Sizes[1], N = X->Sizes[1];
  bool ShapeOk = Y->Sizes[0] == M && Y->Sizes[1] == N && X->Sizes[0] == K &&
                 Acc->Sizes[0] == M && Acc->Sizes[1] == N;
  double Num = 0, Den = 0;
  for (int64_t I = 0; ShapeOk && I < M; ++I)
    for (int64_t J = 0; J < N; ++J) {
      double S = toFloat(At(Acc, I, J), T);
      for (int64_t Kk = 0; Kk < K; ++Kk)
        S += double(toFloat(At(W, I, Kk), T)) * toFloat(At(X, Kk, J), T);
      double D = toFloat(At(Y, I, J), T) - S;
      Num += D * D;
      Den += S * S;
    }
  double Err = Den > 0 ? std::sqrt(Num / Den) : std::sqrt(Num);
  const double Tol = T == ElemType::BF16 ? 1e-2 : 2e-3;
  std::printf(
      "%s case %d (%s) %lld x %lld x %lld: rel err %.1e, encodes %llu\n",
      ShapeOk && Err <= Tol ? "ok" : "FAIL", Case,
      T == ElemType::BF16 ? "bf16" : "f16", (long long)M, (long long)K,
      (long long)N, Err, (unsigned long long)Cache.builds());
  std::fflush(stdout);
}

void _mlir_ciface_tls_cpu_check(int32_t Case, MemRef<uint16_t, 2> *Y,
                                MemRef<uint16_t, 2> *W, MemRef<uint16_t, 2> *X,
                                MemRef<uint16_t, 2> *Acc) {
  check(ElemType::F16, Case, Y, W, X, Acc);
}

void _mlir_ciface_tls_cpu_check_bf16(int32_t Case, MemRef<uint16_t, 2> *Y,
                                     MemRef<uint16_t, 2> *W,
                                     MemRef<uint16_t, 2> *X,
                                     MemRef<uint16_t, 2> *Acc) {
  check(ElemType::BF16, Case, Y, W, X, Acc);
}

} // extern "C"
