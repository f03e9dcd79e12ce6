//===- TlsSpmm.cu - SpMM kernel for the three-layer sparse format ---------===//
//
// Each warp owns a 16-row tile of W and walks its K range 256 columns (one
// format block, eight mma.sp k-steps) at a time. Per block a lane
//   1. reads its two rows' occupancy words and derives, per lane-row, which
//      of its 32 slots are empty and which layer-2 positions need a value;
//   2. gathers the layer-2 values (slot-filled ones from its own empty slots,
//      the rest from the block's residual list) into a per-lane staging area
//      in shared memory, in A-fragment order;
//   3. per k-step: one 16-byte load gives the layer-1 A fragment (empty
//      slots masked to zero), a byte-table lookup gives its mma.sp metadata,
//      one 16-byte load gives the layer-2 fragment (metadata is constant),
//      and each n8 tile of X (one ldmatrix.x4) feeds both mma.sp.
// The CTA's warps share the X tile. Blocks of W, their residual values and
// the X tile are staged with cp.async, STAGES deep. Split-K partial sums go
// to a workspace; the last CTA of each output tile (an atomic counter) adds
// them up and writes Y, then resets the counter.
//
//===----------------------------------------------------------------------===//

#include "TlsLayout.h"
#include "TlsSpmm.h"

#include <algorithm>

namespace cudaopt {
namespace sparse {

namespace {

constexpr int XPitch = BlockCols + 8; // halves; 16-byte pad kills conflicts
constexpr int WBlockBytes = BlockSlots * 2 + BlockBitmapWords * 4; // 4608
constexpr int L2BufBytes = BlockSlots * 2;                          // 4096

struct Params {
  const uint16_t *Values;
  const uint32_t *Bitmap;
  const uint32_t *ResOff;
  const uint16_t *Residual;
  const __half *X;
  __half *Y;
  float *Partial;
  unsigned *Counters;
  int Ldx, Ldy;
  int M, K, N;
  int Tiles, BlockColumns;
  int SplitK, NChunks, MBlocks;
  int RCap; // residual values staged per warp and stage (multiple of 8)
};

__device__ __forceinline__ uint32_t smemAddr(const void *P) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(P));
}

__device__ __forceinline__ void cpAsync16(void *Dst, const void *Src,
                                          int SrcBytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                   smemAddr(Dst)),
               "l"(Src), "r"(SrcBytes));
}
__device__ __forceinline__ void cpAsyncCommit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int N> __device__ __forceinline__ void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrixX4(uint32_t (&B)[4], const void *P) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
      : "=r"(B[0]), "=r"(B[1]), "=r"(B[2]), "=r"(B[3])
      : "r"(smemAddr(P)));
}

__device__ __forceinline__ void mmaSp(float (&C)[4], const uint4 &A,
                                      const uint32_t (&B)[4], uint32_t Meta) {
  asm volatile(
      "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, "
      "{%0, %1, %2, %3}, %12, 0x0;\n"
      : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
      : "r"(A.x), "r"(A.y), "r"(A.z), "r"(A.w), "r"(B[0]), "r"(B[1]),
        "r"(B[2]), "r"(B[3]), "r"(Meta));
}

template <int NT, int WARPS> struct Layout {
  static constexpr int XBytes = NT * XPitch * 2;
  __host__ __device__ static int stageBytes(int RCap) {
    return XBytes + WARPS * WBlockBytes + WARPS * RCap * 2;
  }
  __host__ __device__ static int totalBytes(int Stages, int RCap) {
    return Stages * stageBytes(RCap) + WARPS * L2BufBytes + 512;
  }
};

