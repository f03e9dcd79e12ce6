// Malformed markers (on ops and on function arguments) and conflicting
// runtime symbols are errors.
// RUN: rm -f %t.mlir
// RUN: cuda-opt --lower-sparse-matmul --split-input-file --verify-diagnostics %s
// RUN: not cuda-opt --lower-sparse-matmul --split-input-file %s -o %t.mlir 2>&1 | FileCheck %s
// RUN: not ls %t.mlir
// CHECK: error: 'cuda_opt.sparse_weight' must be a unit attribute or the string "tls" (the only supported format), not 1 : i32

func.func @integer_marker(%x: tensor<64x8xf16>) -> tensor<16x8xf16> {
  // expected-error @+1 {{'cuda_opt.sparse_weight' must be a unit attribute or the string "tls" (the only supported format), not 1 : i32}}
  %w = arith.constant {cuda_opt.sparse_weight = 1 : i32} dense<0.0> : tensor<16x64xf16>
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  %y = linalg.matmul ins(%w, %x : tensor<16x64xf16>, tensor<64x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

func.func @other_format(%x: tensor<64x8xf16>) -> tensor<16x8xf16> {
  %w = arith.constant dense<0.0> : tensor<16x64xf16>
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-error @+1 {{'cuda_opt.sparse_weight' must be a unit attribute or the string "tls" (the only supported format), not "csr"}}
  %y = linalg.matmul {cuda_opt.sparse_weight = "csr"}
                     ins(%w, %x : tensor<16x64xf16>, tensor<64x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

func.func @wrong_op() -> tensor<16x64xf16> {
  // expected-error @+1 {{'cuda_opt.sparse_weight' belongs on the weight's arith.constant, on the linalg.matmul or on a function argument, not on 'tensor.empty'}}
  %e = tensor.empty() {cuda_opt.sparse_weight} : tensor<16x64xf16>
  return %e : tensor<16x64xf16>
}

// -----

func.func @not_a_matrix() -> tensor<64xf16> {
  // expected-error @+1 {{'cuda_opt.sparse_weight' marks a matmul weight and needs a 2-D tensor constant, not 'tensor<64xf16>'}}
  %v = arith.constant {cuda_opt.sparse_weight} dense<0.0> : tensor<64xf16>
  return %v : tensor<64xf16>
}

// -----

// expected-error @+1 {{'@cuda_opt_tls_spmm' is a three-layer SpMM runtime entry; it must be a func.func of type '(tensor<?xi16>, tensor<?xi32>, tensor<?xi32>, tensor<?xi16>, i32, i32, i32, tensor<?x?xf16>) -> tensor<?x?xf16>' (rename this symbol)}}
func.func private @cuda_opt_tls_spmm(i32)

func.func @conflict(%x: tensor<256x8xf16>) -> tensor<16x8xf16> {
  %w = arith.constant {cuda_opt.sparse_weight} dense<0.0> : tensor<16x256xf16>
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  %y = linalg.matmul ins(%w, %x : tensor<16x256xf16>, tensor<256x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

// expected-error @+1 {{'@cuda_opt_tls_spmm_dense_weight_bf16' is a three-layer SpMM runtime entry; it must be a func.func of type '(tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xbf16>' (rename this symbol)}}
func.func private @cuda_opt_tls_spmm_dense_weight_bf16(tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf16>

func.func @conflict_argument(%w: tensor<16x256xbf16> {cuda_opt.sparse_weight}, %x: tensor<256x8xbf16>) -> tensor<16x8xbf16> {
  %acc = arith.constant dense<0.0> : tensor<16x8xbf16>
  %y = linalg.matmul ins(%w, %x : tensor<16x256xbf16>, tensor<256x8xbf16>)
                     outs(%acc : tensor<16x8xbf16>) -> tensor<16x8xbf16>
  return %y : tensor<16x8xbf16>
}

// -----

// The marker on a function argument: the same values, a 2-D tensor.
// expected-error @+1 {{'cuda_opt.sparse_weight' must be a unit attribute or the string "tls" (the only supported format), not "csr"}}
func.func @argument_format(%w: tensor<16x256xf16> {cuda_opt.sparse_weight = "csr"}, %x: tensor<256x8xf16>) -> tensor<16x8xf16> {
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  %y = linalg.matmul ins(%w, %x : tensor<16x256xf16>, tensor<256x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

// expected-error @+1 {{'cuda_opt.sparse_weight' marks a matmul weight and needs a 2-D tensor argument, not 'tensor<2x16x256xf16>'}}
func.func @argument_rank(%w: tensor<2x16x256xf16> {cuda_opt.sparse_weight}) -> tensor<2x16x256xf16> {
  return %w : tensor<2x16x256xf16>
}

// -----

// On a declaration (no body) too.
// expected-error @+1 {{'cuda_opt.sparse_weight' marks a matmul weight and needs a 2-D tensor argument, not 'f16'}}
func.func private @external(f16 {cuda_opt.sparse_weight})

// -----

// A malformed encoding is the parser's error.
// expected-error @+1 {{}}
#Bad = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : bogus) }>
