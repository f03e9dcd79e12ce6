//===- MlirAbiCheck.cu - GPU check of _mlir_ciface_cuda_opt_tls_spmm ------===//
//
// tls-mlir-abi-check: calls the host function that `cuda-opt
// --lower-sparse-matmul` emits a call to (TlsMlirAbi.cu) the way the lowered
// module does: memref descriptors of the weight's four host arrays, the
// sizes, and X^T (N x K, here with a padded row stride), and compares the
// returned Y^T (N x M) with a double-precision CPU reference. The second and
// third calls reuse the uploaded weight (its cache) with new activations and
// another N. Prints PASS or what failed.
//
//===----------------------------------------------------------------------===//

#include "MlirMemRef.h"
#include "TlsFormat.h"

#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace cudaopt::sparse;

namespace {

template <typename T> MemRef<T, 1> view(std::vector<T> &V) {
  return {V.data(), V.data(), 0, {int64_t(V.size())}, {1}};
}

} // namespace

extern "C" void _mlir_ciface_cuda_opt_tls_spmm(
    MemRef<uint16_t, 2> *Result, MemRef<uint16_t, 1> *Values,
    MemRef<uint32_t, 1> *Bitmap, MemRef<uint32_t, 1> *Offsets,
    MemRef<uint16_t, 1> *Residual, int32_t M, int32_t K,
    int32_t MaxBlockResidual, MemRef<uint16_t, 2> *Xt);

namespace {

uint16_t toHalf(float F) { return __half_as_ushort(__float2half_rn(F)); }
float fromHalf(uint16_t H) { return __half2float(__ushort_as_half(H)); }

int Failures = 0;

void runCall(TlsMatrix &W, const std::vector<uint16_t> &Dense, int N,
             uint64_t Seed) {
  const int M = int(W.Rows), K = int(W.Cols), Pitch = K + 8;
  std::mt19937_64 Rng(Seed);
  std::uniform_real_distribution<float> U(-1.f, 1.f);
  std::vector<uint16_t> Xt(size_t(N) * Pitch, 0xFFFF); // NaN padding
  for (int Nn = 0; Nn < N; ++Nn)
    for (int Kk = 0; Kk < K; ++Kk)
      Xt[size_t(Nn) * Pitch + Kk] = toHalf(U(Rng));
  MemRef<uint16_t, 2> XtRef{Xt.data(), Xt.data(), 0, {N, K}, {Pitch, 1}};
  auto Values = view(W.Values);
  auto Bitmap = view(W.Bitmap);
  auto Offsets = view(W.ResidualOffsets);
  auto Residual = view(W.Residual);
  MemRef<uint16_t, 2> Result{};
  _mlir_ciface_cuda_opt_tls_spmm(&Result, &Values, &Bitmap, &Offsets,
                                 &Residual, M, K,
                                 int32_t(computeStats(W).MaxBlockResidual),
                                 &XtRef);
  if (Result.Sizes[0] != N || Result.Sizes[1] != M ||
      Result.Strides[0] != M || Result.Strides[1] != 1) {
    std::printf("FAIL: N=%d: result descriptor %lld x %lld, strides %lld, "
                "%lld\n",
                N, (long long)Result.Sizes[0], (long long)Result.Sizes[1],
                (long long)Result.Strides[0], (long long)Result.Strides[1]);
    ++Failures;
    return;
  }
  double Num = 0, Den = 0;
  bool Bad = false;
  for (int Nn = 0; Nn < N; ++Nn)
    for (int R = 0; R < M; ++R) {
      double S = 0;
      for (int Kk = 0; Kk < K; ++Kk)
        if (Dense[size_t(R) * K + Kk])
          S += double(fromHalf(Dense[size_t(R) * K + Kk])) *
               fromHalf(Xt[size_t(Nn) * Pitch + Kk]);
      float Y = fromHalf(Result.Aligned[Result.Offset + size_t(Nn) * M + R]);
      Bad |= !std::isfinite(Y);
      Num += (Y - S) * (Y - S);
      Den += S * S;
    }
  double Err = Den > 0 ? std::sqrt(Num / Den) : std::sqrt(Num);
  std::printf("%s M=%d K=%d N=%d: rel err %.2e%s\n",
              Bad || Err > 1e-2 ? "FAIL" : "ok", M, K, N, Err,
              Bad ? " (non-finite output)" : "");
  Failures += Bad || Err > 1e-2;
  std::free(Result.Allocated);
}

} // namespace

int main() {
  const int M = 200, K = 1032; // K % 8 == 0, not a multiple of 256
  std::mt19937_64 Rng(7);
  std::normal_distribution<float> Normal(0.f, 1.f);
  std::uniform_real_distribution<float> P(0.f, 1.f);
  std::vector<uint16_t> Dense(size_t(M) * K);
  for (auto &V : Dense)
    V = P(Rng) < 0.5 ? 0 : toHalf(Normal(Rng));
  TlsMatrix W = encode(Dense.data(), M, K, ElemType::F16);
  runCall(W, Dense, 8, 1);
  runCall(W, Dense, 8, 2);  // the cached upload, new activations
  runCall(W, Dense, 37, 3); // another N (workspace grows)
  if (Failures) {
    std::printf("%d FAILED\n", Failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
