//===- RoundTripTest.cpp - CPU checks of the three-layer format -----------===//
//
// tls-roundtrip: encodes random and structured matrices, checks that
//   1. decode(encode(W)) == W bit for bit,
//   2. the .tls file round trip gives the same arrays,
//   3. what the SpMM kernel feeds to mma.sp (its fragments, built with the
//      same TlsLayout.h functions the kernel runs, then expanded the way the
//      PTX ISA defines mma.sp m16n8k32 with sparsity selector 0) adds up to
//      exactly W: every nonzero once, nothing else.
// Usage: tls-roundtrip [--quick] [--tmp DIR]
//        tls-roundtrip --read FILE.tls   (load, verify, print statistics)
//
//===----------------------------------------------------------------------===//

#include "TlsFormat.h"
#include "TlsLayout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace cudaopt::sparse;

namespace {

int Failures = 0;

void fail(const std::string &What) {
  std::printf("FAIL: %s\n", What.c_str());
  ++Failures;
}

uint16_t randomHalf(std::mt19937_64 &Rng) {
  // A normal-distributed fp16 (built by hand: no compiler half type needed).
  std::normal_distribution<float> N(0.f, 1.f);
  float F = N(Rng);
  uint32_t B;
  std::memcpy(&B, &F, 4);
  uint32_t Sign = (B >> 16) & 0x8000;
  int Exp = int((B >> 23) & 0xFF) - 127 + 15;
  uint32_t Mant = (B >> 13) & 0x3FF;
  if (Exp <= 0)
    return uint16_t(Sign | 0x0400); // tiny: smallest normal, still nonzero
  if (Exp >= 31)
    Exp = 30;
  return uint16_t(Sign | uint32_t(Exp) << 10 | Mant);
}

enum class Pattern { Iid, Magnitude, TwoFour, RowSkew };

std::vector<uint16_t> makeMatrix(uint32_t Rows, uint32_t Cols, double Sparsity,
                                 Pattern P, uint64_t Seed) {
  std::mt19937_64 Rng(Seed);
  std::uniform_real_distribution<double> U(0, 1);
  std::vector<uint16_t> W(uint64_t(Rows) * Cols);
  for (auto &V : W)
    V = randomHalf(Rng);
  switch (P) {
  case Pattern::Iid:
    for (auto &V : W)
      if (U(Rng) < Sparsity)
        V = 0;
    break;
  case Pattern::Magnitude: {
    // Per-row magnitude pruning: keep the largest (1 - s) * Cols entries.
    std::vector<std::pair<uint16_t, uint32_t>> Row(Cols);
    uint32_t Drop = uint32_t(std::lround(Sparsity * Cols));
    for (uint32_t R = 0; R < Rows; ++R) {
      for (uint32_t C = 0; C < Cols; ++C)
        Row[C] = {uint16_t(W[uint64_t(R) * Cols + C] & 0x7FFF), C};
      std::nth_element(Row.begin(), Row.begin() + Drop, Row.end());
      for (uint32_t I = 0; I < Drop; ++I)
        W[uint64_t(R) * Cols + Row[I].second] = 0;
    }
    break;
  }
  case Pattern::TwoFour:
    for (uint64_t I = 0; I < W.size(); I += 4)
      for (int J = 0; J < 4; ++J)
        if (J != int(I / 4 % 3) && J != 3)
          W[I + J] = 0;
    break;
  case Pattern::RowSkew:
    // Row r has density r / Rows: from empty rows to dense ones.
    for (uint32_t R = 0; R < Rows; ++R)
      for (uint32_t C = 0; C < Cols; ++C)
        if (U(Rng) >= double(R) / Rows)
          W[uint64_t(R) * Cols + C] = 0;
    break;
  }
  return W;
}

/// Rebuilds W from the kernel's operands: layer-1 and layer-2 A fragments
/// and metadata, per block, lane and k-step, computed the way TlsSpmm.cu
/// computes them; then reads them back through the PTX mma.sp m16n8k32
/// (.f16, selector 0) operand layout.
std::string emulateKernelOperands(const TlsMatrix &M,
                                  const std::vector<uint16_t> &W) {
  std::vector<uint16_t> Out(uint64_t(M.Rows) * M.Cols, 0);
  std::vector<uint8_t> Seen(Out.size(), 0);
  uint32_t BC = M.blockColumns();
  auto Info = [](uint32_t B) { return infoByte(B); };
  for (uint64_t B = 0; B < M.numBlocks(); ++B) {
    uint64_t Row0 = (B / BC) * TileRows, Col0 = (B % BC) * BlockCols;
    const uint16_t *Vals = M.Values.data() + B * BlockSlots;
    const uint32_t *Bits = M.Bitmap.data() + B * BlockBitmapWords;
    const uint16_t *Res = M.Residual.data() + M.ResidualOffsets[B];
    // As the kernel: per chain and lane the masks; chain C's residual values
    // of lane L start after those of the lanes below it (a warp scan), chain
    // 0's at the block's offset, chain 1's where chain 0's end;
    // each relocated value is read from its empty slot, which is then
    // zeroed, and written to a zeroed layer-2 buffer in the same layout.
    std::vector<uint16_t> Scratch(Vals, Vals + BlockSlots);
    std::vector<uint16_t> L2(BlockSlots, 0);
    int Base = 0;
    for (int Ch = 0; Ch < ChainsPerLane; ++Ch)
      for (int L = 0; L < 32; ++L) {
        uint32_t Empty, Need;
        laneChainMasks(Bits, L, Ch, Info, Empty, Need);
        int MyBase = Base;
        decodeLayer2(
            Empty, Need,
            [&](int Y) {
              uint16_t V = Scratch[chainSlotIndex(L, Ch, Y)];
              Scratch[chainSlotIndex(L, Ch, Y)] = 0;
              return V;
            },
            [&](int R) { return Res[MyBase + R]; },
            [&](int X, uint16_t V) { L2[chainSlotIndex(L, Ch, X)] = V; });
        Base += residualCount(Empty, Need);
      }
    if (Base != int(M.ResidualOffsets[B + 1] - M.ResidualOffsets[B]))
      return "residual count mismatch in block " + std::to_string(B);

    for (int T = 0; T < KStepsPerBlock; ++T) {
      uint32_t A1[32][4], A2[32][4], Half[32], Meta[32];
      for (int L = 0; L < 32; ++L) {
        // One 16-byte load per operand gives {a0, a1, a2, a3}.
        for (int Reg = 0; Reg < 4; ++Reg) {
          int RH = Reg & 1, H = Reg >> 1;
          int I0 = slotIndex(T, L, RH, H, 0);
          A1[L][Reg] = Scratch[I0] | uint32_t(Scratch[I0 + 1]) << 16;
          A2[L][Reg] = L2[I0] | uint32_t(L2[I0 + 1]) << 16;
        }
        // Lane (g, t) tabulates row g + 8 * (t >> 1), groups 4 * (t & 1) ..
        // + 3; lanes t = 0, 1 take the row g + 8 half from lane t + 2.
        int G = L >> 2, Tig = L & 3;
        uint32_t Wd = Bits[bitmapIndex(G + 8 * (Tig >> 1), T)] >>
                      (16 * (Tig & 1));
        Half[L] = metaByte(Wd & 0xFF) | metaByte((Wd >> 8) & 0xFF) << 8;
      }
      for (int L = 0; L < 32; ++L)
        Meta[L] = Half[L] | (L + 2 < 32 ? Half[L + 2] : 0) << 16;
      // PTX: A (16x16 compressed) element (r, c) is held by lane
      // 4 * (r % 8) + (c % 8) / 2, register (r / 8) + 2 * (c / 8), half c % 2.
      // Metadata for row r, group j comes from lane 4 * (r % 8) + j / 4
      // (threads 0 and 1 of each quad), bits 16 * (r / 8) + 4 * (j % 4).
      for (int Layer = 0; Layer < 2; ++Layer)
        for (int R = 0; R < 16; ++R)
          for (int C = 0; C < 16; ++C) {
            int J = C / 2, S = C % 2;
            int VLane = 4 * (R % 8) + (C % 8) / 2;
            int Reg = (R / 8) + 2 * (C / 8);
            uint32_t RegV = Layer ? A2[VLane][Reg] : A1[VLane][Reg];
            uint16_t V = uint16_t(RegV >> (16 * S));
            uint32_t MetaV =
                Layer ? Layer2Meta : Meta[4 * (R % 8) + J / 4];
            uint32_t Nib = (MetaV >> (16 * (R / 8) + 4 * (J % 4))) & 0xF;
            uint32_t Idx0 = Nib & 3, Idx1 = Nib >> 2;
            if (Idx0 >= Idx1)
              return "invalid metadata pair";
            uint32_t Idx = S ? Idx1 : Idx0;
            uint64_t Row = Row0 + R, Col = Col0 + T * 32 + 4 * J + Idx;
            if (!V)
              continue;
            if (Row >= M.Rows || Col >= M.Cols)
              return "nonzero operand outside the matrix";
            uint64_t P = Row * M.Cols + Col;
            if (Seen[P])
              return "position (" + std::to_string(Row) + ", " +
                     std::to_string(Col) + ") fed to mma.sp twice";
            Seen[P] = 1;
            Out[P] = V;
          }
    }
  }
  for (uint64_t P = 0; P < Out.size(); ++P)
    if (Out[P] != W[P])
      return "mma operands differ from W at row " +
             std::to_string(P / M.Cols) + ", column " +
             std::to_string(P % M.Cols);
  return "";
}

void check(const char *Name, uint32_t Rows, uint32_t Cols, double Sparsity,
           Pattern P, const std::string &TmpDir, bool Emulate) {
  std::vector<uint16_t> W = makeMatrix(Rows, Cols, Sparsity, P, Rows * 31 + Cols);
  TlsMatrix M = encode(W.data(), Rows, Cols, ElemType::F16);
  std::string Label = std::string(Name) + " " + std::to_string(Rows) + "x" +
                      std::to_string(Cols) + " s=" +
                      std::to_string(int(std::lround(Sparsity * 100)));
  std::string Err = verify(M);
  if (!Err.empty())
    return fail(Label + ": verify: " + Err);
  std::vector<uint16_t> D(W.size());
  decode(M, D.data());
  if (D != W)
    return fail(Label + ": decode(encode(W)) != W");
  if (Emulate) {
    Err = emulateKernelOperands(M, W);
    if (!Err.empty())
      return fail(Label + ": kernel operands: " + Err);
  }
  if (!TmpDir.empty()) {
    std::string Path = TmpDir + "/roundtrip.tls";
    TlsMatrix R;
    Err = writeTlsFile(M, Path);
    if (Err.empty())
      Err = readTlsFile(Path, R);
    if (!Err.empty())
      return fail(Label + ": file: " + Err);
    if (R.Values != M.Values || R.Bitmap != M.Bitmap ||
        R.Residual != M.Residual || R.ResidualOffsets != M.ResidualOffsets ||
        R.Rows != M.Rows || R.Cols != M.Cols)
      return fail(Label + ": file round trip changed the matrix");
  }
  TlsStats S = computeStats(M);
  std::printf("ok %-10s %6ux%-6u s=%2d%%  bytes/elt %.4f  L1 %5.1f%%  L2 "
              "%5.1f%%  L3 %5.1f%%\n",
              Name, Rows, Cols, int(std::lround(Sparsity * 100)),
              S.bytesPerElement(), 100 * S.share(S.Layer1),
              100 * S.share(S.Layer2), 100 * S.share(S.Layer3));
}

} // namespace

