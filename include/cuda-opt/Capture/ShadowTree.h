//===- ShadowTree.h - A copy of the user's tree with one file replaced ---===//
//
// Part of cuda-opt. `cuda-opt tune FILE --run 'CMD'` measures a program that
// the user's own command builds from several files. The command runs in a
// copy of the directory tree it would run in, where FILE is the instrumented
// (or rewritten) text and the capture runtime sits next to it; the user's
// files are never touched.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_CAPTURE_SHADOWTREE_H
#define CUDA_OPT_CAPTURE_SHADOWTREE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace cuda_opt {

/// Copy the tree under \p Root into \p Dest (which must not exist yet),
/// skipping version-control directories and \p Skip (cuda-opt's own work
/// directory when it lies inside Root), and write \p Text in place of
/// \p File (a path inside Root). Returns the path of File's copy.
llvm::Expected<std::string> makeShadowTree(llvm::StringRef Root,
                                           llvm::StringRef Dest,
                                           llvm::StringRef File,
                                           llvm::StringRef Text,
                                           llvm::StringRef Skip);

} // namespace cuda_opt

#endif // CUDA_OPT_CAPTURE_SHADOWTREE_H