template <int NT, int WARPS>
__device__ void loadStage(const Params &P, unsigned char *Stage, int Mb,
                          int Nc, int Win) {
  constexpr int Threads = WARPS * 32;
  const int Tid = threadIdx.x;
  // X tile: NT columns of X, 256 rows (k), 32 chunks of 8 halves each.
  __half *Xs = reinterpret_cast<__half *>(Stage);
  for (int I = Tid; I < NT * 32; I += Threads) {
    int Nl = I >> 5, C = I & 31;
    int Gn = Nc * NT + Nl, Gk = Win * BlockCols + C * 8;
    int Bytes = 0;
    const __half *Src = P.X;
    if (Gn < P.N && Gk < P.K) {
      Bytes = min(16, (P.K - Gk) * 2);
      Src = P.X + size_t(Gn) * P.Ldx + Gk;
    }
    cpAsync16(Xs + Nl * XPitch + C * 8, Src, Bytes);
  }
  // W blocks: 256 value chunks + 32 bitmap chunks per warp.
  unsigned char *Ws = Stage + Layout<NT, WARPS>::XBytes;
  for (int I = Tid; I < WARPS * (WBlockBytes / 16); I += Threads) {
    int W = I / (WBlockBytes / 16), C = I % (WBlockBytes / 16);
    int Tile = Mb * WARPS + W;
    if (Tile >= P.Tiles)
      continue;
    size_t Block = size_t(Tile) * P.BlockColumns + Win;
    const void *Src =
        C < 256 ? static_cast<const void *>(P.Values + Block * BlockSlots + C * 8)
                : static_cast<const void *>(P.Bitmap + Block * BlockBitmapWords +
                                            (C - 256) * 4);
    cpAsync16(Ws + W * WBlockBytes + C * 16, Src, 16);
  }
  // Residual values: the 16-byte chunks covering this block's list, up to
  // RCap values; the kernel reads any further ones from global memory.
  if (P.RCap > 0) {
    uint16_t *Rs = reinterpret_cast<uint16_t *>(Ws + WARPS * WBlockBytes);
    int ChunksPerWarp = P.RCap / 8;
    for (int I = Tid; I < WARPS * ChunksPerWarp; I += Threads) {
      int W = I / ChunksPerWarp, C = I % ChunksPerWarp;
      int Tile = Mb * WARPS + W;
      if (Tile >= P.Tiles)
        continue;
      size_t Block = size_t(Tile) * P.BlockColumns + Win;
      uint32_t Start = __ldg(P.ResOff + Block), End = __ldg(P.ResOff + Block + 1);
      uint32_t Aligned = Start & ~7u;
      if (Aligned + C * 8 >= End)
        continue;
      cpAsync16(Rs + W * P.RCap + C * 8, P.Residual + Aligned + C * 8, 16);
    }
  }
}

