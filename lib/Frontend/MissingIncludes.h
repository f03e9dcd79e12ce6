//===- MissingIncludes.h - Where a header that was not found lies -*- C++ -*-===//
//
// Part of cuda-opt (private to lib/Frontend). A file whose project headers
// live in another directory fails with "'foo.h' file not found" until the
// right -I is given. The error then gets notes naming the files of that name
// in the project and the -I that finds them.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_LIB_FRONTEND_MISSINGINCLUDES_H
#define CUDA_OPT_LIB_FRONTEND_MISSINGINCLUDES_H

#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace cuda_opt {

/// Notes for the error \p Message (clang's text, e.g. "'foo.h' file not
/// found") about an include of the file \p MainFile: each file of the project
/// that the include's spelling names, "found PATH; add -I DIR", at most
/// three. The project is the nearest directory above \p MainFile holding
/// .git, at most three levels up (else the one three levels up); its first
/// 20000 entries are searched. Empty when \p Message is about something else
/// or nothing is found.
std::vector<std::string> missingIncludeNotes(llvm::StringRef Message,
                                             llvm::StringRef MainFile);

} // namespace cuda_opt

#endif // CUDA_OPT_LIB_FRONTEND_MISSINGINCLUDES_H
