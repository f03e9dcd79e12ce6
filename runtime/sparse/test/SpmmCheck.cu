//===- SpmmCheck.cu - GPU correctness test of the three-layer SpMM --------===//
//
// tls-spmm-check: runs tlsSpmm on small, awkward shapes (M not a multiple
// of 16, K not a multiple of 256, N from 1 to 70, padded Ldx/Ldy), fp16 and
// bf16, for every kernel variant (both pipelines, n-tiles 8 to 128) and
// several split settings (one output tile per CTA, three CTAs per tile, one
// wave of stream-K CTAs, two waves), plus the planner's own choices (default,
// pipeline 2, n-tile up to 128, the bit-sliced decodes 1-3), and compares
// with a double-precision CPU reference. Outputs are poisoned (NaN) before
// each run and surrounded by guard bands. Prints PASS or the failures.
// (The benchmark checks the 31 large shapes; this covers the edges.)
//
//===----------------------------------------------------------------------===//

#include "TlsFormat.h"
#include "TlsSpmm.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

using namespace cudaopt::sparse;

namespace {

int Failures = 0;

bool Bf16 = false; // element type of the current case

uint16_t toHalf(float F) {
  return Bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(F))
              : __half_as_ushort(__float2half_rn(F));
}
float fromHalf(uint16_t H) {
  return Bf16 ? __bfloat162float(__ushort_as_bfloat16(H))
              : __half2float(__ushort_as_half(H));
}

bool check(cudaError_t E, const char *What) {
  if (E == cudaSuccess)
    return true;
  std::printf("FAIL: %s: %s\n", What, cudaGetErrorString(E));
  ++Failures;
  return false;
}

