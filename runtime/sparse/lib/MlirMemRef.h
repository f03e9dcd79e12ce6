//===- MlirMemRef.h - MLIR's ranked memref descriptor ------------*- C++ -*-===//
//
// The C layout of a ranked memref as MLIR passes it to an
// llvm.emit_c_interface function (StridedMemRefType in MLIR's
// CRunnerUtils.h), for TlsMlirAbi.cu and its GPU check.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAOPT_SPARSE_MLIRMEMREF_H
#define CUDAOPT_SPARSE_MLIRMEMREF_H

#include <cstdint>

template <typename T, int Rank> struct MemRef {
  T *Allocated;
  T *Aligned;
  int64_t Offset;
  int64_t Sizes[Rank];
  int64_t Strides[Rank];
};

#endif // CUDAOPT_SPARSE_MLIRMEMREF_H
