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

#include <string>

namespace clang {
class ASTContext;
} // namespace clang

namespace cuda_opt {

struct KernelInfo;

/// 16 hex digits: the first 8 bytes of the SHA-256 of the kernel's tokens
/// (from `template` or its first specifier to the closing brace), joined by
/// one separator each.
std::string kernelHash(clang::ASTContext &Ctx, const KernelInfo &K);

} // namespace cuda_opt

#endif // CUDA_OPT_SEARCH_KERNELHASH_H
