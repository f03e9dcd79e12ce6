//===- LlamaDecode.cu - One decode step of a LLaMA stack, dense vs TLS -----===//
//
// Issue 15 item 3. A LLaMA-2-7B (or 13B) shaped stack of decoder layers with
// random weights, 50 % per-row magnitude pruned, run one decode step at a
// time for a batch of sequences that each hold `Context` cached positions:
//   per layer: RMSNorm, q/k/v linears, RoPE + KV-cache append, decode
//   attention, o linear, residual add, RMSNorm, gate/up linears, SiLU * mul,
//   down linear, residual add; then RMSNorm and the lm_head linear.
// Arm "dense": the seven linears of every layer through cuBLAS with the
// fastest of cublasGemmEx's default and cuBLASLt's heuristic algorithms,
// measured per shape. Arm "tls": the same pruned weights in the three-layer
// format through tlsSpmm with the fastest of its planner's plan and the
// built variants, measured per shape. Everything else (norms, attention,
// lm_head, kept dense in both arms) is the same code on the same buffers.
// Each arm's step is captured in a CUDA graph; steps are timed by events
// around single graph launches, the two arms interleaved. The hidden states
// after the last layer are compared between the arms (relative L2 error).
// A second, instrumented pass times each op between events for the
// per-op shares and the ratio predicted from the linears alone.
//
// Every layer has its own weights (nothing is shared between layers, so no
// layer's weights are found in L2 by the next).
//
//===----------------------------------------------------------------------===//

#include "DecodeKernels.cuh"
#include "TlsSpmm.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace cudaopt::sparse;

#define CK(X)                                                                  \
  do {                                                                         \
    cudaError_t E_ = (X);                                                      \
    if (E_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #X,          \
                   cudaGetErrorString(E_));                                    \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)
