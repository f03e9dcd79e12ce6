//===- DecodeKernels.cuh - The non-linear ops of a LLaMA decode step -*- CUDA -*-===//
//
// RMSNorm, rotary embedding with the KV-cache append, decode attention over
// the cache, SiLU * mul and the residual add: fp16 storage, fp32 math. Both
// arms of the end-to-end benchmark (LlamaDecode.cu) run exactly these; only
// the seven linears differ. Activations are token-major: token b's vector of
// a layer is contiguous (`x + b * Hidden`), which is the K x N column-major X
// of the linears (docs/sparse-format.md, C++ API).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAOPT_BENCH_E2E_DECODEKERNELS_CUH
#define CUDAOPT_BENCH_E2E_DECODEKERNELS_CUH

#include <cuda_fp16.h>

namespace e2e {

constexpr int HeadDim = 128;

__device__ __forceinline__ float warpSum(float V) {
#pragma unroll
  for (int O = 16; O > 0; O >>= 1)
    V += __shfl_xor_sync(0xffffffffu, V, O);
  return V;
}
__device__ __forceinline__ float warpMax(float V) {
#pragma unroll
  for (int O = 16; O > 0; O >>= 1)
    V = fmaxf(V, __shfl_xor_sync(0xffffffffu, V, O));
  return V;
}

/// Sum over a block of at most 32 warps; every thread gets the result.
__device__ float blockSum(float V, float *Scratch) {
  const int Lane = threadIdx.x & 31, Warp = threadIdx.x >> 5;
  V = warpSum(V);
  __syncthreads(); // Scratch may still be read by a previous call
  if (Lane == 0)
    Scratch[Warp] = V;
  __syncthreads();
  const int Warps = (blockDim.x + 31) >> 5;
  V = Lane < Warps ? Scratch[Lane] : 0.f;
  return warpSum(V);
}

/// Y[b] = X[b] * rsqrt(mean(X[b]^2) + Eps) * W, one block per token.
/// H % 2 == 0.
__global__ void rmsNorm(const __half *X, const __half *W, __half *Y, int H,
                        float Eps) {
  __shared__ float Scratch[32];
  const __half2 *X2 = reinterpret_cast<const __half2 *>(X + size_t(blockIdx.x) * H);
  const __half2 *W2 = reinterpret_cast<const __half2 *>(W);
  __half2 *Y2 = reinterpret_cast<__half2 *>(Y + size_t(blockIdx.x) * H);
  float S = 0.f;
  for (int I = threadIdx.x; I < H / 2; I += blockDim.x) {
    float2 V = __half22float2(X2[I]);
    S += V.x * V.x + V.y * V.y;
  }
  S = blockSum(S, Scratch);
  const float R = rsqrtf(S / float(H) + Eps);
  for (int I = threadIdx.x; I < H / 2; I += blockDim.x) {
    float2 V = __half22float2(X2[I]), G = __half22float2(W2[I]);
    Y2[I] = __floats2half2_rn(V.x * R * G.x, V.y * R * G.y);
  }
}

/// Rotary embedding (rotate-half form, base 10000) of Q in place and of K
/// into the cache at position Pos, V copied into the cache. Qkv: token b's
/// q, k and v at b * 3H, + H, + 2H (the three linears write them there).
/// Cache layout per layer: [token][position][H]. Grid (heads, tokens),
/// HeadDim / 2 threads.
__global__ void ropeAppend(__half *Q, const __half *K, const __half *V,
                           int QkvStride, __half *KCache, __half *VCache,
                           int H, int MaxPos, int Pos) {
  const int Head = blockIdx.x, B = blockIdx.y, I = threadIdx.x;
  const float Inv = __powf(10000.f, -2.f * float(I) / float(HeadDim));
  float Sn, Cs;
  __sincosf(float(Pos) * Inv, &Sn, &Cs);
  const size_t Off = size_t(B) * QkvStride + size_t(Head) * HeadDim;
  __half *Qh = Q + Off;
  const __half *Kh = K + Off, *Vh = V + Off;
  const float Q0 = __half2float(Qh[I]), Q1 = __half2float(Qh[I + HeadDim / 2]);
  Qh[I] = __float2half(Q0 * Cs - Q1 * Sn);
  Qh[I + HeadDim / 2] = __float2half(Q1 * Cs + Q0 * Sn);
  const size_t C =
      (size_t(B) * MaxPos + Pos) * H + size_t(Head) * HeadDim;
  const float K0 = __half2float(Kh[I]), K1 = __half2float(Kh[I + HeadDim / 2]);
  KCache[C + I] = __float2half(K0 * Cs - K1 * Sn);
  KCache[C + I + HeadDim / 2] = __float2half(K1 * Cs + K0 * Sn);
  VCache[C + I] = Vh[I];
  VCache[C + I + HeadDim / 2] = Vh[I + HeadDim / 2];
}

/// Positions per split of the context (flash-decoding): each (head, token)
/// is cut into ceil(Len / AttnChunk) CTAs so that short batches still fill
/// the GPU, and attentionCombine merges their partial softmaxes.
constexpr int AttnChunk = 256;

/// Partial decode attention of one (head, token, split): over positions
/// [split * AttnChunk, min(Len, ...)), the running max M, the sum S of
/// exp(score - M) and Acc = sum exp(score - M) * V, written to
/// PartM/PartS[(token * heads + head) * splits + split] and PartAcc (128
/// floats each). Grid (heads, tokens, splits), 128 threads (4 warps); each
/// half warp takes one position at a time, a lane 8 dimensions (one 16-byte
/// load).
__global__ void decodeAttentionPartial(const __half *Q, int QStride,
                                       const __half *KCache,
                                       const __half *VCache, int H,
                                       int MaxPos, int Len, float *PartM,
                                       float *PartS, float *PartAcc) {
  __shared__ float Score[AttnChunk];
  __shared__ float Part[4][HeadDim];
  __shared__ float Scratch[32];
  const int Head = blockIdx.x, B = blockIdx.y, Split = blockIdx.z;
  const int Lane = threadIdx.x & 31, Warp = threadIdx.x >> 5;
  const int Half = Lane >> 4, D0 = (Lane & 15) * 8;
  const int Begin = Split * AttnChunk, End = min(Len, Begin + AttnChunk);
  const float Scale = rsqrtf(float(HeadDim));
  float Qv[8];
  {
    uint4 R = *reinterpret_cast<const uint4 *>(Q + size_t(B) * QStride +
                                               size_t(Head) * HeadDim + D0);
    const __half2 *P = reinterpret_cast<const __half2 *>(&R);
#pragma unroll
    for (int J = 0; J < 4; ++J) {
      float2 F = __half22float2(P[J]);
      Qv[2 * J] = F.x * Scale;
      Qv[2 * J + 1] = F.y * Scale;
    }
  }
  const size_t Base = size_t(B) * MaxPos * H + size_t(Head) * HeadDim + D0;
  float Max = -INFINITY;
  for (int P0 = Begin + 2 * Warp; P0 < End; P0 += 8) {
    const int P = P0 + Half;
    float S = 0.f;
    if (P < End) {
      uint4 R = *reinterpret_cast<const uint4 *>(KCache + Base + size_t(P) * H);
      const __half2 *Kp = reinterpret_cast<const __half2 *>(&R);
#pragma unroll
      for (int J = 0; J < 4; ++J) {
        float2 F = __half22float2(Kp[J]);
        S += Qv[2 * J] * F.x + Qv[2 * J + 1] * F.y;
      }
    }
#pragma unroll
    for (int O = 8; O > 0; O >>= 1)
      S += __shfl_xor_sync(0xffffffffu, S, O);
    if (P < End) {
      if ((Lane & 15) == 0)
        Score[P - Begin] = S;
      Max = fmaxf(Max, S);
    }
  }
  Max = warpMax(Max);
  __syncthreads();
  if (Lane == 0)
    Scratch[Warp] = Max;
  __syncthreads();
  Max = fmaxf(fmaxf(Scratch[0], Scratch[1]), fmaxf(Scratch[2], Scratch[3]));
  float Sum = 0.f;
  for (int P = Begin + threadIdx.x; P < End; P += blockDim.x) {
    const float E = __expf(Score[P - Begin] - Max);
    Score[P - Begin] = E;
    Sum += E;
  }
  Sum = blockSum(Sum, Scratch); // its first barrier publishes Score
  float Acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int P0 = Begin + 2 * Warp; P0 < End; P0 += 8) {
    const int P = P0 + Half;
    if (P < End) {
      const float Pw = Score[P - Begin];
      uint4 R = *reinterpret_cast<const uint4 *>(VCache + Base + size_t(P) * H);
      const __half2 *Vp = reinterpret_cast<const __half2 *>(&R);
#pragma unroll
      for (int J = 0; J < 4; ++J) {
        float2 F = __half22float2(Vp[J]);
        Acc[2 * J] += Pw * F.x;
        Acc[2 * J + 1] += Pw * F.y;
      }
    }
  }
#pragma unroll
  for (int J = 0; J < 8; ++J)
    Acc[J] += __shfl_xor_sync(0xffffffffu, Acc[J], 16);
  if (Half == 0)
#pragma unroll
    for (int J = 0; J < 8; ++J)
      Part[Warp][D0 + J] = Acc[J];
  __syncthreads();
  const size_t Slot =
      (size_t(B) * gridDim.x + Head) * gridDim.z + Split;
  const int D = threadIdx.x; // blockDim.x == HeadDim
  PartAcc[Slot * HeadDim + D] = Part[0][D] + Part[1][D] + Part[2][D] + Part[3][D];
  if (D == 0) {
    PartM[Slot] = Max;
    PartS[Slot] = Sum;
  }
}