void runCase(uint32_t M, uint32_t K, int N, double Sparsity, uint64_t Seed) {
  std::mt19937_64 Rng(Seed);
  std::normal_distribution<float> Normal(0.f, 1.f);
  std::uniform_real_distribution<float> U(-1.f, 1.f), P(0.f, 1.f);
  std::vector<uint16_t> W(size_t(M) * K);
  for (auto &V : W)
    V = P(Rng) < Sparsity ? 0 : toHalf(Normal(Rng));
  int Ldx = int((K + 7) / 8 * 8) + 8, Ldy = int(M) + 3;
  std::vector<uint16_t> X(size_t(N) * Ldx, 0);
  for (int C = 0; C < N; ++C)
    for (uint32_t R = 0; R < K; ++R)
      X[size_t(C) * Ldx + R] = toHalf(U(Rng));
  // Reference in double from the fp16 inputs.
  std::vector<double> Ref(size_t(N) * M, 0.0);
  for (int C = 0; C < N; ++C)
    for (uint32_t R = 0; R < M; ++R) {
      double S = 0;
      for (uint32_t Kk = 0; Kk < K; ++Kk)
        if (W[size_t(R) * K + Kk])
          S += double(fromHalf(W[size_t(R) * K + Kk])) *
               fromHalf(X[size_t(C) * Ldx + Kk]);
      Ref[size_t(C) * M + R] = S;
    }

  TlsMatrix TM = encode(W.data(), M, K, Bf16 ? ElemType::BF16 : ElemType::F16);
  TlsDeviceMatrix D;
  if (!check(tlsUpload(TM, D), "upload"))
    return;
  uint16_t *DX, *DY;
  const size_t Guard = 1024, YElems = size_t(N) * Ldy;
  check(cudaMalloc(&DX, X.size() * 2), "malloc X");
  check(cudaMalloc(&DY, (YElems + 2 * Guard) * 2), "malloc Y");
  check(cudaMemcpy(DX, X.data(), X.size() * 2, cudaMemcpyHostToDevice), "X");
  size_t WsBytes = size_t(64) << 20;
  void *Ws;
  check(cudaMalloc(&Ws, WsBytes), "malloc workspace");
  check(cudaMemset(Ws, 0, WsBytes), "zero workspace");

  std::vector<TlsSpmmOptions> Plans;
  for (TlsSpmmOptions O : tlsSpmmVariants())
    for (int Split : {0, 1, 3, -2}) {
      O.SplitK = Split > 0 ? Split : 0;
      O.WavesTarget = Split < 0 ? -Split : 0;
      if (tlsSpmmPlan(D, N, O).Stages)
        Plans.push_back(O);
    }
  Plans.push_back(TlsSpmmOptions()); // the default plan
  for (int Pipe : {1, 2, 3})
    for (int MaxNt : {64, 128}) {
      TlsSpmmOptions O; // the planner's choice of variant
      O.Pipeline = Pipe;
      O.MaxNTile = MaxNt;
      if (tlsSpmmPlan(D, N, O).Stages)
        Plans.push_back(O);
    }
  for (int Decode : {0, 1, 2, 3, 4}) {
    TlsSpmmOptions O; // the planner's choice with the bit-sliced decodes
    O.Decode = Decode;
    if (tlsSpmmPlan(D, N, O).Stages)
      Plans.push_back(O);
  }
  std::vector<uint16_t> Y(YElems + 2 * Guard);
  for (const TlsSpmmOptions &O : Plans) {
    check(cudaMemset(DY, 0xA5, (YElems + 2 * Guard) * 2), "guard");
    check(cudaMemset(DY + Guard, 0xFF, YElems * 2), "poison");
    if (tlsSpmmWorkspaceBytes(D, N, O) > WsBytes)
      continue;
    cudaError_t Launch =
        Bf16 ? tlsSpmm(D, reinterpret_cast<const __nv_bfloat16 *>(DX), Ldx, N,
                       reinterpret_cast<__nv_bfloat16 *>(DY + Guard), Ldy, Ws,
                       WsBytes, 0, O)
             : tlsSpmm(D, reinterpret_cast<const __half *>(DX), Ldx, N,
                       reinterpret_cast<__half *>(DY + Guard), Ldy, Ws,
                       WsBytes, 0, O);
    if (!check(Launch, "launch") ||
        !check(cudaDeviceSynchronize(), "run"))
      continue;
    check(cudaMemcpy(Y.data(), DY, Y.size() * 2, cudaMemcpyDeviceToHost),
          "Y");
    double Num = 0, Den = 0;
    bool Bad = false;
    for (size_t I = 0; I < Guard; ++I)
      Bad |= Y[I] != 0xA5A5 || Y[Guard + YElems + I] != 0xA5A5;
    for (int C = 0; C < N; ++C)
      for (int R = 0; R < Ldy; ++R) {
        uint16_t V = Y[Guard + size_t(C) * Ldy + R];
        if (R >= int(M)) { // padding between columns must stay poisoned
          Bad |= V != 0xFFFF;
          continue;
        }
        float F = fromHalf(V);
        if (!std::isfinite(F)) {
          Bad = true;
          continue;
        }
        double E = F - Ref[size_t(C) * M + R];
        Num += E * E;
        Den += Ref[size_t(C) * M + R] * Ref[size_t(C) * M + R];
      }
    double Err = Den > 0 ? std::sqrt(Num / Den) : std::sqrt(Num);
    TlsSpmmPlan Pl = tlsSpmmPlan(D, N, O);
    if (Bad || Err > 1e-2) {
      std::printf("FAIL: %s M=%u K=%u N=%d s=%.1f nt%d w%d s%d p%d%s k%d "
                  "ctas %d: err %.2e%s\n",
                  Bf16 ? "bf16" : "f16", M, K, N, Sparsity, Pl.NTile, Pl.Warps,
                  Pl.Stages, Pl.Pipeline,
                  O.Decode == 4   ? " bit-sliced+min-gather, unrolled"
                  : O.Decode == 3 ? " bit-sliced+min-gather"
                  : O.Decode == 2 ? " bit-sliced+ranked"
                  : O.Decode == 1 ? " bit-sliced"
                                  : "",
                  Pl.SplitK, Pl.Ctas, Err,
                  Bad ? " (unwritten/guard/NaN)" : "");
      ++Failures;
    }
  }
  std::printf("ok %s M=%u K=%u N=%d s=%.1f (%zu plans)\n",
              Bf16 ? "bf16" : "f16", M, K, N, Sparsity, Plans.size());
  cudaFree(DX);
  cudaFree(DY);
  cudaFree(Ws);
  tlsFree(D);
}

} // namespace

int main() {
  const struct {
    uint32_t M, K;
    int N;
    double S;
  } Cases[] = {
      {16, 256, 8, 0.5},  {37, 300, 3, 0.5},  {130, 777, 17, 0.3},
      {64, 1024, 70, 0.5}, {200, 2048, 1, 0.9}, {48, 520, 33, 0.0},
      {96, 4096, 16, 0.6}, {1, 5, 2, 0.5},   {300, 3000, 8, 0.5},
      {512, 1536, 64, 0.5}, {70, 2600, 130, 0.5},
      // Dense blocks at N > 64: the default plan must fall back from the
      // n-tile 128 and warp-ring variants that do not fit.
      {48, 520, 100, 0.0},
  };
  uint64_t Seed = 1;
  for (int B = 0; B < 2; ++B) {
    Bf16 = B == 1;
    for (const auto &C : Cases)
      runCase(C.M, C.K, C.N, C.S, Seed++);
  }
  if (Failures) {
    std::printf("%d FAILED\n", Failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
