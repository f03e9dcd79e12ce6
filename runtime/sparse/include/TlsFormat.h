//===- TlsFormat.h - Three-layer sparse weight format: host API -----------===//
//
// Encoder (dense -> format), decoder (format -> dense), statistics and the
// versioned .tls file format. Plain C++17, no LLVM and no CUDA, so the
// compiler, the runtime and its tests can all link it.
//
// Layers (docs/sparse-format.md):
//   1. Sparse-TC layer: the first two nonzeros of every group of four
//      columns, in mma.sp A-fragment order; their 2-bit mma.sp indices are
//      a function of the occupancy bitmap.
//   2. Slot-filling layer: the third and fourth nonzeros of a group, stored
//      in the layer-1 slots that are empty in the same chain (one lane's 16
//      groups of one 128-column half block); a second mma.sp computes them.
//   3. Residual layer: layer-2 values that found no empty slot, as a flat
//      fp16 list with one 32-bit offset per block; their positions follow
//      from the bitmap, so no index is stored.
// Array layouts (format version 2): lib/TlsLayout.h, docs/sparse-format.md.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_OPT_RUNTIME_SPARSE_TLSFORMAT_H
#define CUDA_OPT_RUNTIME_SPARSE_TLSFORMAT_H

#include <cstdint>
#include <string>
#include <vector>

namespace cudaopt {
namespace sparse {

enum class ElemType : uint32_t { F16 = 1, BF16 = 2 };

const char *elemTypeName(ElemType T);

/// An encoded matrix. Blocks are numbered tile * blockColumns() + column
/// block, tiles being 16-row strips.
struct TlsMatrix {
  uint32_t Rows = 0;
  uint32_t Cols = 0;
  ElemType Type = ElemType::F16;
  std::vector<uint16_t> Values;          // numBlocks() * BlockSlots
  std::vector<uint32_t> Bitmap;          // numBlocks() * BlockBitmapWords
  std::vector<uint32_t> ResidualOffsets; // numBlocks() + 1
  std::vector<uint16_t> Residual;

  uint32_t tiles() const { return (Rows + 15) / 16; }
  uint32_t blockColumns() const { return (Cols + 255) / 256; }
  uint64_t numBlocks() const { return uint64_t(tiles()) * blockColumns(); }
  uint32_t paddedRows() const { return tiles() * 16; }
  uint32_t paddedCols() const { return blockColumns() * 256; }
};

/// Where the nonzeros went and what the encoding costs.
struct TlsStats {
  uint64_t Elements = 0; // Rows * Cols
  uint64_t Nonzeros = 0;
  uint64_t Layer1 = 0;
  uint64_t Layer2 = 0;
  uint64_t Layer3 = 0;
  uint64_t Bytes = 0;    // everything the kernel reads, header excluded
  uint32_t MaxBlockResidual = 0;

  double bytesPerElement() const {
    return Elements ? double(Bytes) / double(Elements) : 0.0;
  }
  double share(uint64_t N) const {
    return Nonzeros ? double(N) / double(Nonzeros) : 0.0;
  }
};

/// Encodes a row-major Rows x Cols matrix of 16-bit values (fp16 or bf16
/// bits). An element is a nonzero when its bits are not all zero, so -0.0
/// survives the round trip. Threads = 0 picks the hardware concurrency.
TlsMatrix encode(const uint16_t *Dense, uint32_t Rows, uint32_t Cols,
                 ElemType Type, unsigned Threads = 0);

/// Writes the row-major dense matrix (Rows x Cols) back.
void decode(const TlsMatrix &M, uint16_t *Dense);

TlsStats computeStats(const TlsMatrix &M);

/// Checks the internal consistency of a matrix (array sizes, offsets).
/// Returns an empty string when it is valid, else what is wrong.
std::string verify(const TlsMatrix &M);

/// The .tls file: a 64-byte header ("CUOPTTLS", version 2) followed by the
/// four arrays, little-endian. Both return an empty string on success and a
/// lower-case message otherwise.
constexpr uint32_t TlsFileVersion = 2;
std::string writeTlsFile(const TlsMatrix &M, const std::string &Path);
std::string readTlsFile(const std::string &Path, TlsMatrix &M);

} // namespace sparse
} // namespace cudaopt

#endif // CUDA_OPT_RUNTIME_SPARSE_TLSFORMAT_H
