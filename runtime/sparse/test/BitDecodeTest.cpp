//===- BitDecodeTest.cpp - The bit-sliced decode against the tables -------===//
//
// tls-bit-decode-test (test/Sparse/bit-decode.test): the SpMM kernel's
// bit-sliced empty/need mask and layer-1 metadata decode (lib/TlsBitDecode.h,
// the very functions the kernel runs, compiled for the CPU) against the
// table-based decode it replaces, emulated here exactly as SpmmDecode.cuh
// runs it (the 256-entry tables of SpmmLayout.cuh's fillTables, the
// laneByte lookups, byte permutes and the metadata shuffle from lane + 2),
// and against the format's per-group rules (layer1Meta, layer1Occupancy,
// layer2Need in TlsLayout.h). The bit-sliced variants' gather
// (gatherRanked) runs on an emulated shared memory against decodeLayer2.
//
// An output field depends on at most 16 input bits (a lane's chain byte of
// one k-step: its two groups in rows g and g + 8; a metadata half-word: four
// groups of one row), so every field is checked exhaustively: all 2^16
// values of those bits, for every lane position and k-step, with random
// bits elsewhere; then 2^18 fully random inputs and edge patterns.
//
//===----------------------------------------------------------------------===//

#include "TlsBitDecode.h"
#include "TlsFormat.h"
#include "TlsLayout.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

using namespace cudaopt::sparse;

