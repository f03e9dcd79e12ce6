//===- Sm90PingPong.cuh - ping-pong consumer schedule ----------*- CUDA -*-===//
//
// The ping-pong variant of the warp-specialised kernel (plan option
// PingPong): one producer warpgroup and two consumer warpgroups, but each
// consumer owns a whole output tile of BM/2 x BN instead of half of a BM x
// BN tile. The CTA's persistent list of tiles is dealt alternately to the
// consumers (local tiles 0, 2, 4, ... to consumer 0; 1, 3, 5, ... to
// consumer 1), and two named barriers hand the tensor cores from one
// consumer to the other: a consumer issues its whole main loop, then lets
// the other one start its main loop while it waits for its last wgmma
// groups and runs its epilogue. So one consumer's epilogue runs under the
// other's main loop, and the tensor cores never wait for an epilogue (the
// cooperative kernel stalls both consumers of a tile during the epilogue).
//
// The producer streams the stages of the tiles in the CTA's order into one
// ring, so consumer c finds the K blocks of its local tile i at stage
// iterations i * KBlocks ... (i + 1) * KBlocks - 1; a stage is read by one
// consumer only. No K splits, clusters or two accumulator sets (the plan
// validation refuses them).
//
//===----------------------------------------------------------------------===//

#ifndef CUDAOPT_GEMM_SM90PINGPONG_CUH
#define CUDAOPT_GEMM_SM90PINGPONG_CUH

#include "Sm90Gemm.cuh"

