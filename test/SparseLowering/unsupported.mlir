// Matmuls with a sparse-marked operand that the runtime SpMM cannot compute
// are left as they are, with one remark saying why.
// RUN: cuda-opt --lower-sparse-matmul --split-input-file --verify-diagnostics %s
// RUN: cuda-opt --lower-sparse-matmul --split-input-file %s 2>/dev/null | FileCheck %s
// RUN: cuda-opt --lower-sparse-matmul --split-input-file %s 2>/dev/null | FileCheck %s --check-prefix=COUNT
// CHECK-NOT: cuda_opt_tls_spmm
// CHECK: linalg.batch_matmul
// CHECK-NOT: cuda_opt_tls_spmm
// COUNT-COUNT-14: linalg.matmul

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
func.func @weight_is_b(%a: tensor<8x16xf16>) -> tensor<8x32xf16> {
  %w = arith.constant dense<0.0> : tensor<16x32xf16, #CSR>
  %acc = arith.constant dense<0.0> : tensor<8x32xf16>
  // expected-remark @+1 {{not lowered to the three-layer SpMM: the sparse weight is the B operand (K x N); only an A operand (M x K) weight is supported}}
  %y = linalg.matmul ins(%a, %w : tensor<8x16xf16>, tensor<16x32xf16, #CSR>)
                     outs(%acc : tensor<8x32xf16>) -> tensor<8x32xf16>
  return %y : tensor<8x32xf16>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
func.func @transposed(%x: tensor<64x8xf16>) -> tensor<16x8xf16> {
  %w = arith.constant dense<0.0> : tensor<64x16xf16, #CSR>
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{it has explicit indexing_maps (a transposed or broadcast operand); only the plain (M x K) * (K x N) form is supported}}
  %y = linalg.matmul
         indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                          affine_map<(m, n, k) -> (k, n)>,
                          affine_map<(m, n, k) -> (m, n)>]
         ins(%w, %x : tensor<64x16xf16, #CSR>, tensor<64x8xf16>)
         outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

#B3 = #sparse_tensor.encoding<{ map = (d0, d1, d2) -> (d0 : dense, d1 : dense, d2 : compressed) }>
func.func @batched(%x: tensor<2x64x8xf16>) -> tensor<2x16x8xf16> {
  %w = arith.constant dense<0.0> : tensor<2x16x64xf16, #B3>
  %acc = arith.constant dense<0.0> : tensor<2x16x8xf16>
  // expected-remark @+1 {{not lowered to the three-layer SpMM: batched matmuls are not supported; only a 2-D linalg.matmul is}}
  %y = linalg.batch_matmul ins(%w, %x : tensor<2x16x64xf16, #B3>, tensor<2x64x8xf16>)
                           outs(%acc : tensor<2x16x8xf16>) -> tensor<2x16x8xf16>
  return %y : tensor<2x16x8xf16>
}

// -----

func.func @batched_marker(%w: tensor<2x16x64xf16>, %x: tensor<2x64x8xf16>) -> tensor<2x16x8xf16> {
  %acc = arith.constant dense<0.0> : tensor<2x16x8xf16>
  // expected-remark @+1 {{not lowered to the three-layer SpMM: batched matmuls are not supported; only a 2-D linalg.matmul is}}
  %y = linalg.batch_matmul {cuda_opt.sparse_weight}
                           ins(%w, %x : tensor<2x16x64xf16>, tensor<2x64x8xf16>)
                           outs(%acc : tensor<2x16x8xf16>) -> tensor<2x16x8xf16>
  return %y : tensor<2x16x8xf16>
}

// -----

func.func @buffers(%w: memref<16x64xf16>, %x: memref<64x8xf16>, %y: memref<16x8xf16>) {
  // expected-remark @+1 {{it works on buffers; only the tensor form is supported}}
  linalg.matmul {cuda_opt.sparse_weight}
    ins(%w, %x : memref<16x64xf16>, memref<64x8xf16>) outs(%y : memref<16x8xf16>)
  return
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
func.func @dynamic(%w: tensor<16x?xf16, #CSR>, %x: tensor<?x8xf16>) -> tensor<16x8xf16> {
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{it has dynamic shapes; the weight is encoded at compile time and the call needs static M, K and N}}
  %y = linalg.matmul ins(%w, %x : tensor<16x?xf16, #CSR>, tensor<?x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
func.func @bf16(%x: tensor<64x8xbf16>) -> tensor<16x8xbf16> {
  %w = arith.constant dense<0.0> : tensor<16x64xbf16, #CSR>
  %acc = arith.constant dense<0.0> : tensor<16x8xbf16>
  // expected-remark @+1 {{the weight is bf16; the format can store bf16 but the SpMM kernel computes in fp16 only}}
  %y = linalg.matmul ins(%w, %x : tensor<16x64xbf16, #CSR>, tensor<64x8xbf16>)
                     outs(%acc : tensor<16x8xbf16>) -> tensor<16x8xbf16>
  return %y : tensor<16x8xbf16>
}

// -----

func.func @f32_weight(%x: tensor<64x8xf32>) -> tensor<16x8xf32> {
  %w = arith.constant {cuda_opt.sparse_weight} dense<0.0> : tensor<16x64xf32>
  %acc = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-remark @+1 {{the weight's element type is f32; the SpMM kernel takes fp16}}
  %y = linalg.matmul ins(%w, %x : tensor<16x64xf32>, tensor<64x8xf32>)
                     outs(%acc : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

func.func @f32_result(%x: tensor<64x8xf16>) -> tensor<16x8xf32> {
  %w = arith.constant {cuda_opt.sparse_weight} dense<0.0> : tensor<16x64xf16>
  %acc = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-remark @+1 {{the activations or the result are not fp16 (tensor<64x8xf16>, tensor<16x8xf32>); the SpMM kernel reads and writes fp16, accumulating in fp32}}
  %y = linalg.matmul ins(%w, %x : tensor<16x64xf16>, tensor<64x8xf16>)
                     outs(%acc : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
func.func @not_constant(%w: tensor<16x64xf16, #CSR>, %x: tensor<64x8xf16>) -> tensor<16x8xf16> {
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{the weight is not a compile-time constant (it is a block argument); only arith.constant weights are encoded}}
  %y = linalg.matmul ins(%w, %x : tensor<16x64xf16, #CSR>, tensor<64x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

func.func @computed(%x: tensor<64x8xf16>) -> tensor<16x8xf16> {
  %e = tensor.empty() : tensor<16x64xf16>
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{the weight is not a compile-time constant (it is defined by 'tensor.empty'); only arith.constant weights are encoded}}
  %y = linalg.matmul {cuda_opt.sparse_weight = "tls"}
                     ins(%e, %x : tensor<16x64xf16>, tensor<64x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
func.func @k_not_multiple_of_8(%x: tensor<12x8xf16>) -> tensor<16x8xf16> {
  %w = arith.constant dense<0.0> : tensor<16x12xf16, #CSR>
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{K = 12 is not a multiple of 8, which the SpMM kernel's 16-byte activation loads need}}
  %y = linalg.matmul ins(%w, %x : tensor<16x12xf16, #CSR>, tensor<12x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
func.func @too_dense(%x: tensor<64x8xf16>) -> tensor<16x8xf16> {
  %w = arith.constant dense<1.0> : tensor<16x64xf16, #CSR>
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{the weight is only 0.0% sparse (0 of 1024 elements are zero), below the 30.0% at which the three-layer format pays off against dense fp16 (option min-sparsity)}}
  %y = linalg.matmul ins(%w, %x : tensor<16x64xf16, #CSR>, tensor<64x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
func.func @too_small(%x: tensor<64x8xf16>) -> tensor<16x8xf16> {
  %w = arith.constant sparse<[[0, 0]], [1.0]> : tensor<16x64xf16, #CSR>
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{padding the 16 x 64 weight to 16 x 256 blocks (16 x 256) makes the encoding read at least 4.50 bytes per element, not less than 2.00 (dense fp16 reads 2; option max-bytes-per-element)}}
  %y = linalg.matmul ins(%w, %x : tensor<16x64xf16, #CSR>, tensor<64x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

// A dense_resource whose blob is not in the file (elided).
func.func @elided(%x: tensor<256x8xf16>) -> tensor<16x8xf16> {
  %w = arith.constant {cuda_opt.sparse_weight} dense_resource<__elided__> : tensor<16x256xf16>
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{the weight's value is not a dense<...>, sparse<...> or loaded dense_resource<...> attribute the encoder can read}}
  %y = linalg.matmul ins(%w, %x : tensor<16x256xf16>, tensor<256x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
func.func @sparse_result(%x: tensor<256x8xf16>, %acc: tensor<16x8xf16, #CSR>) -> tensor<16x8xf16, #CSR> {
  %w = arith.constant dense<0.0> : tensor<16x256xf16, #CSR>
  // expected-remark @+1 {{the activations or the result carry a tensor encoding; the SpMM reads and writes dense tensors}}
  %y = linalg.matmul ins(%w, %x : tensor<16x256xf16, #CSR>, tensor<256x8xf16>)
                     outs(%acc : tensor<16x8xf16, #CSR>) -> tensor<16x8xf16, #CSR>
  return %y : tensor<16x8xf16, #CSR>
}
