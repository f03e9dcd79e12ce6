//===- TlsEncoder.cpp - Dense <-> three-layer format ----------------------===//
//
// The encoder fills one block at a time, one relocation chain at a time,
// with the rules of TlsLayout.h; the decoder runs the same rules backwards, with the
// same decodeLayer2() the kernel uses.
//
//===----------------------------------------------------------------------===//

#include "TlsFormat.h"
#include "TlsLayout.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace cudaopt {
namespace sparse {

const char *elemTypeName(ElemType T) {
  return T == ElemType::BF16 ? "bf16" : "f16";
}

namespace {

/// Reads element (R, C) of the dense matrix, zero outside it.
struct DenseView {
  const uint16_t *Data;
  uint32_t Rows, Cols;
  uint16_t at(uint64_t R, uint64_t C) const {
    return (R < Rows && C < Cols) ? Data[R * Cols + C] : 0;
  }
};

/// Encodes block (Tile, BlockCol): values and bitmap in place, the residual
/// values appended to Res in chain order (chain 0 of every lane, in lane
/// order, then chain 1).
void encodeBlock(const DenseView &D, uint32_t Tile, uint32_t BlockCol,
                 uint16_t *Values, uint32_t *Bitmap,
                 std::vector<uint16_t> &Res) {
  uint64_t Row0 = uint64_t(Tile) * TileRows;
  uint64_t Col0 = uint64_t(BlockCol) * BlockCols;
  for (int R = 0; R < TileRows; ++R)
    for (int T = 0; T < KStepsPerBlock; ++T) {
      uint32_t Word = 0;
      for (int C = 0; C < KStepCols; ++C)
        if (D.at(Row0 + R, Col0 + T * KStepCols + C))
          Word |= 1u << C;
      Bitmap[bitmapIndex(R, T)] = Word;
    }
  std::fill(Values, Values + BlockSlots, uint16_t(0));

  for (int Ch = 0; Ch < ChainsPerLane; ++Ch)
    for (int L = 0; L < 32; ++L) {
      int Tig = L & 3;
      uint32_t Empty = 0, Need = 0;
      uint16_t NeedVal[ChainSlots];
      for (int X = 0; X < ChainSlots; X += 2) {
        int T = 4 * Ch + (X >> 3), H = (X >> 2) & 1, RH = (X >> 1) & 1;
        int Row = (L >> 2) + 8 * RH, Group = 4 * H + Tig;
        uint64_t C0 = Col0 + T * KStepCols + 4 * Group;
        uint32_t Nib = (Bitmap[bitmapIndex(Row, T)] >> (4 * Group)) & 0xF;
        // Layer 1: slots named by the metadata.
        uint32_t Meta = layer1Meta(Nib), Occ = layer1Occupancy(Nib);
        for (int S = 0; S < 2; ++S) {
          if (Occ >> S & 1)
            Values[slotIndex(T, L, RH, H, S)] =
                D.at(Row0 + Row, C0 + ((Meta >> (2 * S)) & 3));
          else
            Empty |= 1u << (X + S);
        }
        // Layer 2: positions 2 and 3 when they overflow.
        uint32_t NeedBits = layer2Need(Nib);
        for (int S = 0; S < 2; ++S)
          if (NeedBits >> S & 1) {
            Need |= 1u << (X + S);
            NeedVal[X + S] = D.at(Row0 + Row, C0 + 2 + S);
          }
      }
      // Slot filling, the inverse of decodeLayer2: from the top down, the
      // j-th need goes to the j-th empty slot, the rest to the residual.
      while (Need) {
        int X = highestBit(Need);
        Need ^= 1u << X;
        if (Empty) {
          int Y = highestBit(Empty);
          Empty ^= 1u << Y;
          Values[chainSlotIndex(L, Ch, Y)] = NeedVal[X];
        } else {
          Res.push_back(NeedVal[X]);
        }
      }
    }
}

/// Where chain bit X of lane L lies: k-step, row half, group half, slot,
/// the row inside the block and the first column of the group.
struct ChainPos {
  int T, RH, H, S, Row, GroupCol;
};
ChainPos chainPos(int L, int Ch, int X) {
  ChainPos P;
  P.T = 4 * Ch + (X >> 3);
  P.H = (X >> 2) & 1;
  P.RH = (X >> 1) & 1;
  P.S = X & 1;
  P.Row = (L >> 2) + 8 * P.RH;
  P.GroupCol = P.T * KStepCols + 4 * (4 * P.H + (L & 3));
  return P;
}

template <typename Fn> void parallelFor(uint64_t N, unsigned Threads, Fn F) {
  if (Threads == 0)
    Threads = std::max(1u, std::thread::hardware_concurrency());
  Threads = unsigned(std::min<uint64_t>(Threads, std::max<uint64_t>(N, 1)));
  if (Threads <= 1) {
    for (uint64_t I = 0; I < N; ++I)
      F(I);
    return;
  }
  std::atomic<uint64_t> Next{0};
  std::vector<std::thread> Pool;
  for (unsigned W = 0; W < Threads; ++W)
    Pool.emplace_back([&] {
      for (uint64_t I; (I = Next.fetch_add(1)) < N;)
        F(I);
    });
  for (auto &Th : Pool)
    Th.join();
}

uint32_t infoLookup(uint32_t B) { return infoByte(B); }

} // namespace

TlsMatrix encode(const uint16_t *Dense, uint32_t Rows, uint32_t Cols,
                 ElemType Type, unsigned Threads) {
  TlsMatrix M;
  M.Rows = Rows;
  M.Cols = Cols;
  M.Type = Type;
  uint64_t NB = M.numBlocks();
  M.Values.assign(NB * BlockSlots, 0);
  M.Bitmap.assign(NB * BlockBitmapWords, 0);
  std::vector<std::vector<uint16_t>> Res(NB);
  DenseView D{Dense, Rows, Cols};
  uint32_t BC = M.blockColumns();
  parallelFor(NB, Threads, [&](uint64_t B) {
    encodeBlock(D, uint32_t(B / BC), uint32_t(B % BC),
                M.Values.data() + B * BlockSlots,
                M.Bitmap.data() + B * BlockBitmapWords, Res[B]);
  });
  M.ResidualOffsets.resize(NB + 1);
  uint64_t Total = 0;
  for (uint64_t B = 0; B < NB; ++B) {
    M.ResidualOffsets[B] = uint32_t(Total);
    Total += Res[B].size();
  }
  M.ResidualOffsets[NB] = uint32_t(Total);
  M.Residual.reserve(Total);
  for (auto &R : Res)
    M.Residual.insert(M.Residual.end(), R.begin(), R.end());
  return M;
}

void decode(const TlsMatrix &M, uint16_t *Dense) {
  uint32_t BC = M.blockColumns();
  std::fill(Dense, Dense + uint64_t(M.Rows) * M.Cols, uint16_t(0));
  auto Put = [&](uint64_t R, uint64_t C, uint16_t V) {
    if (R < M.Rows && C < M.Cols)
      Dense[R * M.Cols + C] = V;
  };
  parallelFor(M.numBlocks(), 0, [&](uint64_t B) {
    uint64_t Row0 = (B / BC) * TileRows, Col0 = (B % BC) * BlockCols;
    const uint16_t *Vals = M.Values.data() + B * BlockSlots;
    const uint32_t *Bits = M.Bitmap.data() + B * BlockBitmapWords;
    const uint16_t *Res = M.Residual.data() + M.ResidualOffsets[B];
    int ResBase = 0;
    for (int Ch = 0; Ch < ChainsPerLane; ++Ch)
      for (int L = 0; L < 32; ++L) {
        uint32_t Empty, Need;
        laneChainMasks(Bits, L, Ch, infoLookup, Empty, Need);
        for (int X = 0; X < ChainSlots; ++X) {
          if (Empty >> X & 1)
            continue;
          ChainPos P = chainPos(L, Ch, X);
          uint32_t Nib = (Bits[bitmapIndex(P.Row, P.T)] >>
                          (4 * (4 * P.H + (L & 3)))) &
                         0xF;
          uint32_t Idx = (layer1Meta(Nib) >> (2 * P.S)) & 3;
          Put(Row0 + P.Row, Col0 + P.GroupCol + Idx,
              Vals[chainSlotIndex(L, Ch, X)]);
        }
        decodeLayer2(
            Empty, Need,
            [&](int Y) { return Vals[chainSlotIndex(L, Ch, Y)]; },
            [&](int R) { return Res[ResBase + R]; },
            [&](int X, uint16_t V) {
              ChainPos P = chainPos(L, Ch, X);
              Put(Row0 + P.Row, Col0 + P.GroupCol + 2 + P.S, V);
            });
        ResBase += residualCount(Empty, Need);
      }
  });
}

TlsStats computeStats(const TlsMatrix &M) {
  TlsStats S;
  S.Elements = uint64_t(M.Rows) * M.Cols;
  for (uint32_t W : M.Bitmap)
    S.Nonzeros += popCount(W);
  S.Layer3 = M.Residual.size();
  uint64_t Layer2Total = 0;
  for (uint64_t B = 0; B < M.numBlocks(); ++B) {
    const uint32_t *Bits = M.Bitmap.data() + B * BlockBitmapWords;
    for (int R = 0; R < TileRows; ++R)
      for (int T = 0; T < KStepsPerBlock; ++T) {
        uint32_t W = Bits[bitmapIndex(R, T)];
        for (int G = 0; G < 8; ++G)
          Layer2Total += popCount(layer2Need((W >> (4 * G)) & 0xF));
      }
    S.MaxBlockResidual =
        std::max(S.MaxBlockResidual,
                 M.ResidualOffsets[B + 1] - M.ResidualOffsets[B]);
  }
  S.Layer2 = Layer2Total - S.Layer3;
  S.Layer1 = S.Nonzeros - Layer2Total;
  S.Bytes = M.Values.size() * 2 + M.Bitmap.size() * 4 +
            M.ResidualOffsets.size() * 4 + M.Residual.size() * 2;
  return S;
}

std::string verify(const TlsMatrix &M) {
  uint64_t NB = M.numBlocks();
  if (M.Rows == 0 || M.Cols == 0)
    return "matrix has no elements";
  if (M.Values.size() != NB * BlockSlots)
    return "value array has the wrong size";
  if (M.Bitmap.size() != NB * BlockBitmapWords)
    return "bitmap has the wrong size";
  if (M.ResidualOffsets.size() != NB + 1 || M.ResidualOffsets[0] != 0)
    return "residual offsets have the wrong size";
  for (uint64_t B = 0; B < NB; ++B)
    if (M.ResidualOffsets[B + 1] < M.ResidualOffsets[B])
      return "residual offsets decrease";
  if (M.ResidualOffsets[NB] != M.Residual.size())
    return "residual offsets do not match the residual list";
  // Each block's residual count must be what its bitmap implies, and empty
  // slots that receive no layer-2 value (the lowest ones: needs take them
  // from the top) must hold zero, since the kernel feeds them to mma.sp
  // unmasked.
  for (uint64_t B = 0; B < NB; ++B) {
    const uint32_t *Bits = M.Bitmap.data() + B * BlockBitmapWords;
    const uint16_t *Vals = M.Values.data() + B * BlockSlots;
    uint32_t Count = 0;
    for (int L = 0; L < 32; ++L)
      for (int Ch = 0; Ch < ChainsPerLane; ++Ch) {
        uint32_t Empty, Need;
        laneChainMasks(Bits, L, Ch, infoLookup, Empty, Need);
        Count += residualCount(Empty, Need);
        for (int Skip = popCount(Need); Skip > 0 && Empty; --Skip)
          Empty ^= 1u << highestBit(Empty);
        for (; Empty; Empty &= Empty - 1)
          if (Vals[chainSlotIndex(L, Ch, lowestBit(Empty))])
            return "block " + std::to_string(B) +
                   " has a value in an unused empty slot";
      }
    if (Count != M.ResidualOffsets[B + 1] - M.ResidualOffsets[B])
      return "residual count of block " + std::to_string(B) +
             " does not match its bitmap";
  }
  return "";
}

} // namespace sparse
} // namespace cudaopt
