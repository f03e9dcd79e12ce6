//===- WeightFile.h - Read 2-D fp16/bf16 weights from .npy/.safetensors ---===//
//
// The inputs `cuda-opt sparse-encode` accepts:
//   .npy          dtype '<f2' (fp16). NumPy has no bf16 dtype: a bf16 array
//                 saved through ml_dtypes ('<V2') or as raw 16-bit integers
//                 ('<u2', '<i2') is read as bf16 when the caller asks for it.
//                 C and Fortran order are both accepted.
//   .safetensors  dtype F16 or BF16; one tensor, chosen by name when the
//                 file holds several.
// Tensors must be 2-D. Errors are returned as lower-case messages.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_OPT_RUNTIME_SPARSE_WEIGHTFILE_H
#define CUDA_OPT_RUNTIME_SPARSE_WEIGHTFILE_H

#include "TlsFormat.h"

#include <string>
#include <vector>

namespace cudaopt {
namespace sparse {

struct WeightTensor {
  std::string Name;
  uint32_t Rows = 0;
  uint32_t Cols = 0;
  ElemType Type = ElemType::F16;
  std::vector<uint16_t> Data; // row-major Rows x Cols
};

struct WeightReadOptions {
  /// safetensors: the tensor to read (empty: the only one in the file).
  std::string TensorName;
  /// .npy: read 16-bit integer / void arrays as bf16 bits.
  bool NpyRawAsBF16 = false;
};

/// Reads Path (kind chosen by its magic bytes, then by its extension).
/// Returns an empty string on success.
std::string readWeightFile(const std::string &Path,
                           const WeightReadOptions &Opts, WeightTensor &Out);

/// Lists the tensors of a safetensors file as "name dtype [shape]" lines.
std::string listSafetensors(const std::string &Path,
                            std::vector<std::string> &Lines);

} // namespace sparse
} // namespace cudaopt

#endif // CUDA_OPT_RUNTIME_SPARSE_WEIGHTFILE_H