template <int NT, int WARPS, int STAGES>
__global__ void __launch_bounds__(WARPS * 32)
    tlsSpmmKernel(const Params P) {
  extern __shared__ __align__(16) unsigned char Smem[];
  constexpr int NTiles8 = NT / 8;
  const int StageBytes = Layout<NT, WARPS>::stageBytes(P.RCap);
  unsigned char *L2Base = Smem + STAGES * StageBytes;
  uint8_t *LutMeta = L2Base + WARPS * L2BufBytes;
  uint8_t *LutInfo = LutMeta + 256;

  const int Tid = threadIdx.x, Warp = Tid >> 5, Lane = Tid & 31;
  const int G = Lane >> 2, Tig = Lane & 3;
  int Id = blockIdx.x;
  const int Nc = Id % P.NChunks;
  Id /= P.NChunks;
  const int Split = Id % P.SplitK;
  const int Mb = Id / P.SplitK;
  const int Base = P.BlockColumns / P.SplitK, Rem = P.BlockColumns % P.SplitK;
  const int Win0 = Split * Base + min(Split, Rem);
  const int NumWin = Base + (Split < Rem ? 1 : 0);
  const int Tile = Mb * WARPS + Warp;

  for (int I = Tid; I < 256; I += WARPS * 32) {
    LutMeta[I] = uint8_t(metaByte(I));
    LutInfo[I] = uint8_t(infoByte(I));
  }

  float Acc[NTiles8][4];
#pragma unroll
  for (int J = 0; J < NTiles8; ++J)
    Acc[J][0] = Acc[J][1] = Acc[J][2] = Acc[J][3] = 0.f;

#pragma unroll
  for (int S = 0; S < STAGES - 1; ++S) {
    if (S < NumWin)
      loadStage<NT, WARPS>(P, Smem + S * StageBytes, Mb, Nc, Win0 + S);
    cpAsyncCommit();
  }

  uint16_t *L2Buf = reinterpret_cast<uint16_t *>(L2Base + Warp * L2BufBytes);
  auto Info = [&](uint32_t B) { return uint32_t(LutInfo[B]); };

  for (int I = 0; I < NumWin; ++I) {
    cpAsyncWait<STAGES - 2>();
    __syncthreads();
    {
      int Next = I + STAGES - 1;
      if (Next < NumWin)
        loadStage<NT, WARPS>(P, Smem + (Next % STAGES) * StageBytes, Mb, Nc,
                             Win0 + Next);
      cpAsyncCommit();
    }
    if (Tile >= P.Tiles)
      continue;
    unsigned char *Stage = Smem + (I % STAGES) * StageBytes;
    const __half *Xs = reinterpret_cast<const __half *>(Stage);
    const unsigned char *Ws =
        Stage + Layout<NT, WARPS>::XBytes + Warp * WBlockBytes;
    const uint16_t *Vals = reinterpret_cast<const uint16_t *>(Ws);
    const uint32_t *Bits =
        reinterpret_cast<const uint32_t *>(Ws + BlockSlots * 2);
    const uint16_t *Rs = reinterpret_cast<const uint16_t *>(
        Stage + Layout<NT, WARPS>::XBytes + WARPS * WBlockBytes);
    Rs += Warp * P.RCap;

    uint32_t WG[8], WG8[8];
    {
      const uint4 *B0 = reinterpret_cast<const uint4 *>(Bits + G * 8);
      const uint4 *B1 = reinterpret_cast<const uint4 *>(Bits + (G + 8) * 8);
      uint4 V0 = B0[0], V1 = B0[1], V2 = B1[0], V3 = B1[1];
      WG[0] = V0.x, WG[1] = V0.y, WG[2] = V0.z, WG[3] = V0.w;
      WG[4] = V1.x, WG[5] = V1.y, WG[6] = V1.z, WG[7] = V1.w;
      WG8[0] = V2.x, WG8[1] = V2.y, WG8[2] = V2.z, WG8[3] = V2.w;
      WG8[4] = V3.x, WG8[5] = V3.y, WG8[6] = V3.z, WG8[7] = V3.w;
    }
    uint32_t E0, N0, E1, N1;
    laneRowMasks(WG, Tig, Info, E0, N0);
    laneRowMasks(WG8, Tig, Info, E1, N1);

    // Layer 2 and 3: gather into this lane's part of the staging area.
    {
      int R0 = residualCount(E0, N0), R1 = residualCount(E1, N1);
      int Incl = R0 + R1;
#pragma unroll
      for (int D = 1; D < 32; D <<= 1) {
        int V = __shfl_up_sync(0xffffffffu, Incl, D);
        if (Lane >= D)
          Incl += V;
      }
      int Excl = Incl - R0 - R1;
      size_t Block = size_t(Tile) * P.BlockColumns + Win0 + I;
      uint32_t RStart = __ldg(P.ResOff + Block);
      int ROff = int(RStart & 7u);
      const uint16_t *GRes = P.Residual + RStart;
      uint4 Zero = make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int T = 0; T < KStepsPerBlock; ++T)
        *reinterpret_cast<uint4 *>(L2Buf + slotIndex(T, Lane, 0, 0, 0)) = Zero;
      auto Res = [&](int R) -> uint16_t {
        int Idx = ROff + R;
        return Idx < P.RCap ? Rs[Idx] : __ldg(GRes + R);
      };
      decodeLayer2(
          E0, N0, [&](int Y) { return Vals[laneRowSlotIndex(Lane, 0, Y)]; },
          [&](int R) { return Res(Excl + R); },
          [&](int X, uint16_t V) { L2Buf[laneRowSlotIndex(Lane, 0, X)] = V; });
      decodeLayer2(
          E1, N1, [&](int Y) { return Vals[laneRowSlotIndex(Lane, 1, Y)]; },
          [&](int R) { return Res(Excl + R0 + R); },
          [&](int X, uint16_t V) { L2Buf[laneRowSlotIndex(Lane, 1, X)] = V; });
    }

    const int Pair = Tig & 1;
#pragma unroll
    for (int T = 0; T < KStepsPerBlock; ++T) {
      uint4 A = *reinterpret_cast<const uint4 *>(Vals + slotIndex(T, Lane, 0, 0, 0));
      A.x &= keepMask((E0 >> (4 * T)) & 3);
      A.y &= keepMask((E1 >> (4 * T)) & 3);
      A.z &= keepMask((E0 >> (4 * T + 2)) & 3);
      A.w &= keepMask((E1 >> (4 * T + 2)) & 3);
      uint32_t Wg = WG[T] >> (16 * Pair), Wg8 = WG8[T] >> (16 * Pair);
      uint32_t Meta = uint32_t(LutMeta[Wg & 0xFF]) |
                      uint32_t(LutMeta[(Wg >> 8) & 0xFF]) << 8 |
                      uint32_t(LutMeta[Wg8 & 0xFF]) << 16 |
                      uint32_t(LutMeta[(Wg8 >> 8) & 0xFF]) << 24;
      uint4 A2 = *reinterpret_cast<const uint4 *>(L2Buf + slotIndex(T, Lane, 0, 0, 0));
      bool AnyL2 = __any_sync(0xffffffffu, ((N0 | N1) >> (4 * T)) & 0xF);
#pragma unroll
      for (int J = 0; J < NTiles8; ++J) {
        uint32_t B[4];
        ldmatrixX4(B, Xs + (J * 8 + (Lane & 7)) * XPitch + T * 32 +
                          (Lane >> 3) * 8);
        mmaSp(Acc[J], A, B, Meta);
        if (AnyL2)
          mmaSp(Acc[J], A2, B, Layer2Meta);
      }
    }
  }
  cpAsyncWait<0>();

  // Epilogue.
  const int Row0 = Tile * TileRows + G;
  if (P.SplitK == 1) {
#pragma unroll
    for (int J = 0; J < NTiles8; ++J)
#pragma unroll
      for (int E = 0; E < 4; ++E) {
        int M = Row0 + (E >> 1) * 8, N = Nc * NT + J * 8 + 2 * Tig + (E & 1);
        if (M < P.M && N < P.N)
          P.Y[size_t(N) * P.Ldy + M] = __float2half_rn(Acc[J][E]);
      }
    return;
  }
  const int Mp = P.MBlocks * WARPS * TileRows;
  const int Np = P.NChunks * NT;