namespace {

int Failures = 0;

/// The kernel's shared-memory tables (SpmmLayout.cuh's Tables/fillTables).
struct Tables {
  uint32_t EN0[256], EN1[256];
  uint8_t Meta[256];
  Tables() {
    for (uint32_t B = 0; B < 256; ++B) {
      const uint32_t I = infoByte(B);
      EN0[B] = spreadRowBits(I & 0xF) | spreadRowBits(I >> 4) << 16;
      EN1[B] = EN0[B] << 2;
      Meta[B] = uint8_t(metaByte(B));
    }
  }
};
const Tables Tab;

/// SpmmDecode.cuh's laneByte.
uint32_t laneByte(uint32_t W, int Sh) {
  return ((W >> Sh) & 0xF) | ((W >> (Sh + 12)) & 0xF0);
}

/// The table-based masks of lane t, as decodeAndMultiply computes them.
void tableMasks(const uint32_t (&WG)[4], const uint32_t (&WG8)[4], int Tig,
                uint32_t &E, uint32_t &Nd) {
  const int Sh = 4 * Tig;
  uint32_t V[4];
  for (int K = 0; K < 4; ++K)
    V[K] = Tab.EN0[laneByte(WG[K], Sh)] | Tab.EN1[laneByte(WG8[K], Sh)];
  const uint32_t X01 = bytePerm(V[0], V[1], 0x6240);
  const uint32_t X23 = bytePerm(V[2], V[3], 0x6240);
  E = bytePerm(X01, X23, 0x5410);
  Nd = bytePerm(X01, X23, 0x7632);
}

/// The table-based metadata of a quad, as decodeAndMultiply computes it
/// (lane t tabulates row g + 8 (t >> 1), groups 4 (t & 1) .. + 3; lanes 0
/// and 1 receive the row g + 8 half from lane t + 2 by the shuffle). Only
/// lanes 0 and 1 matter to the mma (sparsity selector 0).
void tableMeta(const uint32_t (&WG)[4], const uint32_t (&WG8)[4],
               uint32_t (&Meta)[2][4]) {
  uint32_t Own[4][4];
  for (int Tig = 0; Tig < 4; ++Tig) {
    const uint32_t SelLo = 0x4440u | uint32_t(2 * (Tig & 1)), SelHi = SelLo + 1;
    const uint32_t *WM = (Tig >> 1) ? WG8 : WG;
    for (int K = 0; K < 4; ++K)
      Own[Tig][K] = uint32_t(Tab.Meta[bytePerm(WM[K], 0, SelLo)]) |
                    uint32_t(Tab.Meta[bytePerm(WM[K], 0, SelHi)]) << 8;
  }
  for (int Tig = 0; Tig < 2; ++Tig)
    for (int K = 0; K < 4; K += 2) {
      const uint32_t Other = Own[Tig + 2][K] | Own[Tig + 2][K + 1] << 16;
      Meta[Tig][K] = Own[Tig][K] | Other << 16;
      Meta[Tig][K + 1] = Own[Tig][K + 1] | (Other & 0xFFFF0000u);
    }
}

/// The format's rules group by group (TlsLayout.h), independent of both.
void ruleMasks(const uint32_t (&WG)[4], const uint32_t (&WG8)[4], int Tig,
               uint32_t &E, uint32_t &Nd) {
  E = Nd = 0;
  for (int K = 0; K < 4; ++K)
    for (int H = 0; H < 2; ++H)
      for (int RH = 0; RH < 2; ++RH) {
        const uint32_t W = RH ? WG8[K] : WG[K];
        const uint32_t Nib = (W >> (4 * (Tig + 4 * H))) & 0xF;
        const int X = 8 * K + 4 * H + 2 * RH;
        E |= (~layer1Occupancy(Nib) & 3u) << X;
        Nd |= layer2Need(Nib) << X;
      }
}
uint32_t ruleMeta(const uint32_t (&WG)[4], const uint32_t (&WG8)[4], int S,
                  int K) {
  uint32_t M = 0;
  for (int RH = 0; RH < 2; ++RH)
    for (int J = 0; J < 4; ++J) {
      const uint32_t W = RH ? WG8[K] : WG[K];
      M |= layer1Meta((W >> (4 * (4 * S + J))) & 0xF) << (16 * RH + 4 * J);
    }
  return M;
}

long long Checked = 0;

/// gatherRanked's memory in the CPU test: byte addresses into an array.
struct HostMem {
  std::vector<uint8_t> &B;
  uint32_t lds16(uint32_t A) const { return B.at(A) | B.at(A + 1) << 8; }
  void sts16(uint32_t A, uint32_t V) {
    B.at(A) = uint8_t(V);
    B.at(A + 1) = uint8_t(V >> 8);
  }
};

/// gatherRanked on one chain (masks E, N; swizzles S8 and DS8) against
/// decodeLayer2: the layer-2 buffer, the donated slots zeroed, the
/// residual values read zeroed, nothing else touched.
long long HeaderChecked = 0;
long long GatherChecked = 0, GatherMinChecked = 0, GatherMin4Checked = 0;
void checkGather(uint32_t E, uint32_t N, uint32_t S8, uint32_t DS8,
                 std::mt19937 &Rng, bool Tight = false) {
  // Tight: the residuals at the least distance gatherRankedMin allows
  // (Rq = Vb + 128 bytes), the layer-2 buffer after them.
  const uint32_t Vb = 128, Db = Tight ? 384 : 256, Rq = Tight ? 256 : 512;
  constexpr uint32_t Size = 1024;
  std::vector<uint8_t> Mem(Size);
  for (auto &B : Mem)
    B = uint8_t(Rng());
  uint16_t Slot[32], Res[33];
  for (int Y = 0; Y < 32; ++Y)
    Slot[Y] = uint16_t(Rng() | 1);
  for (int R = 0; R < 33; ++R)
    Res[R] = uint16_t(Rng() | 1);
  HostMem M{Mem};
  for (uint32_t Y = 0; Y < 32; ++Y) {
    M.sts16(Vb + 2 * (Y ^ S8), Slot[Y]);
    M.sts16(Db + 2 * Y, 0);
    M.sts16(Rq + 2 * Y, Res[Y]);
  }
  M.sts16(Rq + 64, Res[32]);
  std::vector<uint8_t> Want = Mem;
  HostMem W{Want};
  uint32_t Donated = 0;
  int Read = 0;
  decodeLayer2(
      E, N,
      [&](int Y) {
        Donated |= 1u << Y;
        return uint32_t(Slot[Y]);
      },
      [&](int R) {
        Read = R + 1;
        return uint32_t(Res[R]);
      },
      [&](int X, uint32_t V) { W.sts16(Db + 2 * (uint32_t(X) ^ DS8), V); });
  for (uint32_t Y = 0; Y < 32; ++Y)
    if (Donated >> Y & 1)
      W.sts16(Vb + 2 * (Y ^ S8), 0);
  for (int R = 0; R < Read; ++R)
    W.sts16(Rq + 2 * R, 0);
  // Decode 2's gather (any layer-2 swizzle), then Decode 3's
  // (gatherRankedMin: the kernel's unswizzled layer-2 buffer) on a copy of
  // the same memory.
  const std::vector<uint8_t> Before = Mem;
  gatherRanked(N, E, Vb, S8, Db, DS8, Rq, M);
  ++GatherChecked;
  auto report = [&](const char *What, const std::vector<uint8_t> &Got) {
    uint32_t At = 0;
    while (Got[At] == Want[At])
      ++At;
    std::printf("FAIL: %s E %08x N %08x S8 %u DS8 %u: byte %u is %02x, "
                "want %02x\n",
                What, E, N, S8, DS8, At, Got[At], Want[At]);
  };
  if (Mem != Want && Failures++ < 10)
    report("gatherRanked", Mem);
  if (DS8 == 0) {
    std::vector<uint8_t> Mem3 = Before;
    HostMem M3{Mem3};
    gatherRankedMin(N, E, Vb, S8, Db, Rq, M3);
    ++GatherMinChecked;
    if (Mem3 != Want && Failures++ < 10)
      report("gatherRankedMin", Mem3);
    // Decode 4's (unrolled by four) on another copy.
    std::vector<uint8_t> Mem4 = Before;
    HostMem M4{Mem4};
    gatherRankedMin4(N, E, Vb, S8, Db, Rq, M4);
    ++GatherMin4Checked;
    if (Mem4 != Want && Failures++ < 10)
      report("gatherRankedMin4", Mem4);
  }
}

/// Checks every lane of a quad on one input (both rows' words of the
/// chain's four k-steps).
void checkInput(const uint32_t (&WG)[4], const uint32_t (&WG8)[4]) {
  uint32_t TM[2][4];
  tableMeta(WG, WG8, TM);
  for (int Tig = 0; Tig < 4; ++Tig) {
    const BitDecodeLane Ln = bitDecodeLane(Tig);
    uint32_t E, Nd, TE, TNd, RE, RNd;
    bitChainMasks(WG, WG8, Ln, E, Nd);
    uint32_t PE, PNd;
    bitChainMasksPermFirst(WG, WG8, Ln, PE, PNd);
    tableMasks(WG, WG8, Tig, TE, TNd);
    ruleMasks(WG, WG8, Tig, RE, RNd);
    // The quad's shuffle: lane t + 2's pair (lanes 2, 3 read the next
    // quad's on the GPU; the mma reads neither).
    uint32_t Other[2];
    const int Partner = (Tig + 2) & 3;
    const BitDecodeLane LnP = bitDecodeLane(Partner);
    const bool PHi = LnP.Hi != 0;
    bitMetaPair(PHi ? WG[2] : WG[0], PHi ? WG8[2] : WG8[0],
                PHi ? WG[3] : WG[1], PHi ? WG8[3] : WG8[1], LnP.SelM,
                Other[0], Other[1]);
    uint32_t Meta[4];
    bitLayer1Meta(WG, WG8, Ln, Meta,
                  [&](uint32_t, int I) { return Other[I]; });
    // Decode 4: the words as its two 8-byte loads at MetaOff = BitsOff +
    // 8 Hi read them (row g's words from BitsOff, row g + 8's 128 bytes on).
    {
      const uint32_t Words[2][4] = {{WG[0], WG[1], WG[2], WG[3]},
                                    {WG8[0], WG8[1], WG8[2], WG8[3]}};
      const uint32_t W0 = (8u * Ln.Hi) / 4u;
      uint32_t MetaP[4];
      bitLayer1MetaPicked(Words[0][W0], Words[1][W0], Words[0][W0 + 1],
                          Words[1][W0 + 1], Ln, MetaP,
                          [&](uint32_t, int I) { return Other[I]; });
      for (int K = 0; K < 4; ++K)
        if (MetaP[K] != Meta[K] && Failures++ < 10)
          std::printf("FAIL: bitLayer1MetaPicked t=%d k-step %d: %08x, "
                      "bitLayer1Meta %08x\n",
                      Tig, K, MetaP[K], Meta[K]);
    }
    bool Bad = E != TE || Nd != TNd || E != RE || Nd != RNd || PE != TE ||
               PNd != TNd;
    // Lanes t = 2, 3 hold k-steps 2, 3 of lane t - 2 in Meta[0], Meta[1]
    // (what they hand to it); the mma reads lanes 0 and 1.
    for (int K = 0; K < 4; ++K)
      if (Tig < 2)
        Bad |= Meta[K] != ruleMeta(WG, WG8, Tig, K) || Meta[K] != TM[Tig][K];
      else if (K < 2)
        Bad |= Meta[K] != ruleMeta(WG, WG8, Tig & 1, K + 2);
    ++Checked;
    if (Bad && Failures++ < 10)
      std::printf("FAIL: t=%d words %08x %08x %08x %08x / %08x %08x %08x "
                  "%08x: E %08x (tables %08x), need %08x (tables %08x), "
                  "meta %08x.. (tables %08x..)\n",
                  Tig, WG[0], WG[1], WG[2], WG[3], WG8[0], WG8[1], WG8[2],
                  WG8[3], E, TE, Nd, TNd, Meta[0], TM[Tig & 1][0]);
  }
}


/// Random fp16 matrices from the real encoder's point of view: i.i.d.
/// zeros, or per-row magnitude pruning of normal values (as
/// tls-roundtrip's makeMatrix).
std::vector<uint16_t> prunedMatrix(uint32_t Rows, uint32_t Cols,
                                   double Sparsity, bool Magnitude,
                                   uint64_t Seed) {
  std::mt19937_64 Rng(Seed);
  std::normal_distribution<float> Normal;
  std::uniform_real_distribution<double> U(0, 1);
  std::vector<uint16_t> W(size_t(Rows) * Cols);
  for (auto &V : W) {
    const float F = Normal(Rng);
    // A nonzero half with the magnitude order of |F| (exponent 15 + ...).
    const uint32_t Mag = std::min(uint32_t(std::fabs(F) * 1024.f), 0x7BFFu);
    V = uint16_t((F < 0 ? 0x8000u : 0u) | (Mag ? Mag : 1u));
  }
  if (!Magnitude) {
    for (auto &V : W)
      if (U(Rng) < Sparsity)
        V = 0;
    return W;
  }
  std::vector<std::pair<uint16_t, uint32_t>> Row(Cols);
  const uint32_t Drop = uint32_t(std::lround(Sparsity * Cols));
  for (uint32_t R = 0; R < Rows; ++R) {
    for (uint32_t C = 0; C < Cols; ++C)
      Row[C] = {uint16_t(W[size_t(R) * Cols + C] & 0x7FFF), C};
    std::nth_element(Row.begin(), Row.begin() + Drop, Row.end());
    for (uint32_t I = 0; I < Drop; ++I)
      W[size_t(R) * Cols + Row[I].second] = 0;
  }
  return W;
}

/// Calls F(Block, Chain, Empty[32], Need[32]) for every warp-item (half
/// block) of the encoded matrix: the lanes' masks as the kernel decodes
/// them (bitChainMasks on the block's bitmap words).
template <typename Fn> void forEachWarpItem(const TlsMatrix &M, Fn F) {
  for (uint64_t B = 0; B < M.numBlocks(); ++B)
    for (int Ch = 0; Ch < 2; ++Ch) {
      uint32_t E[32], N[32];
      for (int L = 0; L < 32; ++L) {
        uint32_t WG[4], WG8[4];
        for (int K = 0; K < 4; ++K) {
          WG[K] = M.Bitmap[B * BlockBitmapWords +
                           bitmapIndex(L >> 2, 4 * Ch + K)];
          WG8[K] = M.Bitmap[B * BlockBitmapWords +
                            bitmapIndex((L >> 2) + 8, 4 * Ch + K)];
        }
        bitChainMasks(WG, WG8, bitDecodeLane(L & 3), E[L], N[L]);
      }
      F(B, Ch, E, N);
    }
}

/// --busiest: the values a warp's gather loop runs per warp-item (the
/// busiest lane's layer-2 + layer-3 count, what sass-count.py multiplies
/// the loop body by), over every half block of 4096 x 4096 matrices
/// encoded by the real encoder at 50 % (i.i.d. and per-row magnitude
/// pruning); and what balancing the gather across lanes could give:
/// perfect balance over lane pairs, quads or the warp (a bound, free
/// redistribution), and the two-loop scheme we could build without a
/// select instruction (loop 1: T1 values of every lane's own chain; loop
/// 2: a busy lane goes on while a lane with <= T1 values takes up to half
/// of its rest from the bottom, residual values only; helpers taken from
/// the partner L ^ 1, or from the whole warp in lane order).
int busiest() {
  for (int Mag = 0; Mag < 2; ++Mag) {
    const uint32_t Rows = 4096, Cols = 4096;
    const auto W = prunedMatrix(Rows, Cols, 0.5, Mag != 0, 1234 + Mag);
    const TlsMatrix M = encode(W.data(), Rows, Cols, ElemType::F16);
    double Items = 0, Mean = 0, Max = 0, Pair = 0, Quad = 0, Warp = 0;
    double TwoLoopPair[16] = {}, TwoLoopWarp[16] = {};
    forEachWarpItem(M, [&](uint64_t, int, const uint32_t *E,
                           const uint32_t *N) {
      int C[32], R[32], Tot = 0, Mx = 0;
      for (int L = 0; L < 32; ++L) {
        C[L] = popCount(N[L]);
        R[L] = residualCount(E[L], N[L]);
        Tot += C[L];
        Mx = std::max(Mx, C[L]);
      }
      Items += 1;
      Mean += Tot / 32.0;
      Max += Mx;
      int P2 = 0, P4 = 0;
      for (int L = 0; L < 32; L += 2)
        P2 = std::max(P2, (C[L] + C[L + 1] + 1) / 2);
      for (int L = 0; L < 32; L += 4)
        P4 = std::max(P4, (C[L] + C[L + 1] + C[L + 2] + C[L + 3] + 3) / 4);
      Pair += P2;
      Quad += P4;
      Warp += (Tot + 31) / 32;
      for (int T1 = 0; T1 < 16; ++T1) {
        // Pair partner.
        int L1 = 0, L2 = 0;
        for (int L = 0; L < 32; ++L) {
          auto give = [&](int A, int B) {
            return C[A] > T1 && C[B] <= T1 ? std::min((C[A] - T1) >> 1, R[A])
                                           : 0;
          };
          const int Own = C[L] - give(L, L ^ 1);
          L1 = std::max(L1, std::min(Own, T1));
          L2 = std::max(L2, std::max(Own - T1, give(L ^ 1, L)));
        }
        TwoLoopPair[T1] += L1 + L2;
        // Warp: the i-th busy lane (lane order) gets the i-th free one.
        int Free = 0;
        for (int L = 0; L < 32; ++L)
          Free += C[L] <= T1;
        L1 = L2 = 0;
        for (int L = 0; L < 32; ++L) {
          int Give = 0;
          if (C[L] > T1 && Free > 0) {
            --Free;
            Give = std::min((C[L] - T1) >> 1, R[L]);
          }
          const int Own = C[L] - Give;
          L1 = std::max(L1, std::min(Own, T1));
          L2 = std::max(L2, std::max(Own - T1, Give));
        }
        TwoLoopWarp[T1] += L1 + L2;
      }
    });
    int BestP = 0, BestW = 0;
    for (int T1 = 0; T1 < 16; ++T1) {
      if (TwoLoopPair[T1] < TwoLoopPair[BestP])
        BestP = T1;
      if (TwoLoopWarp[T1] < TwoLoopWarp[BestW])
        BestW = T1;
    }
    std::printf("%s 50 %%, %.0f warp-items (4096 x 4096): mean lane %.3f, "
                "busiest lane %.3f values\n",
                Mag ? "magnitude" : "i.i.d.", Items, Mean / Items,
                Max / Items);
    std::printf("  perfectly balanced over pairs %.2f, quads %.2f, the warp "
                "%.2f\n",
                Pair / Items, Quad / Items, Warp / Items);
    std::printf("  two loops, partner L^1: %.2f (T1 = %d); warp, lane "
                "order: %.2f (T1 = %d)\n",
                TwoLoopPair[BestP] / Items, BestP, TwoLoopWarp[BestW] / Items,
                BestW);
  }
  return 0;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc > 1 && std::strcmp(Argv[1], "--busiest") == 0)
    return busiest();
  std::mt19937 Rng(12345);
  uint32_t WG[4], WG8[4];
  auto randomize = [&] {
    for (int K = 0; K < 4; ++K) {
      WG[K] = Rng();
      WG8[K] = Rng();
    }
  };