#define CB(X)                                                                  \
  do {                                                                         \
    cublasStatus_t S_ = (X);                                                   \
    if (S_ != CUBLAS_STATUS_SUCCESS) {                                         \
      std::fprintf(stderr, "%s:%d: %s: cublas status %d\n", __FILE__,         \
                   __LINE__, #X, int(S_));                                     \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

namespace {

struct ModelShape {
  const char *Name;
  int Hidden, Heads, Inter, Layers, Vocab;
};
const ModelShape Models[] = {{"llama2-7b", 4096, 32, 11008, 32, 32000},
                             {"llama2-13b", 5120, 40, 13824, 40, 32000}};

// DenseDefault: cublasGemmEx's default algorithm for every linear, run
// only in the correctness pass: its distance from Dense is the noise floor
// of the comparison (the same weights and math, another summation order).
enum Arm { Dense = 0, Tls = 1, DenseDefault = 2 };
const char *ArmName[] = {"dense", "tls", "dense-default"};

// Op categories for the per-op shares.
enum Cat { CNorm, CQkv, CRope, CAttn, CO, CAdd, CGateUp, CSilu, CDown, CHead, NCat };
const char *CatName[] = {"rmsnorm",    "qkv linears", "rope+append",
                         "attention",  "o linear",    "residual add",
                         "gate/up linears", "silu*mul", "down linear",
                         "lm_head"};
bool isSparseLinear(int C) {
  return C == CQkv || C == CO || C == CGateUp || C == CDown;
}

// ---------------------------------------------------------------------------
// Weights: N(0, 1/K) values, 50 % per-row magnitude pruning, fp16.

void makePrunedWeight(std::vector<uint16_t> &W, int M, int K, float Std,
                      uint64_t Seed, unsigned Threads) {
  W.resize(size_t(M) * K);
  auto Work = [&](int T) {
    std::vector<float> Row(K), Abs(K);
    for (int R = T; R < M; R += int(Threads)) {
      std::mt19937_64 Rng(Seed * 0x9E3779B97F4A7C15ull + uint64_t(R));
      std::normal_distribution<float> Nd(0.f, Std);
      for (int C = 0; C < K; ++C) {
        Row[C] = Nd(Rng);
        Abs[C] = std::fabs(Row[C]);
      }
      // Keep the K / 2 largest magnitudes of the row.
      std::nth_element(Abs.begin(), Abs.begin() + K / 2, Abs.end());
      const float Cut = Abs[K / 2];
      uint16_t *Out = W.data() + size_t(R) * K;
      for (int C = 0; C < K; ++C) {
        __half H = __float2half(std::fabs(Row[C]) >= Cut ? Row[C] : 0.f);
        std::memcpy(&Out[C], &H, 2);
      }
    }
  };
  std::vector<std::thread> Pool;
  for (unsigned T = 0; T < Threads; ++T)
    Pool.emplace_back(Work, int(T));
  for (auto &T : Pool)
    T.join();
}

struct Linear {
  int M = 0, K = 0;
  __half *Dense = nullptr; // M x K row-major
  TlsDeviceMatrix Sparse;
  uint64_t TlsBytes = 0;
};

// ---------------------------------------------------------------------------
// The two GEMM back ends, each with a per-shape choice measured once.

struct LtChoice {
  bool UseLt = false;
  cublasLtMatmulDesc_t Desc = nullptr;
  cublasLtMatrixLayout_t A = nullptr, B = nullptr, C = nullptr;
  cublasLtMatmulAlgo_t Algo;
};

struct Context {
  cudaStream_t Stream;
  cublasHandle_t Blas;
  cublasLtHandle_t Lt;
  void *BlasWs;
  size_t BlasWsBytes = size_t(64) << 20;
  void *TlsWs = nullptr;
  size_t TlsWsBytes = 0;
  // Key: M, K, N, Ldy.
  std::map<std::tuple<int, int, int, int>, LtChoice> DenseChoice;
  std::map<std::tuple<int, int, int, int>, TlsSpmmOptions> TlsChoice;
  cudaEvent_t E0, E1;
  __half *Ref = nullptr; // a linear's reference output (largest M x N)
  double *Acc = nullptr;
  int Rejected = 0; // candidates whose output was wrong
};

float timeIt(Context &Cx, const std::function<void()> &F, int Reps) {
  for (int I = 0; I < 3; ++I)
    F();
  std::vector<float> T;
  for (int I = 0; I < Reps; ++I) {
    CK(cudaEventRecord(Cx.E0, Cx.Stream));
    F();
    CK(cudaEventRecord(Cx.E1, Cx.Stream));
    CK(cudaEventSynchronize(Cx.E1));
    float Ms;
    CK(cudaEventElapsedTime(&Ms, Cx.E0, Cx.E1));
    T.push_back(Ms);
  }
  std::nth_element(T.begin(), T.begin() + T.size() / 2, T.end());
  return T[T.size() / 2];
}

/// Acc[0] += sum (Y - Ref)^2, Acc[1] += sum Ref^2 over an M x N output (Y
/// with leading dimension Ldy, Ref with M); Acc[2] counts non-finite Y.
__global__ void diffKernel(const __half *Y, int Ldy, const __half *Ref, int M,
                           int N, double *Acc) {
  double D = 0, R = 0, Bad = 0;
  const size_t Total = size_t(M) * N;
  for (size_t I = blockIdx.x * size_t(blockDim.x) + threadIdx.x; I < Total;
       I += size_t(gridDim.x) * blockDim.x) {
    const size_t Col = I / M, Row = I - Col * M;
    const double Yv = __half2float(Y[Col * Ldy + Row]);
    const double Rv = __half2float(Ref[I]);
    if (!isfinite(Yv))
      Bad += 1;
    else
      D += (Yv - Rv) * (Yv - Rv);
    R += Rv * Rv;
  }
  for (int O = 16; O > 0; O >>= 1) {
    D += __shfl_xor_sync(0xffffffffu, D, O);
    R += __shfl_xor_sync(0xffffffffu, R, O);
    Bad += __shfl_xor_sync(0xffffffffu, Bad, O);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&Acc[0], D);
    atomicAdd(&Acc[1], R);
    atomicAdd(&Acc[2], Bad);
  }
}

/// Relative L2 error of a linear's output against Cx.Ref (-1: non-finite).
double outputError(Context &Cx, const __half *Y, int Ldy, int M, int N) {
  CK(cudaMemsetAsync(Cx.Acc, 0, 3 * sizeof(double), Cx.Stream));
  diffKernel<<<264, 256, 0, Cx.Stream>>>(Y, Ldy, Cx.Ref, M, N, Cx.Acc);
  double H[3];
  CK(cudaMemcpyAsync(H, Cx.Acc, sizeof(H), cudaMemcpyDeviceToHost, Cx.Stream));
  CK(cudaStreamSynchronize(Cx.Stream));
  if (H[2] > 0)
    return -1;
  return std::sqrt(H[0] / std::max(H[1], 1e-300));
}

/// Cx.Ref = W * X by cublasGemmEx's default algorithm (leading dimension M):
/// every candidate algorithm or plan is checked against it before it is
/// timed (relative L2 error <= 1e-3, else rejected and reported).
void referenceOutput(Context &Cx, const Linear &L, const __half *X, int N) {
  const float One = 1.f, Zero = 0.f;
  CB(cublasGemmEx(Cx.Blas, CUBLAS_OP_T, CUBLAS_OP_N, L.M, N, L.K, &One,
                  L.Dense, CUDA_R_16F, L.K, X, CUDA_R_16F, L.K, &Zero, Cx.Ref,
                  CUDA_R_16F, L.M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

bool acceptable(Context &Cx, const char *What, const Linear &L, __half *Y,
                int Ldy, int N, const std::string &Name) {
  const double E = outputError(Cx, Y, Ldy, L.M, N);
  if (E >= 0 && E <= 1e-3)
    return true;
  ++Cx.Rejected;
  std::fprintf(stderr, "rejected %s %s for %dx%d, N=%d, ldy=%d: rel err %.3g\n",
               What, Name.c_str(), L.M, L.K, N, Ldy, E);
  return false;
}

void denseRun(Context &Cx, const LtChoice &Ch, const Linear &L,
              const __half *X, __half *Y, int Ldy, int N) {
  const float One = 1.f, Zero = 0.f;
  if (!Ch.UseLt) {
    CB(cublasGemmEx(Cx.Blas, CUBLAS_OP_T, CUBLAS_OP_N, L.M, N, L.K, &One,
                    L.Dense, CUDA_R_16F, L.K, X, CUDA_R_16F, L.K, &Zero, Y,
                    CUDA_R_16F, Ldy, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return;
  }
  CB(cublasLtMatmul(Cx.Lt, Ch.Desc, &One, L.Dense, Ch.A, X, Ch.B, &Zero, Y,
                    Ch.C, Y, Ch.C, &Ch.Algo, Cx.BlasWs, Cx.BlasWsBytes,
                    Cx.Stream));
}

/// The fastest of cublasGemmEx(default) and up to 16 cuBLASLt heuristic
/// algorithms for this shape, timed on X/Y.
const LtChoice &denseChoice(Context &Cx, const Linear &L, const __half *X,
                            __half *Y, int Ldy, int N) {
  auto Key = std::make_tuple(L.M, L.K, N, Ldy);
  auto It = Cx.DenseChoice.find(Key);
  if (It != Cx.DenseChoice.end())
    return It->second;
  referenceOutput(Cx, L, X, N);
  LtChoice Best;
  denseRun(Cx, Best, L, X, Y, Ldy, N);
  if (!acceptable(Cx, "cuBLAS", L, Y, Ldy, N, "cublasGemmEx default"))
    std::exit(4); // the reference itself disagrees: Ldy handling is wrong
  float BestMs = timeIt(
      Cx, [&] { denseRun(Cx, Best, L, X, Y, Ldy, N); }, 10);
  LtChoice Lt;
  CB(cublasLtMatmulDescCreate(&Lt.Desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasOperation_t OpT = CUBLAS_OP_T;
  CB(cublasLtMatmulDescSetAttribute(Lt.Desc, CUBLASLT_MATMUL_DESC_TRANSA, &OpT,
                                    sizeof(OpT)));
  CB(cublasLtMatrixLayoutCreate(&Lt.A, CUDA_R_16F, L.K, L.M, L.K));
  CB(cublasLtMatrixLayoutCreate(&Lt.B, CUDA_R_16F, L.K, N, L.K));
  CB(cublasLtMatrixLayoutCreate(&Lt.C, CUDA_R_16F, L.M, N, Ldy));
  cublasLtMatmulPreference_t Pref;
  CB(cublasLtMatmulPreferenceCreate(&Pref));
  CB(cublasLtMatmulPreferenceSetAttribute(
      Pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &Cx.BlasWsBytes,
      sizeof(Cx.BlasWsBytes)));
  cublasLtMatmulHeuristicResult_t Res[16];
  int Found = 0;
  CB(cublasLtMatmulAlgoGetHeuristic(Cx.Lt, Lt.Desc, Lt.A, Lt.B, Lt.C, Lt.C,
                                    Pref, 16, Res, &Found));
  CB(cublasLtMatmulPreferenceDestroy(Pref));
  Lt.UseLt = true;
  for (int I = 0; I < Found; ++I) {
    if (Res[I].state != CUBLAS_STATUS_SUCCESS)
      continue;
    Lt.Algo = Res[I].algo;
    denseRun(Cx, Lt, L, X, Y, Ldy, N);
    if (!acceptable(Cx, "cuBLASLt", L, Y, Ldy, N,
                    "heuristic #" + std::to_string(I)))
      continue;
    const float Ms = timeIt(
        Cx, [&] { denseRun(Cx, Lt, L, X, Y, Ldy, N); }, 10);
    if (Ms < BestMs) {
      BestMs = Ms;
      Best = Lt;
    }
  }
  return Cx.DenseChoice[Key] = Best;
}

std::string optionsName(const TlsSpmmOptions &O) {
  char B[176];
  std::snprintf(B, sizeof(B),
                "pipe=%d,ntile=%d,warps=%d,stages=%d,split=%d,waves=%d,maxn=%d,"
                "decode=%d",
                O.Pipeline, O.NTile, O.Warps, O.Stages, O.SplitK,
                O.WavesTarget, O.MaxNTile, O.Decode);
  return B;
}

void tlsRun(Context &Cx, const TlsSpmmOptions &O, const Linear &L,
            const __half *X, __half *Y, int Ldy, int N) {
  CK(tlsSpmm(L.Sparse, X, L.K, N, Y, Ldy, Cx.TlsWs, Cx.TlsWsBytes, Cx.Stream,
             O));
}

/// The fastest of the planner's default and every built variant whose
/// workspace fits, for this shape.
const TlsSpmmOptions &tlsChoice(Context &Cx, const Linear &L, const __half *X,
                                __half *Y, int Ldy, int N) {
  auto Key = std::make_tuple(L.M, L.K, N, Ldy);
  auto It = Cx.TlsChoice.find(Key);
  if (It != Cx.TlsChoice.end())
    return It->second;
  referenceOutput(Cx, L, X, N);
  TlsSpmmOptions Best;
  tlsRun(Cx, Best, L, X, Y, Ldy, N);
  float BestMs = 1e30f;
  if (acceptable(Cx, "tlsSpmm", L, Y, Ldy, N, "default plan"))
    BestMs = timeIt(Cx, [&] { tlsRun(Cx, Best, L, X, Y, Ldy, N); }, 10);
  for (const TlsSpmmOptions &O : tlsSpmmVariants()) {
    if (tlsSpmmWorkspaceBytes(L.Sparse, N, O) > Cx.TlsWsBytes)
      continue;
    if (tlsSpmm(L.Sparse, X, L.K, N, Y, Ldy, Cx.TlsWs, Cx.TlsWsBytes,
                Cx.Stream, O) != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    if (!acceptable(Cx, "tlsSpmm", L, Y, Ldy, N, optionsName(O)))
      continue;
    const float Ms = timeIt(Cx, [&] { tlsRun(Cx, O, L, X, Y, Ldy, N); }, 10);
    if (Ms < BestMs) {
      BestMs = Ms;
      Best = O;
    }
  }
  if (BestMs == 1e30f) {
    std::fprintf(stderr, "error: no tlsSpmm plan computes %dx%d, N=%d, ldy=%d "
                 "correctly\n", L.M, L.K, N, Ldy);
    std::exit(4);
  }
  return Cx.TlsChoice[Key] = Best;
}

void linear(Context &Cx, Arm A, const Linear &L, const __half *X, __half *Y,
            int Ldy, int N) {
  if (A == DenseDefault)
    denseRun(Cx, LtChoice(), L, X, Y, Ldy, N);
  else if (A == Dense)
    denseRun(Cx, denseChoice(Cx, L, X, Y, Ldy, N), L, X, Y, Ldy, N);
  else
    tlsRun(Cx, tlsChoice(Cx, L, X, Y, Ldy, N), L, X, Y, Ldy, N);
}

// ---------------------------------------------------------------------------
// The model.

struct Layer {
  Linear Q, K, V, O, Gate, Up, Down;
  __half *Norm1, *Norm2;
  __half *KCache, *VCache;
};

struct Model {
  ModelShape S;
  std::vector<Layer> Layers;
  Linear Head;
  __half *FinalNorm;
  int MaxBatch, MaxPos;
  // Activations (token-major).
  __half *X, *Xn, *Qkv, *Attn, *Tmp, *Gu, *Act, *Logits;
  float *PartM, *PartS, *PartAcc; // attention partials (flash-decoding)
  uint64_t DenseBytes = 0, TlsBytes = 0; // the seven linears, all layers
};

__half *devFill(size_t N, float Value) {
  std::vector<__half> H(N, __float2half(Value));
  __half *D;
  CK(cudaMalloc(&D, N * 2));
  CK(cudaMemcpy(D, H.data(), N * 2, cudaMemcpyHostToDevice));
  return D;
}

/// Std: the weights' standard deviation before pruning.
void makeLinear(Linear &L, int M, int K, float Std, uint64_t Seed,
                bool WithTls, unsigned Threads) {
  std::vector<uint16_t> W;
  makePrunedWeight(W, M, K, Std, Seed, Threads);
  L.M = M;
  L.K = K;
  CK(cudaMalloc(&L.Dense, W.size() * 2));
  CK(cudaMemcpy(L.Dense, W.data(), W.size() * 2, cudaMemcpyHostToDevice));
  if (WithTls) {
    TlsMatrix T = encode(W.data(), M, K, ElemType::F16, Threads);
    L.TlsBytes = computeStats(T).Bytes;
    CK(tlsUpload(T, L.Sparse));
  }
}

void buildModel(Model &Md, const ModelShape &S, int Layers, int MaxBatch,
                int MaxPos, unsigned Threads) {
  Md.S = S;
  Md.S.Layers = Layers;
  Md.MaxBatch = MaxBatch;
  Md.MaxPos = MaxPos;
  const int H = S.Hidden, I = S.Inter;
  Md.Layers.resize(Layers);
  auto T0 = std::chrono::steady_clock::now();
  for (int Li = 0; Li < Layers; ++Li) {
    Layer &L = Md.Layers[Li];
    uint64_t Seed = 1000 + 16 * uint64_t(Li);
    // N(0, 1/K) weights; the two projections back into the residual
    // stream (o, down) scaled by 1/sqrt(2 * layers) as in GPT-2's
    // initialisation, so each layer adds a small update to the stream as
    // in a trained model.
    const float SH = 1.f / std::sqrt(float(H)), SI = 1.f / std::sqrt(float(I));
    const float Res = 1.f / std::sqrt(2.f * float(Layers));
    makeLinear(L.Q, H, H, SH, Seed + 0, true, Threads);
    makeLinear(L.K, H, H, SH, Seed + 1, true, Threads);
    makeLinear(L.V, H, H, SH, Seed + 2, true, Threads);
    makeLinear(L.O, H, H, SH * Res, Seed + 3, true, Threads);
    makeLinear(L.Gate, I, H, SH, Seed + 4, true, Threads);
    makeLinear(L.Up, I, H, SH, Seed + 5, true, Threads);
    makeLinear(L.Down, H, I, SI * Res, Seed + 6, true, Threads);
    for (Linear *P : {&L.Q, &L.K, &L.V, &L.O, &L.Gate, &L.Up, &L.Down}) {
      Md.DenseBytes += uint64_t(P->M) * P->K * 2;
      Md.TlsBytes += P->TlsBytes;
    }
    L.Norm1 = devFill(H, 1.f);
    L.Norm2 = devFill(H, 1.f);
    const size_t Cache = size_t(MaxBatch) * MaxPos * H;
    CK(cudaMalloc(&L.KCache, Cache * 2));
    CK(cudaMalloc(&L.VCache, Cache * 2));
    // Cached positions hold small random-ish values (a fixed pattern).
    CK(cudaMemset(L.KCache, 0x21, Cache * 2));
    CK(cudaMemset(L.VCache, 0x22, Cache * 2));
    double Sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
    std::fprintf(stderr, "\r  %s: layer %d/%d built (%.0f s)", S.Name, Li + 1,
                 Layers, Sec);
  }
  std::fprintf(stderr, "\n");
  makeLinear(Md.Head, S.Vocab, H, 1.f / std::sqrt(float(H)), 999, false,
             Threads);
  Md.FinalNorm = devFill(H, 1.f);
  const size_t B = MaxBatch;
  CK(cudaMalloc(&Md.X, B * H * 2));
  CK(cudaMalloc(&Md.Xn, B * H * 2));
  CK(cudaMalloc(&Md.Qkv, B * 3 * H * 2));
  CK(cudaMalloc(&Md.Attn, B * H * 2));
  CK(cudaMalloc(&Md.Tmp, B * H * 2));
  CK(cudaMalloc(&Md.Gu, B * 2 * I * 2));
  CK(cudaMalloc(&Md.Act, B * I * 2));
  CK(cudaMalloc(&Md.Logits, B * size_t(S.Vocab) * 2));
  const size_t Parts =
      B * S.Heads * ((MaxPos + e2e::AttnChunk - 1) / e2e::AttnChunk);
  CK(cudaMalloc(&Md.PartM, Parts * sizeof(float)));
  CK(cudaMalloc(&Md.PartS, Parts * sizeof(float)));
  CK(cudaMalloc(&Md.PartAcc, Parts * e2e::HeadDim * sizeof(float)));
}

/// The input tokens' embeddings: a fixed pseudo-random pattern. The stream
/// is non-blocking (the legacy stream's copies do not wait for it), so the
/// work in flight is drained first and the copy is ordered on it.
void resetInput(Context &Cx, Model &Md, int Batch) {
  CK(cudaStreamSynchronize(Cx.Stream));
  std::vector<__half> H(size_t(Batch) * Md.S.Hidden);
  std::mt19937 Rng(7);
  std::normal_distribution<float> Nd(0.f, 1.f);
  for (auto &V : H)
    V = __float2half(Nd(Rng));
  CK(cudaMemcpyAsync(Md.X, H.data(), H.size() * 2, cudaMemcpyHostToDevice,
                     Cx.Stream));
  CK(cudaStreamSynchronize(Cx.Stream));
}

/// One decode step. Rec, when set, is called before and after each op with
/// its category (the instrumented pass records events there).
void step(Context &Cx, Model &Md, Arm A, int Batch, int Context_,
          const std::function<void(int, bool)> &Rec,
          __half *Snapshots = nullptr) {
  const int H = Md.S.Hidden, I = Md.S.Inter, Heads = Md.S.Heads;
  const int Len = Context_ + 1; // the cached positions and the new one
  auto Op = [&](int C, const std::function<void()> &F) {
    if (Rec)
      Rec(C, true);
    F();
    if (Rec)
      Rec(C, false);
  };
  const int NormThreads = 256;
  const int Splits = (Len + e2e::AttnChunk - 1) / e2e::AttnChunk;
  int LayerIndex = 0;
  for (Layer &L : Md.Layers) {
    Op(CNorm, [&] {
      e2e::rmsNorm<<<Batch, NormThreads, 0, Cx.Stream>>>(Md.X, L.Norm1, Md.Xn,
                                                          H, 1e-5f);
    });
    Op(CQkv, [&] {
      linear(Cx, A, L.Q, Md.Xn, Md.Qkv, 3 * H, Batch);
      linear(Cx, A, L.K, Md.Xn, Md.Qkv + H, 3 * H, Batch);
      linear(Cx, A, L.V, Md.Xn, Md.Qkv + 2 * H, 3 * H, Batch);
    });
    Op(CRope, [&] {
      e2e::ropeAppend<<<dim3(Heads, Batch), e2e::HeadDim / 2, 0, Cx.Stream>>>(
          Md.Qkv, Md.Qkv + H, Md.Qkv + 2 * H, 3 * H, L.KCache, L.VCache, H,
          Md.MaxPos, Context_);
    });
    Op(CAttn, [&] {
      e2e::decodeAttentionPartial<<<dim3(Heads, Batch, Splits), e2e::HeadDim,
                                    0, Cx.Stream>>>(
          Md.Qkv, 3 * H, L.KCache, L.VCache, H, Md.MaxPos, Len, Md.PartM,
          Md.PartS, Md.PartAcc);
      e2e::attentionCombine<<<dim3(Heads, Batch), e2e::HeadDim, 0,
                              Cx.Stream>>>(Md.PartM, Md.PartS, Md.PartAcc,
                                           Splits, Md.Attn, H);
    });
    Op(CO, [&] { linear(Cx, A, L.O, Md.Attn, Md.Tmp, H, Batch); });
    Op(CAdd, [&] {
      e2e::addInPlace<<<264, 256, 0, Cx.Stream>>>(Md.X, Md.Tmp,
                                                  size_t(Batch) * H);
    });
    Op(CNorm, [&] {
      e2e::rmsNorm<<<Batch, NormThreads, 0, Cx.Stream>>>(Md.X, L.Norm2, Md.Xn,
                                                          H, 1e-5f);
    });
    Op(CGateUp, [&] {
      linear(Cx, A, L.Gate, Md.Xn, Md.Gu, 2 * I, Batch);
      linear(Cx, A, L.Up, Md.Xn, Md.Gu + I, 2 * I, Batch);
    });
    Op(CSilu, [&] {
      e2e::siluMul<<<264, 256, 0, Cx.Stream>>>(Md.Gu, Md.Gu + I, 2 * I,
                                               Md.Act, I, Batch);
    });
    Op(CDown, [&] { linear(Cx, A, L.Down, Md.Act, Md.Tmp, H, Batch); });
    Op(CAdd, [&] {
      e2e::addInPlace<<<264, 256, 0, Cx.Stream>>>(Md.X, Md.Tmp,
                                                  size_t(Batch) * H);
    });
    if (Snapshots)
      CK(cudaMemcpyAsync(Snapshots + size_t(LayerIndex) * Batch * H, Md.X,
                         size_t(Batch) * H * 2, cudaMemcpyDeviceToDevice,
                         Cx.Stream));
    ++LayerIndex;
  }
  Op(CNorm, [&] {
    e2e::rmsNorm<<<Batch, NormThreads, 0, Cx.Stream>>>(Md.X, Md.FinalNorm,
                                                        Md.Xn, H, 1e-5f);
  });
  // lm_head: dense in both arms.
  Op(CHead, [&] { linear(Cx, Dense, Md.Head, Md.Xn, Md.Logits, Md.S.Vocab, Batch); });
  CK(cudaGetLastError());
}

/// Relative L2 distance of two device fp16 vectors.
double relL2(const __half *A, const __half *B, size_t N, double *MaxAbs) {
  std::vector<__half> Ha(N), Hb(N);
  CK(cudaMemcpy(Ha.data(), A, N * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(Hb.data(), B, N * 2, cudaMemcpyDeviceToHost));
  double Num = 0, Den = 0, Mx = 0;
  for (size_t I = 0; I < N; ++I) {
    double X = __half2float(Ha[I]), Y = __half2float(Hb[I]);
    if (!std::isfinite(X) || !std::isfinite(Y))
      return -1;
    Num += (X - Y) * (X - Y);
    Den += Y * Y;
    Mx = std::max(Mx, std::fabs(X - Y));
  }
  *MaxAbs = Mx;
  return std::sqrt(Num / std::max(Den, 1e-30));
}

std::vector<int> parseList(const char *S) {
  std::vector<int> V;
  for (const char *P = S; *P;) {
    V.push_back(std::atoi(P));
    while (*P && *P != ',')
      ++P;
    if (*P == ',')
      ++P;
  }
  return V;
}

float median(std::vector<float> V) {
  std::nth_element(V.begin(), V.begin() + V.size() / 2, V.end());
  return V[V.size() / 2];
}

} // namespace

int main(int Argc, char **Argv) {
  std::string ModelName = "llama2-7b", JsonPath;
  std::vector<int> Batches = {1, 8, 16, 32}, Contexts = {128, 512, 2048};
  int Layers = 0, Reps = 20;
  unsigned Threads = std::max(1u, std::thread::hardware_concurrency());
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Next = [&]() -> const char * {
      if (I + 1 >= Argc) {
        std::fprintf(stderr, "error: %s needs a value\n", A.c_str());
        std::exit(1);
      }
      return Argv[++I];
    };
    if (A == "--model")
      ModelName = Next();
    else if (A == "--batches")
      Batches = parseList(Next());
    else if (A == "--contexts")
      Contexts = parseList(Next());
    else if (A == "--layers")
      Layers = std::atoi(Next());
    else if (A == "--reps")
      Reps = std::atoi(Next());
    else if (A == "--json")
      JsonPath = Next();
    else {
      std::fprintf(stderr,
                   "usage: llama-decode [--model llama2-7b|llama2-13b] "
                   "[--batches 1,8,16,32] [--contexts 128,512,2048] "
                   "[--layers L] [--reps R] [--json FILE]\n");
      return 1;
    }
  }
  const ModelShape *S = nullptr;
  for (const ModelShape &M : Models)
    if (ModelName == M.Name)
      S = &M;
  if (!S) {
    std::fprintf(stderr, "error: unknown model '%s' (llama2-7b, llama2-13b)\n",
                 ModelName.c_str());
    return 1;
  }
  if (Layers <= 0)
    Layers = S->Layers;
  const int MaxBatch = *std::max_element(Batches.begin(), Batches.end());
  const int MaxPos = *std::max_element(Contexts.begin(), Contexts.end()) + 1;

  cudaDeviceProp Prop;
  CK(cudaGetDeviceProperties(&Prop, 0));
  std::fprintf(stderr, "device: %s; model %s, %d layers\n", Prop.name,
               S->Name, Layers);
  Context Cx;
  CK(cudaStreamCreateWithFlags(&Cx.Stream, cudaStreamNonBlocking));
  CB(cublasCreate(&Cx.Blas));
  CB(cublasLtCreate(&Cx.Lt));
  CB(cublasSetStream(Cx.Blas, Cx.Stream));
  CK(cudaMalloc(&Cx.BlasWs, Cx.BlasWsBytes));
  CB(cublasSetWorkspace(Cx.Blas, Cx.BlasWs, Cx.BlasWsBytes));
  CK(cudaMalloc(&Cx.Acc, 3 * sizeof(double)));
  CK(cudaEventCreate(&Cx.E0));
  CK(cudaEventCreate(&Cx.E1));

  Model Md;
  auto TB = std::chrono::steady_clock::now();
  buildModel(Md, *S, Layers, MaxBatch, MaxPos, Threads);
  std::fprintf(stderr, "weights built in %.0f s: dense %.2f GB, tls %.2f GB\n",
               std::chrono::duration<double>(std::chrono::steady_clock::now() - TB).count(),
               Md.DenseBytes / 1e9, Md.TlsBytes / 1e9);
  // One workspace for every tlsSpmm call (each call leaves it zero).
  // Every layer has the same shapes: the first one's linears size it, for
  // the planner's own plan and every variant tlsChoice may pick.
  std::vector<TlsSpmmOptions> Plans = tlsSpmmVariants();
  Plans.push_back(TlsSpmmOptions());
  Layer &L0 = Md.Layers[0];
  for (Linear *P : {&L0.Q, &L0.K, &L0.V, &L0.O, &L0.Gate, &L0.Up, &L0.Down})
    for (int B : Batches)
      for (const TlsSpmmOptions &O : Plans)
        Cx.TlsWsBytes = std::max(Cx.TlsWsBytes,
                                 tlsSpmmWorkspaceBytes(P->Sparse, B, O));
  CK(cudaMalloc(&Cx.TlsWs, Cx.TlsWsBytes));
  CK(cudaMemset(Cx.TlsWs, 0, Cx.TlsWsBytes));
  CK(cudaMalloc(&Cx.Ref, size_t(MaxBatch) * std::max(S->Inter, S->Vocab) * 2));
  __half *Snap[3];
  for (__half *&P : Snap)
    CK(cudaMalloc(&P, size_t(Layers) * MaxBatch * S->Hidden * 2));

  FILE *Json = JsonPath.empty() ? nullptr : std::fopen(JsonPath.c_str(), "w");
  if (Json)
    std::fprintf(Json,
                 "{\"device\": \"%s\", \"model\": \"%s\", \"layers\": %d, "
                 "\"dense_linear_bytes\": %llu, \"tls_linear_bytes\": %llu, "
                 "\"reps\": %d, \"runs\": [\n",
                 Prop.name, S->Name, Layers,
                 (unsigned long long)Md.DenseBytes,
                 (unsigned long long)Md.TlsBytes, Reps);
  std::printf("| model | batch | context | dense ms | tls ms | tok/s dense | "
              "tok/s tls | ratio | predicted | linears dense ms | linears "
              "tls ms | rel err | floor |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  bool First = true, AllOk = true;
  for (int B : Batches)
    for (int C : Contexts) {
      // Choose each shape's algorithm / plan outside capture (both arms).
      for (int A = 0; A < 2; ++A) {
        resetInput(Cx, Md, B);
        step(Cx, Md, Arm(A), B, C, nullptr);
      }
      CK(cudaStreamSynchronize(Cx.Stream));
      // Correctness: the hidden states after the last layer, both arms from
      // the same input.
      // Each layer's output is kept (Snap[arm]) to see where they part.
      const size_t Hs = size_t(B) * S->Hidden;
      for (int A : {Dense, Tls, DenseDefault}) {
        resetInput(Cx, Md, B);
        step(Cx, Md, Arm(A), B, C, nullptr, Snap[A]);
      }
      CK(cudaStreamSynchronize(Cx.Stream));
      double MaxAbs = 0, Unused;
      const double Err = relL2(Snap[Tls] + (Layers - 1) * Hs,
                               Snap[Dense] + (Layers - 1) * Hs, Hs, &MaxAbs);
      const double Floor = relL2(Snap[DenseDefault] + (Layers - 1) * Hs,
                                 Snap[Dense] + (Layers - 1) * Hs, Hs, &Unused);
      std::string ByLayer;
      for (int Li = 0; Li < Layers; Li = Li ? 2 * Li + 1 : 1) {
        char Buf[64];
        std::snprintf(Buf, sizeof(Buf), " L%d %.1e/%.1e", Li + 1,
                      relL2(Snap[Tls] + Li * Hs, Snap[Dense] + Li * Hs, Hs,
                            &Unused),
                      relL2(Snap[DenseDefault] + Li * Hs, Snap[Dense] + Li * Hs,
                            Hs, &Unused));
        ByLayer += Buf;
      }
      std::fprintf(stderr, "batch %d context %d: hidden-state error tls/dense "
                   "vs dense-default/dense after layer:%s\n", B, C,
                   ByLayer.c_str());
      const bool Ok = Err >= 0 && Err <= 1e-3;
      AllOk &= Ok;
      // Graphs of one step per arm.
      cudaGraphExec_t Exec[2];
      for (int A = 0; A < 2; ++A) {
        cudaGraph_t G;
        CK(cudaStreamBeginCapture(Cx.Stream, cudaStreamCaptureModeThreadLocal));
        step(Cx, Md, Arm(A), B, C, nullptr);
        CK(cudaStreamEndCapture(Cx.Stream, &G));
        CK(cudaGraphInstantiate(&Exec[A], G, 0));
        CK(cudaGraphDestroy(G));
      }
      std::vector<float> T[2];
      for (int A = 0; A < 2; ++A)
        for (int W = 0; W < 3; ++W)
          CK(cudaGraphLaunch(Exec[A], Cx.Stream));
      for (int R = 0; R < Reps; ++R)
        for (int A0 = 0; A0 < 2; ++A0) {
          const int A = (R & 1) ? 1 - A0 : A0; // alternate which arm goes first
          CK(cudaEventRecord(Cx.E0, Cx.Stream));
          CK(cudaGraphLaunch(Exec[A], Cx.Stream));
          CK(cudaEventRecord(Cx.E1, Cx.Stream));
          CK(cudaEventSynchronize(Cx.E1));
          float Ms;
          CK(cudaEventElapsedTime(&Ms, Cx.E0, Cx.E1));
          T[A].push_back(Ms);
        }
      for (int A = 0; A < 2; ++A)
        CK(cudaGraphExecDestroy(Exec[A]));
      // Instrumented pass: per-op times (events between ops; median of 5
      // steps per category).
      double Share[2][NCat];
      for (int A = 0; A < 2; ++A) {
        std::vector<std::vector<float>> PerStep(NCat);
        const int Ops = 12 * Layers + 4; // Op() calls per step
        std::vector<cudaEvent_t> Ev(2 * Ops);
        for (auto &E : Ev)
          CK(cudaEventCreate(&E));
        for (int Sx = 0; Sx < 5; ++Sx) {
          std::vector<int> Cats;
          int K = 0;
          step(Cx, Md, Arm(A), B, C, [&](int Cat, bool Begin) {
            if (Begin)
              Cats.push_back(Cat);
            CK(cudaEventRecord(Ev[K++], Cx.Stream));
          });
          CK(cudaStreamSynchronize(Cx.Stream));
          std::vector<float> Sum(NCat, 0.f);
          for (size_t O = 0; O < Cats.size(); ++O) {
            float Ms;
            CK(cudaEventElapsedTime(&Ms, Ev[2 * O], Ev[2 * O + 1]));
            Sum[Cats[O]] += Ms;
          }
          for (int Cc = 0; Cc < NCat; ++Cc)
            PerStep[Cc].push_back(Sum[Cc]);
        }
        for (auto &E : Ev)
          CK(cudaEventDestroy(E));
        for (int Cc = 0; Cc < NCat; ++Cc)
          Share[A][Cc] = median(PerStep[Cc]);
      }
      double Tot[2] = {0, 0}, Lin[2] = {0, 0};
      for (int A = 0; A < 2; ++A)
        for (int Cc = 0; Cc < NCat; ++Cc) {
          Tot[A] += Share[A][Cc];
          if (isSparseLinear(Cc))
            Lin[A] += Share[A][Cc];
        }
      const double Predicted = Tot[0] / (Tot[0] - Lin[0] + Lin[1]);
      const float Md0 = median(T[0]), Md1 = median(T[1]);
      std::printf("| %s | %d | %d | %.3f | %.3f | %.1f | %.1f | %.3f | %.3f | "
                  "%.3f | %.3f | %.1e%s | %.1e |\n",
                  S->Name, B, C, Md0, Md1, B * 1e3 / Md0, B * 1e3 / Md1,
                  Md0 / Md1, Predicted, Lin[0], Lin[1], Err, Ok ? "" : " FAIL",
                  Floor);
      std::fflush(stdout);
      if (Json) {
        std::fprintf(Json,
                     "%s  {\"batch\": %d, \"context\": %d, \"dense_ms\": %.5f, "
                     "\"tls_ms\": %.5f, \"ratio\": %.4f, \"predicted\": %.4f, "
                     "\"rel_err\": %.3e, \"noise_floor\": %.3e, \"max_abs_err\": %.3e, \"ok\": %s, "
                     "\"dense_samples\": [",
                     First ? "" : ",\n", B, C, Md0, Md1, Md0 / Md1, Predicted,
                     Err, Floor, MaxAbs, Ok ? "true" : "false");
        for (size_t I = 0; I < T[0].size(); ++I)
          std::fprintf(Json, "%s%.5f", I ? ", " : "", T[0][I]);
        std::fprintf(Json, "], \"tls_samples\": [");
        for (size_t I = 0; I < T[1].size(); ++I)
          std::fprintf(Json, "%s%.5f", I ? ", " : "", T[1][I]);
        std::fprintf(Json, "], \"ops_ms\": {");
        for (int A = 0; A < 2; ++A) {
          std::fprintf(Json, "%s\"%s\": {", A ? ", " : "", ArmName[A]);
          for (int Cc = 0; Cc < NCat; ++Cc)
            std::fprintf(Json, "%s\"%s\": %.5f", Cc ? ", " : "", CatName[Cc],
                         Share[A][Cc]);
          std::fprintf(Json, "}");
        }
        std::fprintf(Json, "}}");
        First = false;
      }
    }
  if (Json) {
    std::fprintf(Json, "\n], \"rejected_candidates\": %d, \"all_ok\": %s}\n",
                 Cx.Rejected, AllOk ? "true" : "false");
    std::fclose(Json);
  }
  return AllOk ? 0 : 3;
}
