//===- OutputFile.h - Atomic output writing and text diffs ------*- C++ -*-===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SUPPORT_OUTPUTFILE_H
#define CUDA_OPT_SUPPORT_OUTPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace cuda_opt {

/// Write \p Contents to \p Path through a temporary file in the same
/// directory and a rename, so a failure never leaves a partial file and an
/// existing file is untouched unless the whole write succeeded. "-" writes
/// to stdout; an existing path that is not a regular file (/dev/null, a
/// device, a FIFO) is written in place. A failed write (a full disk) is an
/// error naming the path.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Contents);

/// A unified diff (3 lines of context) between two texts.
std::string unifiedDiff(llvm::StringRef OldName, llvm::StringRef Old,
                        llvm::StringRef NewName, llvm::StringRef New);

} // namespace cuda_opt

#endif // CUDA_OPT_SUPPORT_OUTPUTFILE_H
