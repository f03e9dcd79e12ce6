//===- Passes.h - Factories of the source-to-source transforms --*- C++ -*-===//
//
// Part of cuda-opt. One create<Class>Transform() per line of Transforms.def.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TRANSFORMS_PASSES_H
#define CUDA_OPT_TRANSFORMS_PASSES_H

#include "cuda-opt/Pass/Transform.h"
#include <memory>

namespace cuda_opt {

#define CUDA_OPT_TRANSFORM(Class) std::unique_ptr<Transform> create##Class##Transform();
#include "cuda-opt/Transforms/Transforms.def"

} // namespace cuda_opt

#endif // CUDA_OPT_TRANSFORMS_PASSES_H