int main(int Argc, char **Argv) {
  bool Quick = false;
  std::string Tmp;
  for (int I = 1; I < Argc; ++I) {
    if (!std::strcmp(Argv[I], "--quick"))
      Quick = true;
    else if (!std::strcmp(Argv[I], "--tmp") && I + 1 < Argc)
      Tmp = Argv[++I];
    else if (!std::strcmp(Argv[I], "--read") && I + 1 < Argc) {
      TlsMatrix M;
      std::string Err = readTlsFile(Argv[++I], M);
      if (!Err.empty()) {
        std::fprintf(stderr, "error: %s\n", Err.c_str());
        return 1;
      }
      TlsStats S = computeStats(M);
      std::printf("%s %u x %u: %llu nonzeros, %.4f bytes/elt, L1 %.2f%% L2 "
                  "%.2f%% L3 %.2f%%\n",
                  elemTypeName(M.Type), M.Rows, M.Cols,
                  (unsigned long long)S.Nonzeros, S.bytesPerElement(),
                  100 * S.share(S.Layer1), 100 * S.share(S.Layer2),
                  100 * S.share(S.Layer3));
      return 0;
    }
    else {
      std::fprintf(stderr, "usage: tls-roundtrip [--quick] [--tmp DIR] | "
                           "--read FILE.tls\n");
      return 2;
    }
  }
  // Edge shapes: not multiples of the 16 x 256 block, single elements.
  check("edge", 1, 1, 0.0, Pattern::Iid, Tmp, true);
  check("edge", 37, 300, 0.5, Pattern::Iid, Tmp, true);
  check("edge", 16, 256, 0.0, Pattern::Iid, Tmp, true);
  check("edge", 17, 257, 1.0, Pattern::Iid, Tmp, true);
  check("2:4", 64, 512, 0.5, Pattern::TwoFour, Tmp, true);
  check("rowskew", 128, 768, 0.0, Pattern::RowSkew, Tmp, true);
  for (double S : {0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}) {
    check("iid", 256, 1024, S, Pattern::Iid, Tmp, true);
    check("magnitude", 160, 1000, S, Pattern::Magnitude, "", true);
  }
  if (!Quick)
    for (double S : {0.4, 0.5, 0.6, 0.7}) {
      check("iid", 4096, 4096, S, Pattern::Iid, "", S == 0.5);
      check("magnitude", 4096, 4096, S, Pattern::Magnitude, "", false);
    }
  if (Failures) {
    std::printf("%d FAILED\n", Failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
