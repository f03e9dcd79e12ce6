//===- Driver.h - The MLIR mode of cuda-opt ---------------------*- C++ -*-===//
//
// Part of cuda-opt. The entry point of `cuda-opt --lower-sparse-matmul`,
// kept free of MLIR types so the command-line tool needs no MLIR headers.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_OPT_SPARSELOWERING_DRIVER_H
#define CUDA_OPT_SPARSELOWERING_DRIVER_H

#include "llvm/ADT/StringRef.h"

namespace cuda_opt {

struct MlirDriverOptions {
  /// Run the verifier handler: diagnostics must match the expected-* comments
  /// of the input (mlir-opt's -verify-diagnostics).
  bool VerifyDiagnostics = false;
  /// Process each "// -----"-separated chunk of the input on its own.
  bool SplitInputFile = false;
  /// The pass's min-sparsity option.
  double MinSparsity = 0.3;
  /// The pass's max-bytes-per-element option.
  double MaxBytesPerElement = 2.0;
};

/// Parses \p InputPath (an .mlir file), runs the sparse matmul lowering and
/// prints the module to \p OutputPath ("-" for stdout). Diagnostics go to
/// stderr. Returns the process exit code.
int runLowerSparseMatmul(llvm::StringRef InputPath, llvm::StringRef OutputPath,
                         const MlirDriverOptions &Opts);

} // namespace cuda_opt

#endif // CUDA_OPT_SPARSELOWERING_DRIVER_H