#pragma unroll
  for (int J = 0; J < NTiles8; ++J)
#pragma unroll
    for (int E = 0; E < 4; ++E) {
      int M = Row0 + (E >> 1) * 8, N = Nc * NT + J * 8 + 2 * Tig + (E & 1);
      P.Partial[(size_t(Split) * Np + N) * Mp + M] = Acc[J][E];
    }
  __threadfence();
  __syncthreads();
  __shared__ int IsLast;
  if (Tid == 0) {
    unsigned Old = atomicAdd(P.Counters + Mb * P.NChunks + Nc, 1u);
    IsLast = Old == unsigned(P.SplitK - 1);
  }
  __syncthreads();
  if (!IsLast)
    return;
  __threadfence();
  constexpr int Rows = WARPS * TileRows;
  for (int I = Tid; I < Rows * NT; I += WARPS * 32) {
    int M = Mb * Rows + I % Rows, N = Nc * NT + I / Rows;
    float Sum = 0.f;
    for (int S = 0; S < P.SplitK; ++S)
      Sum += __ldcg(P.Partial + (size_t(S) * Np + N) * Mp + M);
    if (M < P.M && N < P.N)
      P.Y[size_t(N) * P.Ldy + M] = __float2half_rn(Sum);
  }
  if (Tid == 0)
    P.Counters[Mb * P.NChunks + Nc] = 0;
}

struct Variant {
  int NT, Warps, Stages;
  void (*Kernel)(Params);
  int (*TotalBytes)(int, int);
};

template <int NT, int WARPS, int STAGES> Variant variant() {
  return {NT, WARPS, STAGES, tlsSpmmKernel<NT, WARPS, STAGES>,
          [](int S, int R) { return Layout<NT, WARPS>::totalBytes(S, R); }};
}

