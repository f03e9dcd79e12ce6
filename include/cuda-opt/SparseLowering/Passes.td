//===- Passes.td - cuda-opt MLIR passes --------------------*- tablegen -*-===//
//
// Part of cuda-opt. The MLIR passes of cuda-opt (docs/sparse-lowering.md).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_OPT_SPARSELOWERING_PASSES_TD
#define CUDA_OPT_SPARSELOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerSparseMatmul : Pass<"cuda-opt-lower-sparse-matmul", "::mlir::ModuleOp"> {
  let summary = "Lower a linalg.matmul with a sparse weight to the "
                "three-layer SpMM runtime";
  let description = [{
    A `linalg.matmul` whose A operand (the M x K fp16 or bf16 weight) is
    marked sparse, by a `#sparse_tensor.encoding` on its type or by the
    discardable attribute `cuda_opt.sparse_weight` on the weight's constant,
    on the matmul or on the function argument, is rewritten into a call of
    the runtime SpMM:

    - an `arith.constant` weight (directly or through `sparse_tensor.convert`
      ops) is encoded at compile time in the three-layer format (four integer
      constants) and passed to `@cuda_opt_tls_spmm` (`_bf16`);
    - a function-argument weight is passed as it is, dense to
      `@cuda_opt_tls_spmm_dense_weight` (`_bf16`), CSR as its storage arrays
      to `@cuda_opt_tls_spmm_csr_weight` (`_bf16`); the runtime encodes it at
      its first use and caches it by address.

    N (the activations' columns) may be dynamic. Unsupported matmuls are left
    unchanged with a remark saying why; a malformed `cuda_opt.sparse_weight`
    is an error.

    Before:
    ```mlir
    %w = arith.constant dense<...> : tensor<16x64xf16, #CSR>
    %y = linalg.matmul ins(%w, %x : tensor<16x64xf16, #CSR>, tensor<64x8xf16>)
                       outs(%zero : tensor<16x8xf16>) -> tensor<16x8xf16>
    ```
    After:
    ```mlir
    %values = arith.constant dense<...> : tensor<2048xi16>
    %bitmap = arith.constant dense<...> : tensor<128xi32>
    %offsets = arith.constant dense<[0, 0]> : tensor<2xi32>
    %residual = arith.constant dense<> : tensor<0xi16>
    %xt = linalg.transpose ins(%x : tensor<64x8xf16>)
                           outs(%e : tensor<8x64xf16>) permutation = [1, 0]
    %yt = func.call @cuda_opt_tls_spmm(%values, %bitmap, %offsets, %residual,
                                       %c16, %c64, %c0, %xt)
          {cuda_opt.tls_stats = {bytes_per_element = ..., ...}} : (...)
    %y = linalg.transpose ins(%yt : tensor<8x16xf16>)
                          outs(%e2 : tensor<16x8xf16>) permutation = [1, 0]
    ```
    (tensor.cast ops between the static shapes and the callee's dynamic ones
    are omitted here.)
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::sparse_tensor::SparseTensorDialect",
    "::mlir::tensor::TensorDialect"
  ];
  let options = [
    Option<"minSparsity", "min-sparsity", "double", "0.3",
           "Leave weights sparser than this fraction of zeros dense (the "
           "format costs at least 1.125 bytes/element against 2 for dense "
           "fp16, and more below ~40 % sparsity)">,
    Option<"maxBytesPerElement", "max-bytes-per-element", "double", "2.0",
           "Leave weights dense when padding to 16 x 256 blocks alone makes "
           "the encoding read at least this many bytes per logical element "
           "(dense fp16 reads 2)">
  ];
}

#endif // CUDA_OPT_SPARSELOWERING_PASSES_TD