  // Masks: the 16 bits behind one chain byte (k-step K, lane t: groups t
  // and 4 + t of rows g and g + 8), all values, random bits elsewhere.
  for (int K = 0; K < 4; ++K)
    for (int Tig = 0; Tig < 4; ++Tig)
      for (uint32_t V = 0; V < 65536; ++V) {
        randomize();
        const uint32_t M = 0xFu << (4 * Tig) | 0xFu << (4 * (Tig + 4));
        auto spread = [&](uint32_t Byte) {
          return (Byte & 0xF) << (4 * Tig) | (Byte >> 4) << (4 * (Tig + 4));
        };
        WG[K] = (WG[K] & ~M) | spread(V & 0xFF);
        WG8[K] = (WG8[K] & ~M) | spread(V >> 8);
        checkInput(WG, WG8);
      }
  std::printf("ok masks: every 16-bit chain-byte input, 4 k-steps x 4 lanes\n");

  // Metadata: the 16 bits behind one half-word (k-step K, row half RH,
  // groups 4 s .. 4 s + 3), all values.
  for (int K = 0; K < 4; ++K)
    for (int RH = 0; RH < 2; ++RH)
      for (int S = 0; S < 2; ++S)
        for (uint32_t V = 0; V < 65536; ++V) {
          randomize();
          uint32_t &W = RH ? WG8[K] : WG[K];
          W = (W & ~(0xFFFFu << (16 * S))) | V << (16 * S);
          checkInput(WG, WG8);
        }
  std::printf("ok metadata: every 16-bit half-word input, 4 k-steps x 2 "
              "rows x 2 lanes\n");