/// Merges the Splits partial softmaxes of each (head, token) into Out.
/// Grid (heads, tokens), HeadDim threads.
__global__ void attentionCombine(const float *PartM, const float *PartS,
                                 const float *PartAcc, int Splits,
                                 __half *Out, int H) {
  const int Head = blockIdx.x, B = blockIdx.y, D = threadIdx.x;
  const size_t Slot0 = (size_t(B) * gridDim.x + Head) * Splits;
  float M = -INFINITY;
  for (int I = 0; I < Splits; ++I)
    M = fmaxf(M, PartM[Slot0 + I]);
  float S = 0.f, A = 0.f;
  for (int I = 0; I < Splits; ++I) {
    const float W = __expf(PartM[Slot0 + I] - M);
    S += PartS[Slot0 + I] * W;
    A += PartAcc[(Slot0 + I) * HeadDim + D] * W;
  }
  Out[size_t(B) * H + size_t(Head) * HeadDim + D] = __float2half(A / S);
}

/// A[i] = silu(G[i]) * U[i] for token-major G, U of N tokens (row stride
/// Stride) into A (stride Width).
__global__ void siluMul(const __half *G, const __half *U, int Stride,
                        __half *A, int Width, int N) {
  const size_t Total = size_t(N) * Width;
  for (size_t I = blockIdx.x * size_t(blockDim.x) + threadIdx.x; I < Total;
       I += size_t(gridDim.x) * blockDim.x) {
    const size_t B = I / Width, C = I - B * Width;
    const float Gv = __half2float(G[B * Stride + C]);
    const float Uv = __half2float(U[B * Stride + C]);
    A[I] = __float2half(Gv / (1.f + __expf(-Gv)) * Uv);
  }
}

/// X += Y elementwise (fp32 add, fp16 store).
__global__ void addInPlace(__half *X, const __half *Y, size_t N) {
  for (size_t I = blockIdx.x * size_t(blockDim.x) + threadIdx.x; I < N;
       I += size_t(gridDim.x) * blockDim.x)
    X[I] = __float2half(__half2float(X[I]) + __half2float(Y[I]));
}

} // namespace e2e

#endif // CUDAOPT_BENCH_E2E_DECODEKERNELS_CUH
