//===- RowOutputs.h - Outputs a row program writes in rows ------*- C++ -*-===//
//
// Part of cuda-opt. In a row program (RowProgram.h) a thread handles row r,
// and an output it writes only as `p[r * C + j]` in its loops over the row,
// with 0 <= j < C, is made of rows of C contiguous elements, row r being
// the thread's. The measurement worker then checks it row by row against
// the fp64 reference (docs/fp-model.md): a wrong row of small values would
// hide under a bound set for the whole buffer by rows of large ones.
//
// The analysis is conservative: any doubt (another write to the buffer, a
// use of its pointer other than indexing, a write through a pointer it
// cannot trace, a loop that may leave the row) means no row structure.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_ROWOUTPUTS_H
#define CUDA_OPT_ANALYSIS_ROWOUTPUTS_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "llvm/Support/JSON.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace cuda_opt {

/// The length of an output's rows: a constant, or a scalar integer kernel
/// parameter the kernel never writes.
struct RowLength {
  std::optional<int64_t> Value;
  /// The parameter's index when the length is a parameter.
  std::optional<unsigned> Param;
  /// As written: "64", "cols".
  std::string Text;
};

/// The outputs of \p K written in rows, by parameter index; empty when \p K
/// is not a row program or nothing is proved.
std::map<unsigned, RowLength> rowStructuredOutputs(clang::ASTContext &Ctx,
                                                   const KernelInfo &K);

/// [{"param": "out", "index": 0, "row_length": "cols",
///   "row_length_param": 3}, ...] (or "row_length_value" for a constant).
llvm::json::Array rowOutputsToJSON(const KernelInfo &K,
                                   const std::map<unsigned, RowLength> &Rows);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_ROWOUTPUTS_H
