//===- BlockShape.h - Whether a kernel may get a new block shape -*- C++ -*-===//
//
// Part of cuda-opt. Transforms that launch a kernel with a block shape of
// their own choosing (block-size, tile-transpose) refuse shapes the GPU or
// the kernel's __launch_bounds__ does not allow, with the same words.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TRANSFORMS_UTILS_BLOCKSHAPE_H
#define CUDA_OPT_TRANSFORMS_UTILS_BLOCKSHAPE_H

#include "cuda-opt/Pass/Transform.h"

namespace cuda_opt {

/// Success when kernel \p T may run in blocks of \p X x \p Y threads: at
/// most 1024, a multiple of the warp size, within its __launch_bounds__.
llvm::Error checkNewBlockShape(const KernelTarget &T, int64_t X, int64_t Y);

} // namespace cuda_opt

#endif // CUDA_OPT_TRANSFORMS_UTILS_BLOCKSHAPE_H
