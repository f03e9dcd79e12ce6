//===- TlsMlirAbi.h - C entry points the MLIR lowering calls ----*- C++ -*-===//
//
// The functions `cuda-opt --lower-sparse-matmul` emits calls to, as they
// are reached after bufferization and lowering to the LLVM dialect with
// llvm.emit_c_interface: the result's memref descriptor first, then the
// operands (memrefs by pointer). All 16-bit element types are passed as raw
// bits (fp16 or bf16, by the function's name). Defined in TlsMlirAbi.cu;
// docs/sparse-lowering.md has the ABI, the lifetime rule of run-time weights
// and the thread-safety guarantees.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAOPT_SPARSE_TLSMLIRABI_H
#define CUDAOPT_SPARSE_TLSMLIRABI_H

#include "MlirMemRef.h"

#include <cstdint>

extern "C" {

/// A weight encoded at compile time (four constant arrays): Y^T = (W X)^T.
void _mlir_ciface_cuda_opt_tls_spmm(MemRef<uint16_t, 2> *Result,
                                    MemRef<uint16_t, 1> *Values,
                                    MemRef<uint32_t, 1> *Bitmap,
                                    MemRef<uint32_t, 1> *Offsets,
                                    MemRef<uint16_t, 1> *Residual, int32_t M,
                                    int32_t K, int32_t MaxBlockResidual,
                                    MemRef<uint16_t, 2> *Xt);
void _mlir_ciface_cuda_opt_tls_spmm_bf16(
    MemRef<uint16_t, 2> *Result, MemRef<uint16_t, 1> *Values,
    MemRef<uint32_t, 1> *Bitmap, MemRef<uint32_t, 1> *Offsets,
    MemRef<uint16_t, 1> *Residual, int32_t M, int32_t K,
    int32_t MaxBlockResidual, MemRef<uint16_t, 2> *Xt);

/// A dense M x K weight (any strides), encoded at its first use and cached.
void _mlir_ciface_cuda_opt_tls_spmm_dense_weight(MemRef<uint16_t, 2> *Result,
                                                 MemRef<uint16_t, 2> *W,
                                                 MemRef<uint16_t, 2> *Xt);
void _mlir_ciface_cuda_opt_tls_spmm_dense_weight_bf16(
    MemRef<uint16_t, 2> *Result, MemRef<uint16_t, 2> *W,
    MemRef<uint16_t, 2> *Xt);

/// A CSR weight (sparse_tensor's positions, coordinates and values of level
/// 1, index-typed), encoded at its first use and cached by its values array.
void _mlir_ciface_cuda_opt_tls_spmm_csr_weight(MemRef<uint16_t, 2> *Result,
                                               MemRef<int64_t, 1> *Positions,
                                               MemRef<int64_t, 1> *Coordinates,
                                               MemRef<uint16_t, 1> *Values,
                                               int32_t M, int32_t K,
                                               MemRef<uint16_t, 2> *Xt);
void _mlir_ciface_cuda_opt_tls_spmm_csr_weight_bf16(
    MemRef<uint16_t, 2> *Result, MemRef<int64_t, 1> *Positions,
    MemRef<int64_t, 1> *Coordinates, MemRef<uint16_t, 1> *Values, int32_t M,
    int32_t K, MemRef<uint16_t, 2> *Xt);

/// Frees the device copies of every weight cached for the buffer at \p Data
/// (the address of its first element, or of a CSR weight's values array).
/// Call it before modifying or freeing a weight that was used. Returns the
/// number of cache entries dropped.
int cuda_opt_tls_forget_weight(const void *Data);

} // extern "C"

#endif // CUDAOPT_SPARSE_TLSMLIRABI_H
