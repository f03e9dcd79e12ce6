//===- InitAllTransforms.h - Register every transform -----------*- C++ -*-===//
//
// Part of cuda-opt. Tools call registerAllTransforms() once before they parse
// a pipeline or enumerate candidates. Registration is explicit (no static
// constructors) so the transforms live in an ordinary static archive and the
// clang plugin links only what it uses; cf. CIRCT's InitAllPasses.h.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TRANSFORMS_INITALLTRANSFORMS_H
#define CUDA_OPT_TRANSFORMS_INITALLTRANSFORMS_H

#include "cuda-opt/Transforms/Passes.h"

namespace cuda_opt {

/// Add every transform of Transforms.def to the TransformRegistry. Calling it
/// again does nothing.
inline void registerAllTransforms() {
  static const bool Registered = [] {
#define CUDA_OPT_TRANSFORM(Class)                                              \
  TransformRegistry::add([] { return create##Class##Transform(); });
#include "cuda-opt/Transforms/Transforms.def"
    return true;
  }();
  (void)Registered;
}

} // namespace cuda_opt

#endif // CUDA_OPT_TRANSFORMS_INITALLTRANSFORMS_H
