//===- Passes.h - cuda-opt MLIR passes --------------------------*- C++ -*-===//
//
// Part of cuda-opt. Declarations TableGen'erated from Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_OPT_SPARSELOWERING_PASSES_H
#define CUDA_OPT_SPARSELOWERING_PASSES_H

#include "mlir/Pass/Pass.h"

namespace cuda_opt {

#define GEN_PASS_DECL
#include "cuda-opt/SparseLowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "cuda-opt/SparseLowering/Passes.h.inc"

} // namespace cuda_opt

#endif // CUDA_OPT_SPARSELOWERING_PASSES_H
