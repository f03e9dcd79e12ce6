//===- SourceStyle.h - The formatting style of the user's file --*- C++ -*-===//
//
// Part of cuda-opt. Rewritten ranges are formatted in the style of the file
// they land in: the .clang-format that governs it if there is one, otherwise
// LLVM style adjusted to what the file itself does (indent width, tabs, line
// length, brace placement of functions).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_PASS_SOURCESTYLE_H
#define CUDA_OPT_PASS_SOURCESTYLE_H

#include "clang/Format/Format.h"

namespace cuda_opt {

clang::format::FormatStyle styleForFile(llvm::StringRef Path,
                                        llvm::StringRef Code);

} // namespace cuda_opt

#endif // CUDA_OPT_PASS_SOURCESTYLE_H
