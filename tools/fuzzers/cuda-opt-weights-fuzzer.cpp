//===- cuda-opt-weights-fuzzer.cpp - Fuzz the .npy/.safetensors readers ---===//
//
// Part of cuda-opt. The input is a weight file as `cuda-opt sparse-encode`
// reads it (runtime/sparse/include/WeightFile.h). It is read as a .npy file
// (fp16, and raw 16-bit values as bf16) and as a .safetensors file (the only
// tensor, a tensor by name, and the --list listing). A tensor that reads has
// Rows x Cols values.
//
//===----------------------------------------------------------------------===//
#include "TempFile.h"

#include "WeightFile.h"

using namespace cudaopt::sparse;

static void read(const std::string &Path, const WeightReadOptions &Opts) {
  WeightTensor W;
  if (!readWeightFile(Path, Opts, W).empty())
    return;
  if (W.Rows == 0 || W.Cols == 0 || W.Data.size() != uint64_t(W.Rows) * W.Cols)
    std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const std::string Npy = cuda_opt::fuzz::tempPath("w.npy");
  static const std::string St = cuda_opt::fuzz::tempPath("w.safetensors");
  cuda_opt::fuzz::writeFile(Npy, Data, Size);
  cuda_opt::fuzz::writeFile(St, Data, Size);
  WeightReadOptions Opts;
  read(Npy, Opts);
  read(St, Opts);
  Opts.NpyRawAsBF16 = true;
  read(Npy, Opts);
  Opts.TensorName = "weight";
  read(St, Opts);
  std::vector<std::string> Lines;
  (void)listSafetensors(St, Lines);
  return 0;
}
