//===- cuda-opt-tls-fuzzer.cpp - Fuzz the .tls reader ---------------------===//
//
// Part of cuda-opt. The input is a .tls file (runtime/sparse, the format
// `cuda-opt sparse-encode` writes and the sparse-weights rewrite loads). A
// file that readTlsFile accepts has passed verify(), so it must decode, give
// its statistics and write back to the same bytes.
//
//===----------------------------------------------------------------------===//
#include "TempFile.h"

#include "TlsFormat.h"

#include <cstring>
#include <vector>

using namespace cudaopt::sparse;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const std::string In = cuda_opt::fuzz::tempPath("in.tls");
  static const std::string Out = cuda_opt::fuzz::tempPath("out.tls");
  cuda_opt::fuzz::writeFile(In, Data, Size);
  TlsMatrix M;
  if (!readTlsFile(In, M).empty())
    return 0;
  std::vector<uint16_t> Dense(uint64_t(M.Rows) * M.Cols);
  decode(M, Dense.data());
  (void)computeStats(M);
  if (!writeTlsFile(M, Out).empty())
    std::abort();
  TlsMatrix Again;
  if (!readTlsFile(Out, Again).empty() || Again.Values != M.Values ||
      Again.Bitmap != M.Bitmap || Again.Residual != M.Residual ||
      Again.ResidualOffsets != M.ResidualOffsets)
    std::abort();
  return 0;
}
