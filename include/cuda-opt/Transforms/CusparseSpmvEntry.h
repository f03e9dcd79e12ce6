//===- CusparseSpmvEntry.h - cusparse-spmv's call, as a library entry -*- C++
//-*-===//
//
// Part of cuda-opt. tune measures a cusparse-spmv variant by calling
// cudaoptCsrSpmv on the captured launch's buffers: the helper and an
// extern "C" entry per algorithm that reads the kernel's arguments are
// built into a shared library the worker calls like a region
// (docs/worker-protocol.md), as for conv-cudnn.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TRANSFORMS_CUSPARSESPMVENTRY_H
#define CUDA_OPT_TRANSFORMS_CUSPARSESPMVENTRY_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>

namespace cuda_opt {

/// The name of the entry that runs cuSPARSE's CSR algorithm \p Alg (1 or 2)
/// in the library of cusparseSpmvEntryText.
std::string cusparseSpmvEntryName(int64_t Alg);

/// A whole .cu file defining, for both algorithms,
/// `extern "C" int cusparseSpmvEntryName(alg)(void **args, void *stream)`
/// that runs one launch of kernel \p K (a CSR sparse matrix-vector product
/// cusparse-spmv routes) through cuSPARSE; args[i] points at the kernel's
/// argument i. Fails with the reason when cusparse-spmv refuses \p K.
llvm::Expected<std::string> cusparseSpmvEntryText(clang::ASTContext &Ctx,
                                                  const KernelInfo &K);

} // namespace cuda_opt

#endif // CUDA_OPT_TRANSFORMS_CUSPARSESPMVENTRY_H