  for (int I = 0; I < (1 << 18); ++I) {
    randomize();
    // Sparser and denser words too (the random words are 50 % ones).
    if (I & 1)
      for (int K = 0; K < 4; ++K) {
        WG[K] &= Rng();
        WG8[K] |= Rng();
      }
    checkInput(WG, WG8);
  }
  const uint32_t Edge[] = {0u,          0xFFFFFFFFu, 0x11111111u, 0x88888888u,
                           0x77777777u, 0xEEEEEEEEu, 0x0F0F0F0Fu, 0xF0F0F0F0u,
                           0x12481248u, 0x84218421u, 0x00010000u, 0x80000000u};
  for (uint32_t A : Edge)
    for (uint32_t B : Edge) {
      for (int K = 0; K < 4; ++K) {
        WG[K] = K & 1 ? B : A;
        WG8[K] = K & 2 ? A : B;
      }
      checkInput(WG, WG8);
    }
  std::printf("ok random: 2^18 inputs and %zu edge patterns\n",
              sizeof(Edge) / sizeof(Edge[0]) * (sizeof(Edge) / sizeof(Edge[0])));

  // The gather: masks of real chains (the bit-sliced masks of random
  // bitmaps of 30-70 % density), independent random masks of every
  // density, and edge cases; every swizzle of the slots and of the
  // layer-2 buffer (the kernel's is 0).
  for (int I = 0; I < (1 << 16); ++I) {
    const int Tig = I & 3;
    for (int K = 0; K < 4; ++K) {
      WG[K] = Rng() & Rng();
      WG8[K] = Rng() & Rng();
      if (I & 4) {
        WG[K] = ~WG[K];
        WG8[K] = ~WG8[K];
      }
      if (I & 8) {
        WG[K] ^= Rng() & Rng() & Rng();
        WG8[K] |= Rng() & Rng() & Rng();
      }
    }
    uint32_t E, Nd;
    bitChainMasks(WG, WG8, bitDecodeLane(Tig), E, Nd);
    const uint32_t S8 = 8u * uint32_t((I >> 4) & 3);
    checkGather(E, Nd, S8, I & 16 ? S8 : 0, Rng);
    uint32_t RE = Rng(), RN = Rng();
    for (int J = 0; J < ((I >> 6) & 3); ++J)
      RE &= Rng();
    for (int J = 0; J < ((I >> 8) & 3); ++J)
      RN &= Rng();
    checkGather(RE, RN, 8u * uint32_t((I >> 10) & 3),
                8u * uint32_t((I >> 12) & 3), Rng);
  }
  const uint32_t GEdge[] = {0u,          0xFFFFFFFFu, 1u,          0x80000000u,
                            0x0000FFFFu, 0xFFFF0000u, 0x55555555u, 0xAAAAAAAAu};
  for (uint32_t E : GEdge)
    for (uint32_t N : GEdge)
      for (uint32_t S8 = 0; S8 < 32; S8 += 8) {
        checkGather(E, N, S8, S8, Rng);
        checkGather(E, N, S8, 0, Rng);
      }
  std::printf("ok gather: %lld chains against decodeLayer2\n", GatherChecked);

