//===- LowerSparseMatmulCommand.cpp - --lower-sparse-matmul ---------------===//
//
// Part of cuda-opt. The MLIR mode, a thin forward to lib/SparseLowering's
// driver (cuda-opt-mlir runs the same pass under MlirOptMain). It never
// parses its input as CUDA.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"

#ifdef CUDA_OPT_WITH_MLIR
#include "cuda-opt/SparseLowering/Driver.h"
#endif

using namespace llvm;

namespace cuda_opt {

int lowerSparseMatmul() {
  if (cli::InputFiles.size() != 1)
    return reportError(makeError("--lower-sparse-matmul takes one .mlir file"));
  if (!(cli::MinSparsity >= 0.0 && cli::MinSparsity <= 1.0))
    return reportError(makeError("--min-sparsity must be between 0 and 1"));
  if (!(cli::MaxBytesPerElement > 0.0))
    return reportError(makeError("--max-bytes-per-element must be positive"));
#ifdef CUDA_OPT_WITH_MLIR
  MlirDriverOptions Opts;
  Opts.VerifyDiagnostics = cli::VerifyDiagnostics;
  Opts.SplitInputFile = cli::SplitInputFile;
  Opts.MinSparsity = cli::MinSparsity;
  Opts.MaxBytesPerElement = cli::MaxBytesPerElement;
  return runLowerSparseMatmul(cli::InputFiles.front(), cli::OutputPath, Opts);
#else
  return reportError(makeError("this cuda-opt was built without MLIR "
                               "(CUDA_OPT_WITH_MLIR=OFF); "
                               "--lower-sparse-matmul is unavailable"));
#endif
}

} // namespace cuda_opt