const Variant *findVariant(int NT, int Warps) {
  static const Variant All[] = {
      variant<8, 4, 3>(),  variant<16, 4, 3>(), variant<32, 4, 2>(),
      variant<64, 4, 3>(), variant<8, 8, 3>(),  variant<16, 8, 3>(),
      variant<32, 8, 3>(), variant<64, 8, 2>()};
  for (const Variant &V : All)
    if (V.NT == NT && V.Warps == Warps)
      return &V;
  return nullptr;
}

int deviceSms() {
  static int Sms = [] {
    int Dev = 0, N = 0;
    cudaGetDevice(&Dev);
    cudaDeviceGetAttribute(&N, cudaDevAttrMultiProcessorCount, Dev);
    return N > 0 ? N : 1;
  }();
  return Sms;
}

int maxSharedOptin() {
  static int Max = [] {
    int Dev = 0, N = 0;
    cudaGetDevice(&Dev);
    cudaDeviceGetAttribute(&N, cudaDevAttrMaxSharedMemoryPerBlockOptin, Dev);
    return N > 0 ? N : 48 * 1024;
  }();
  return Max;
}

} // namespace

TlsSpmmPlan tlsSpmmPlan(const TlsDeviceMatrix &W, int N,
                        const TlsSpmmOptions &Opts) {
  TlsSpmmPlan Plan{};
  Plan.NTile = Opts.NTile ? Opts.NTile
               : N <= 8   ? 8
               : N <= 16  ? 16
               : N <= 32  ? 32
                          : 64;
  Plan.Warps = Opts.Warps ? Opts.Warps : (Plan.NTile >= 32 ? 8 : 4);
  const Variant *V = findVariant(Plan.NTile, Plan.Warps);
  if (!V)
    return Plan;
  Plan.Stages = V->Stages;
  int Tiles = (W.Rows + 15) / 16;
  int BlockColumns = (W.Cols + 255) / 256;
  Plan.MBlocks = (Tiles + Plan.Warps - 1) / Plan.Warps;
  Plan.NChunks = (N + Plan.NTile - 1) / Plan.NTile;
  // Stage as many residual values per block as the worst block has.
  int RCap = std::min<int>((W.MaxBlockResidual + 7 + 7) / 8 * 8, 2048);
  while (RCap > 0 &&
         V->TotalBytes(V->Stages, RCap) > maxSharedOptin() - 1024)
    RCap -= 8;
  Plan.ResidualCap = RCap;
  Plan.SharedBytes = size_t(V->TotalBytes(V->Stages, RCap));
  int PerSm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerSm, V->Kernel, Plan.Warps * 32,
                                                Plan.SharedBytes);
  PerSm = std::max(PerSm, 1);
  int Slots = PerSm * deviceSms() * std::max(Opts.WavesTarget, 1);
  int Split = Opts.SplitK;
  if (!Split)
    Split = std::max(1, Slots / std::max(1, Plan.MBlocks * Plan.NChunks));
  Plan.SplitK = std::max(1, std::min(Split, BlockColumns));
  Plan.Ctas = Plan.MBlocks * Plan.NChunks * Plan.SplitK;
  return Plan;
}

namespace {
/// Counters sit at the start of the workspace in a region of fixed size, so
/// plans for different N or options can share one workspace: every call
/// leaves its counters at zero and never writes partial sums over another
/// plan's counters.
size_t counterBytes(const TlsSpmmPlan &P) {
  size_t Need = size_t(P.MBlocks) * P.NChunks * sizeof(unsigned);
  return std::max<size_t>((Need + 255) / 256 * 256, size_t(256) << 10);
}
} // namespace

size_t tlsSpmmWorkspaceBytes(const TlsDeviceMatrix &W, int N,
                             const TlsSpmmOptions &Opts) {
  TlsSpmmPlan P = tlsSpmmPlan(W, N, Opts);
  if (!P.Stages)
    return 0;
  size_t Mp = size_t(P.MBlocks) * P.Warps * TileRows;
  size_t Np = size_t(P.NChunks) * P.NTile;
  size_t Partial = P.SplitK > 1 ? size_t(P.SplitK) * Np * Mp * sizeof(float) : 0;
  return counterBytes(P) + Partial;
}

