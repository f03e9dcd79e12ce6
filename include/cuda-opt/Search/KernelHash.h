//===- KernelHash.h - A kernel's identity across formatting -----*- C++ -*-===//
//
// Part of cuda-opt. The key the tuning database files a kernel under: a
// hash of the tokens of the kernel's definition, as clang's lexer reads
// them with comments skipped, so reformatting or commenting a kernel keeps
// its hash and any change of a token (an operator, a name, a constant)
// changes it.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SEARCH_KERNELHASH_H
#define CUDA_OPT_SEARCH_KERNELHASH_H

#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace clang {
class ASTContext;
class SourceRange;
} // namespace clang

namespace cuda_opt {

struct KernelInfo;

/// 16 hex digits: the first 8 bytes of the SHA-256 of the kernel's tokens
/// (from `template` or its first specifier to the closing brace), joined by
/// one separator each.
std::string kernelHash(clang::ASTContext &Ctx, const KernelInfo &K);

/// The key of a host region's measurements (tune's region phase): the
/// tokens of the region's text and the hashes of \p Kernels (the file's
/// kernels, which the region may launch), in the same form.
std::string regionHash(clang::ASTContext &Ctx, clang::SourceRange Region,
                       llvm::ArrayRef<KernelInfo> Kernels);

} // namespace cuda_opt

#endif // CUDA_OPT_SEARCH_KERNELHASH_H