  // Decode 3's gather (gatherRankedMin) on more inputs: the masks of every
  // lane and half block of matrices from the real encoder (i.i.d. and
  // per-row magnitude pruning, 30-70 %), random chains of every density at
  // the tightest layout it allows, and adversarial ones: every single-bit
  // pair, full and empty masks, a chain needing all 32 values from the
  // residual list.
  const long long Before3 = GatherMinChecked;
  for (int Mag = 0; Mag < 2; ++Mag)
    for (int Pct = 30; Pct <= 70; Pct += 10) {
      const auto W = prunedMatrix(256, 1024, Pct / 100.0, Mag != 0,
                                  99 + Pct + 1000 * Mag);
      const TlsMatrix TM = encode(W.data(), 256, 1024, ElemType::F16);
      uint32_t Chain0Total = 0;
      forEachWarpItem(TM, [&](uint64_t B, int Ch, const uint32_t *E,
                              const uint32_t *N) {
        for (int L = 0; L < 32; ++L)
          checkGather(E[L], N[L], 8u * uint32_t((L >> 1) & 3), 0, Rng,
                      (B + Ch + L) & 1);
        // Decode 4's stage header: each lane's first residual value in the
        // staged window (from Start rounded down to 8) against where the
        // format puts it, and against Decode 3's formula.
        const uint32_t Start = TM.ResidualOffsets[B],
                       Stop = TM.ResidualOffsets[B + 1];
        uint32_t Total = 0;
        for (int L = 0; L < 32; ++L)
          Total += uint32_t(residualCount(E[L], N[L]));
        if (Ch == 0)
          Chain0Total = Total;
        uint32_t Hx, Hy, Excl = 0;
        residualHeader(Start, Stop, Ch, Hx, Hy);
        for (int L = 0; L < 32; ++L) {
          const uint32_t Want =
              Start + (Ch ? Chain0Total : 0u) + Excl - (Start & ~7u);
          const uint32_t Got = residualStartQ(Hx, Hy, Excl, Total);
          const uint32_t Mask = Ch ? ~0u : 0u;
          const uint32_t Old = (Start & 7u) + Excl + ((Stop - Start - Total) & Mask);
          ++HeaderChecked;
          if ((Got != Want || Old != Want) && Failures++ < 10)
            std::printf("FAIL: residual header block %llu chain %d lane %d: "
                        "%u (Decode 3's formula %u), want %u\n",
                        (unsigned long long)B, Ch, L, Got, Old, Want);
          Excl += uint32_t(residualCount(E[L], N[L]));
        }
        if (Ch == 1 && Chain0Total + Total != Stop - Start && Failures++ < 10)
          std::printf("FAIL: block %llu: %u + %u residual values, offsets "
                      "say %u\n",
                      (unsigned long long)B, Chain0Total, Total, Stop - Start);
      });
    }
  const long long Encoded3 = GatherMinChecked - Before3;
  for (int I = 0; I < (1 << 17); ++I) {
    uint32_t RE = Rng(), RN = Rng();
    for (int J = 0; J < (I & 3); ++J)
      RE &= Rng();
    for (int J = 0; J < ((I >> 2) & 3); ++J)
      RN &= Rng();
    if (I & 16)
      RN |= Rng() & Rng();
    checkGather(RE, RN, 8u * uint32_t((I >> 5) & 3), 0, Rng, (I >> 7) & 1);
  }
  for (int X = 0; X < 32; ++X)
    for (int Y = 0; Y < 32; ++Y)
      for (uint32_t S8 = 0; S8 < 32; S8 += 8) {
        checkGather(1u << Y, 1u << X, S8, 0, Rng, true);
        checkGather(~(1u << Y), 1u << X, S8, 0, Rng, false);
        checkGather(1u << Y, ~(1u << X), S8, 0, Rng, true);
      }
  for (uint32_t E : GEdge)
    for (uint32_t N : GEdge)
      for (uint32_t S8 = 0; S8 < 32; S8 += 8)
        checkGather(E, N, S8, 0, Rng, true);
  std::printf("ok gather min: %lld chains against decodeLayer2 (%lld from "
              "encoded i.i.d. and magnitude-pruned matrices)\n",
              GatherMinChecked, Encoded3);
  std::printf("ok gather min4: %lld chains against decodeLayer2\n",
              GatherMin4Checked);
  std::printf("ok residual header: %lld lane starts of encoded matrices\n",
              HeaderChecked);

  std::printf("%lld lane decodes checked\n", Checked);
  if (Failures) {
    std::printf("%d FAILED\n", Failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