cudaError_t tlsSpmm(const TlsDeviceMatrix &W, const __half *X, int Ldx, int N,
                    __half *Y, int Ldy, void *Workspace, size_t WorkspaceBytes,
                    cudaStream_t Stream, const TlsSpmmOptions &Opts) {
  if (N <= 0 || Ldx % 8 || Ldx < int(W.Cols) || Ldy < int(W.Rows) ||
      reinterpret_cast<uintptr_t>(X) % 16)
    return cudaErrorInvalidValue;
  TlsSpmmPlan Plan = tlsSpmmPlan(W, N, Opts);
  const Variant *V = findVariant(Plan.NTile, Plan.Warps);
  if (!V || WorkspaceBytes < tlsSpmmWorkspaceBytes(W, N, Opts))
    return cudaErrorInvalidValue;
  Params P{};
  P.Values = W.Values;
  P.Bitmap = W.Bitmap;
  P.ResOff = W.ResidualOffsets;
  P.Residual = W.Residual;
  P.X = X;
  P.Y = Y;
  P.Counters = static_cast<unsigned *>(Workspace);
  P.Partial = reinterpret_cast<float *>(static_cast<char *>(Workspace) +
                                        counterBytes(Plan));
  P.Ldx = Ldx;
  P.Ldy = Ldy;
  P.M = int(W.Rows);
  P.K = int(W.Cols);
  P.N = N;
  P.Tiles = int((W.Rows + 15) / 16);
  P.BlockColumns = int((W.Cols + 255) / 256);
  P.SplitK = Plan.SplitK;
  P.NChunks = Plan.NChunks;
  P.MBlocks = Plan.MBlocks;
  P.RCap = Plan.ResidualCap;
  cudaError_t Err = cudaFuncSetAttribute(
      V->Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
      int(Plan.SharedBytes));
  if (Err != cudaSuccess)
    return Err;
  V->Kernel<<<Plan.Ctas, Plan.Warps * 32, Plan.SharedBytes, Stream>>>(P);
  return cudaGetLastError();
}

cudaError_t tlsUpload(const TlsMatrix &M, TlsDeviceMatrix &D) {
  D = TlsDeviceMatrix();
  D.Rows = M.Rows;
  D.Cols = M.Cols;
  D.NumBlocks = M.numBlocks();
  TlsStats S = computeStats(M);
  D.MaxBlockResidual = S.MaxBlockResidual;
  void *Values, *Bitmap, *Offsets, *Residual;
  size_t ResBytes = (M.Residual.size() + 8) * 2;
  cudaError_t Err;
  if ((Err = cudaMalloc(&Values, M.Values.size() * 2)) != cudaSuccess)
    return Err;
  D.Values = static_cast<uint16_t *>(Values);
  if ((Err = cudaMalloc(&Bitmap, M.Bitmap.size() * 4)) != cudaSuccess)
    return Err;
  D.Bitmap = static_cast<uint32_t *>(Bitmap);
  if ((Err = cudaMalloc(&Offsets, M.ResidualOffsets.size() * 4)) != cudaSuccess)
    return Err;
  D.ResidualOffsets = static_cast<uint32_t *>(Offsets);
  if ((Err = cudaMalloc(&Residual, ResBytes)) != cudaSuccess)
    return Err;
  D.Residual = static_cast<uint16_t *>(Residual);
  cudaMemset(Residual, 0, ResBytes);
  cudaMemcpy(Values, M.Values.data(), M.Values.size() * 2,
             cudaMemcpyHostToDevice);
  cudaMemcpy(Bitmap, M.Bitmap.data(), M.Bitmap.size() * 4,
             cudaMemcpyHostToDevice);
  cudaMemcpy(Offsets, M.ResidualOffsets.data(), M.ResidualOffsets.size() * 4,
             cudaMemcpyHostToDevice);
  return cudaMemcpy(Residual, M.Residual.data(), M.Residual.size() * 2,
                    cudaMemcpyHostToDevice);
}

void tlsFree(TlsDeviceMatrix &D) {
  cudaFree(const_cast<uint16_t *>(D.Values));
  cudaFree(const_cast<uint32_t *>(D.Bitmap));
  cudaFree(const_cast<uint32_t *>(D.ResidualOffsets));
  cudaFree(const_cast<uint16_t *>(D.Residual));
  D = TlsDeviceMatrix();
}

} // namespace sparse
} // namespace cudaopt
