//===- TlsFile.cpp - The versioned .tls file ------------------------------===//
//
// Layout (little-endian):
//   offset  0  char[8]  "CUOPTTLS"
//           8  u32      version (1)
//          12  u32      element type (1 = f16, 2 = bf16)
//          16  u32      rows, u32 cols
//          24  u32      tile rows (16), u32 block columns (256)
//          32  u64      number of blocks
//          40  u64      number of residual values
//          48  u32      header size (64), u32 flags (0)
//          56  u64      reserved (0)
//   then values (u16 x blocks*2048), bitmap (u32 x blocks*128),
//   residual offsets (u32 x blocks+1), residual values (u16 x count).
//
//===----------------------------------------------------------------------===//

#include "TlsFormat.h"
#include "TlsLayout.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace cudaopt {
namespace sparse {

namespace {

constexpr char Magic[8] = {'C', 'U', 'O', 'P', 'T', 'T', 'L', 'S'};
constexpr uint32_t HeaderBytes = 64;

struct FileCloser {
  void operator()(FILE *F) const {
    if (F)
      std::fclose(F);
  }
};
using FilePtr = std::unique_ptr<FILE, FileCloser>;

template <typename T> void put(unsigned char *P, T V) {
  for (size_t I = 0; I < sizeof(T); ++I)
    P[I] = static_cast<unsigned char>(uint64_t(V) >> (8 * I));
}
template <typename T> T get(const unsigned char *P) {
  uint64_t V = 0;
  for (size_t I = 0; I < sizeof(T); ++I)
    V |= uint64_t(P[I]) << (8 * I);
  return static_cast<T>(V);
}

// The format is little-endian, as are all targets this runtime supports, so
// arrays are written and read as they are in memory.
template <typename T>
bool writeArray(FILE *F, const std::vector<T> &V) {
  return V.empty() || std::fwrite(V.data(), sizeof(T), V.size(), F) == V.size();
}
template <typename T> bool readArray(FILE *F, std::vector<T> &V, uint64_t N) {
  V.resize(N);
  return N == 0 || std::fread(V.data(), sizeof(T), N, F) == N;
}

/// The bytes from the current position to the end of \p F.
bool remainingBytes(FILE *F, uint64_t &Bytes) {
  long Here = std::ftell(F);
  if (Here < 0 || std::fseek(F, 0, SEEK_END) != 0)
    return false;
  long End = std::ftell(F);
  if (End < Here || std::fseek(F, Here, SEEK_SET) != 0)
    return false;
  Bytes = uint64_t(End - Here);
  return true;
}

} // namespace

std::string writeTlsFile(const TlsMatrix &M, const std::string &Path) {
  FilePtr F(std::fopen(Path.c_str(), "wb"));
  if (!F)
    return "cannot open '" + Path + "' for writing: " + std::strerror(errno);
  unsigned char H[HeaderBytes] = {};
  std::memcpy(H, Magic, 8);
  put<uint32_t>(H + 8, TlsFileVersion);
  put<uint32_t>(H + 12, static_cast<uint32_t>(M.Type));
  put<uint32_t>(H + 16, M.Rows);
  put<uint32_t>(H + 20, M.Cols);
  put<uint32_t>(H + 24, TileRows);
  put<uint32_t>(H + 28, BlockCols);
  put<uint64_t>(H + 32, M.numBlocks());
  put<uint64_t>(H + 40, M.Residual.size());
  put<uint32_t>(H + 48, HeaderBytes);
  if (std::fwrite(H, 1, HeaderBytes, F.get()) != HeaderBytes ||
      !writeArray(F.get(), M.Values) || !writeArray(F.get(), M.Bitmap) ||
      !writeArray(F.get(), M.ResidualOffsets) ||
      !writeArray(F.get(), M.Residual))
    return "cannot write '" + Path + "'";
  if (std::fclose(F.release()) != 0)
    return "cannot write '" + Path + "'";
  return "";
}

std::string readTlsFile(const std::string &Path, TlsMatrix &M) {
  FilePtr F(std::fopen(Path.c_str(), "rb"));
  if (!F)
    return "cannot open '" + Path + "': " + std::strerror(errno);
  unsigned char H[HeaderBytes];
  if (std::fread(H, 1, HeaderBytes, F.get()) != HeaderBytes)
    return "'" + Path + "' is too short for a .tls header";
  if (std::memcmp(H, Magic, 8) != 0)
    return "'" + Path + "' is not a .tls file (bad magic)";
  uint32_t Version = get<uint32_t>(H + 8);
  if (Version != TlsFileVersion)
    return "'" + Path + "' has .tls version " + std::to_string(Version) +
           "; this build reads version " + std::to_string(TlsFileVersion);
  uint32_t Type = get<uint32_t>(H + 12);
  if (Type != 1 && Type != 2)
    return "'" + Path + "' has an unknown element type";
  M.Type = static_cast<ElemType>(Type);
  M.Rows = get<uint32_t>(H + 16);
  M.Cols = get<uint32_t>(H + 20);
  if (get<uint32_t>(H + 24) != TileRows || get<uint32_t>(H + 28) != BlockCols)
    return "'" + Path + "' uses a block geometry this build does not know";
  uint64_t NB = get<uint64_t>(H + 32), NR = get<uint64_t>(H + 40);
  if (M.Rows == 0 || M.Cols == 0 || NB != M.numBlocks() ||
      NR > NB * uint64_t(BlockSlots))
    return "'" + Path + "' has an inconsistent header";
  // The arrays the header promises must be in the file before they are
  // allocated: a 64-byte header can promise 2^52 blocks (the reader
  // allocated gigabytes for a file it then found truncated).
  uint64_t BlockBytes = BlockSlots * sizeof(uint16_t) +
                        BlockBitmapWords * sizeof(uint32_t) + sizeof(uint32_t);
  uint64_t Rest = 0;
  if (!remainingBytes(F.get(), Rest) || NB > Rest / BlockBytes ||
      Rest - NB * BlockBytes < sizeof(uint32_t) ||
      NR > (Rest - NB * BlockBytes - sizeof(uint32_t)) / sizeof(uint16_t))
    return "'" + Path + "' is truncated";
  if (!readArray(F.get(), M.Values, NB * BlockSlots) ||
      !readArray(F.get(), M.Bitmap, NB * BlockBitmapWords) ||
      !readArray(F.get(), M.ResidualOffsets, NB + 1) ||
      !readArray(F.get(), M.Residual, NR))
    return "'" + Path + "' is truncated";
  std::string Err = verify(M);
  if (!Err.empty())
    return "'" + Path + "' is corrupt: " + Err;
  return "";
}

} // namespace sparse
} // namespace cudaopt