namespace cudaopt::gemm {

/// Shared-memory layout of the ping-pong kernel for a configuration whose
/// CTA tile is BM x BN: per stage one consumer tile's A (BM/2 x 64) and B
/// (BN x 64); per consumer one or two 64x64 output chunks, whichever leaves
/// more stages (a ping-pong stage holds half the A of a cooperative one, so
/// the same memory holds more of them).
template <int BM, int BN> struct Sm90PingPongLayout {
  static constexpr int TileM = BM / 2; // rows of one consumer's tile
  static constexpr int MI = TileM / 64;
  static constexpr int ABytes = TileM * BlockK * 2;
  static constexpr int BBytes = BN * BlockK * 2;
  static constexpr int StageBytes = ABytes + BBytes;
  static constexpr int CChunkBytes = 64 * 64 * 2;
  // The opt-in maximum of an H100/H200 CTA (227 KB), less the 1 KB
  // alignment slack and room for the barriers.
  static constexpr int Budget = 227 * 1024 - 1024 - 256;
  static constexpr int StagesWith(int CBufs) {
    return (Budget - 2 * CBufs * CChunkBytes) / StageBytes;
  }
  static constexpr int CBufs = StagesWith(1) > StagesWith(2) ? 1 : 2;
  static constexpr int Stages = StagesWith(CBufs) < 12 ? StagesWith(CBufs) : 12;
  static constexpr int CBytes = 2 * CBufs * CChunkBytes;
  static constexpr int SmemBytes =
      Stages * StageBytes + CBytes + 2 * Stages * 8 + 1024;
  static_assert(TileM % 64 == 0, "a consumer tile is whole m64 atoms");
  static_assert(Stages >= 3, "a useful pipeline");
  static_assert(SmemBytes <= 227 * 1024, "fits the opt-in shared memory");
};

/// Named barrier ids: 0 is __syncthreads, 2 and 3 are the consumers'
/// own epilogue barriers; TurnBar + c is "consumer c may issue its main
/// loop" (256 threads: one consumer arrives, the other waits).
constexpr int PingPongTurnBar = 4;

template <typename T, int BM, int BN, bool BRowMajor>
__global__ void __launch_bounds__(384, 1)
    sm90PingPongKernel(const __grid_constant__ CUtensorMap MapA,
                       const __grid_constant__ CUtensorMap MapB,
                       const __grid_constant__ CUtensorMap MapC,
                       const Sm90Params P) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)
  using L = Sm90PingPongLayout<BM, BN>;
  constexpr int Stages = L::Stages;
  constexpr int MI = L::MI;
  extern __shared__ unsigned char SmemRaw[];
  unsigned char *Smem = reinterpret_cast<unsigned char *>(
      (reinterpret_cast<uintptr_t>(SmemRaw) + 1023) & ~uintptr_t(1023));
  unsigned char *SA = Smem;
  unsigned char *SB = Smem + Stages * L::ABytes;
  unsigned char *SC = Smem + Stages * L::StageBytes;
  uint64_t *Full = reinterpret_cast<uint64_t *>(SC + L::CBytes);
  uint64_t *Empty = Full + Stages;

  const int Wg = threadIdx.x / 128;
  const int Tid = threadIdx.x % 128;
  if (threadIdx.x == 0) {
    prefetchTensorMap(&MapA);
    prefetchTensorMap(&MapB);
    for (int S = 0; S < Stages; ++S) {
      mbarInit(&Full[S], 1);
      mbarInit(&Empty[S], 1); // one consumer reads a stage
    }
    fenceBarrierInit();
  }
  __syncthreads();
  gridDepLaunchDependents();
  gridDepWait();

  const int NumUnits = P.GridM * P.GridN; // one unit per tile, no splits
  const int KBlocks = P.KBlocks;
  if (Wg == 0) {
    setMaxNRegDec<40>();
    if (Tid == 0) {
      int It = 0;
      for (int U = blockIdx.x; U < NumUnits; U += gridDim.x) {
        const Unit W = decodeUnit<false>(P, U, 0);
        for (int Kb = 0; Kb < KBlocks; ++Kb, ++It) {
          const int S = It % Stages;
          mbarWait(&Empty[S], ((It / Stages) & 1) ^ 1);
          mbarArriveExpectTx(&Full[S], L::StageBytes);
          unsigned char *DB = SB + S * L::BBytes;
          tmaLoad2d(SA + S * L::ABytes, &MapA, Kb * BlockK, W.Tm * L::TileM,
                    &Full[S]);
          if constexpr (BRowMajor) {
#pragma unroll
            for (int C = 0; C < BN / 64; ++C)
              tmaLoad2d(DB + C * 64 * BlockK * 2, &MapB, W.Tn * BN + C * 64,
                        Kb * BlockK, &Full[S]);
          } else {
            tmaLoad2d(DB, &MapB, Kb * BlockK, W.Tn * BN, &Full[S]);
          }
        }
      }
    }
    return;
  }

  setMaxNRegInc<232>();
  const int Cw = Wg - 1;
  const int Warp = Tid / 32;
  const int Lane = Tid % 32;
  // This CTA's tiles: blockIdx.x + I * gridDim.x for I < LocalUnits, in
  // turns of two (consumer 0 takes the even I, consumer 1 the odd).
  const int LocalUnits =
      (NumUnits - static_cast<int>(blockIdx.x) + gridDim.x - 1) / gridDim.x;
  const int Turns = (LocalUnits + 1) / 2;
  float Acc[MI][BN / 2];
  int CBuf = 0; // which of this consumer's output chunks is next
  unsigned char *CStage = SC + Cw * L::CBufs * L::CChunkBytes;
  for (int J = 0; J < Turns; ++J) {
    const int I = 2 * J + Cw;
    // Wait for this consumer's turn at the tensor cores: consumer 0's
    // first turn is free; afterwards each waits until the other has issued
    // its main loop of the previous turn. Every arrive below is matched by
    // exactly one wait (consumer 1 does not arrive after its last turn).
    if (Cw == 1 || J > 0)
      namedBarrierSync(PingPongTurnBar + Cw, 256);
    if (I >= LocalUnits)
      break; // consumer 1's last turn on an odd count: nothing left
    const Unit W = decodeUnit<false>(P, blockIdx.x + I * gridDim.x, 0);
    int It = I * KBlocks;
    int PrevS = 0;
    for (int Kb = 0; Kb < KBlocks; ++Kb, ++It) {
      const int S = It % Stages;
      mbarWait(&Full[S], (It / Stages) & 1);
      const uint32_t ABase = smemAddr(SA + S * L::ABytes);
      const uint32_t BBase = smemAddr(SB + S * L::BBytes);
      wgmmaFence();
#pragma unroll
      for (int Kk = 0; Kk < BlockK / 16; ++Kk) {
        // Descriptors as in the cooperative kernel (Sm90Gemm.cuh).
        const uint64_t DescB =
            BRowMajor ? makeSmemDesc(BBase + Kk * 2048, 64 * BlockK * 2, 1024)
                      : makeSmemDesc(BBase + Kk * 32, 16, 1024);
        const int ScaleD = (Kb > 0 || Kk > 0) ? 1 : 0;
#pragma unroll
        for (int Mi = 0; Mi < MI; ++Mi) {
          const uint64_t DescA =
              makeSmemDesc(ABase + Mi * 64 * 128 + Kk * 32, 16, 1024);
          Wgmma<T, BN, BRowMajor ? 1 : 0>::run(Acc[Mi], DescA, DescB, ScaleD);
        }
      }
      wgmmaCommit();
      if (Kb > 0) {
        // The previous stage's wgmmas have retired: hand it back.
        wgmmaWait<1>();
        if (Tid == 0)
          mbarArrive(&Empty[PrevS]);
      }
      PrevS = S;
    }
    // Main loop issued: the other consumer may start its own while this
    // one's last groups drain and its epilogue runs.
    if (Cw == 0 || J + 1 < Turns)
      namedBarrierArrive(PingPongTurnBar + (Cw ^ 1), 256);
    wgmmaWait<0>();
    if (Tid == 0)
      mbarArrive(&Empty[PrevS]);

    // Epilogue (fragment layout: see Sm90Gemm.cuh).
    const int Row0 = W.Tm * L::TileM;
    const int Col0 = W.Tn * BN;
    if (P.TmaStore) {
#pragma unroll
      for (int Mi = 0; Mi < MI; ++Mi)
#pragma unroll
        for (int Cc = 0; Cc < BN / 64; ++Cc) {
          if (Tid == 0)
            bulkWaitRead<L::CBufs - 1>(); // the chunk's last store has read it
          namedBarrierSync(2 + Cw, 128);
          unsigned char *Dst = CStage + CBuf * L::CChunkBytes;
          writeSwizzledChunk<T>(Dst, Acc[Mi], Cc, P.Alpha, Warp, Lane);
          fenceProxyAsync();
          namedBarrierSync(2 + Cw, 128);
          if (Tid == 0) {
            tmaStore2d(&MapC, Dst, Col0 + Cc * 64, Row0 + Mi * 64);
            bulkCommit();
          }
          CBuf = L::CBufs == 1 ? 0 : CBuf ^ 1;
        }
      continue;
    }
    storeAccDirect<T, MI, BN>(P, Row0 + Warp * 16 + Lane / 4,
                              Col0 + (Lane % 4) * 2, Acc);
  }
  // Shared memory must outlive the stores' reads of it.
  if (P.TmaStore && Tid == 0)
    bulkWaitRead<0>();
#endif
}

} // namespace cudaopt::gemm

#endif // CUDAOPT_GEMM_SM90PINGPONG_CUH
