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
#include "TlsLayout.h"

#include <cstdint>
#include <cstdio>
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
long long GatherChecked = 0;
void checkGather(uint32_t E, uint32_t N, uint32_t S8, uint32_t DS8,
                 std::mt19937 &Rng) {
  constexpr uint32_t Vb = 128, Db = 256, Rq = 512, Size = 1024;
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
  gatherRanked(N, E, Vb, S8, Db, DS8, Rq, M);
  ++GatherChecked;
  if (Mem != Want && Failures++ < 10) {
    uint32_t At = 0;
    while (Mem[At] == Want[At])
      ++At;
    std::printf("FAIL: gather E %08x N %08x S8 %u DS8 %u: byte %u is %02x, "
                "want %02x\n",
                E, N, S8, DS8, At, Mem[At], Want[At]);
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
    bool Bad = E != TE || Nd != TNd || E != RE || Nd != RNd;
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

} // namespace

int main() {
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

  std::printf("%lld lane decodes checked\n", Checked);
  if (Failures) {
    std::printf("%d FAILED\n", Failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
