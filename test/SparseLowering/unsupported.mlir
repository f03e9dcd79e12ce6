// Matmuls with a sparse-marked operand that the runtime SpMM cannot compute
// are left as they are, with one remark saying why.
// RUN: cuda-opt --lower-sparse-matmul --split-input-file --verify-diagnostics %s
// RUN: cuda-opt --lower-sparse-matmul --split-input-file %s 2>/dev/null | FileCheck %s
// RUN: cuda-opt --lower-sparse-matmul --split-input-file %s 2>/dev/null | FileCheck %s --check-prefix=COUNT
// CHECK-NOT: cuda_opt_tls_spmm
// CHECK: linalg.batch_matmul
// CHECK-NOT: cuda_opt_tls_spmm
// COUNT-COUNT-20: linalg.matmul
// The output is exactly the input as mlir-opt prints it: nothing changed.
// RUN: cuda-opt --lower-sparse-matmul --split-input-file %s 2>/dev/null > %t.lowered.mlir
// RUN: mlir-opt --split-input-file %s 2>/dev/null > %t.parsed.mlir
// RUN: diff %t.lowered.mlir %t.parsed.mlir

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

// The argument attribute marks the B operand.
func.func @argument_is_b(%a: tensor<8x256xf16>, %w: tensor<256x32xf16> {cuda_opt.sparse_weight}) -> tensor<8x32xf16> {
  %acc = arith.constant dense<0.0> : tensor<8x32xf16>
  // expected-remark @+1 {{not lowered to the three-layer SpMM: the sparse weight is the B operand (K x N); only an A operand (M x K) weight is supported}}
  %y = linalg.matmul ins(%a, %w : tensor<8x256xf16>, tensor<256x32xf16>)
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
func.func @dynamic_k(%w: tensor<16x?xf16, #CSR>, %x: tensor<?x8xf16>) -> tensor<16x8xf16> {
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{not lowered to the three-layer SpMM: the weight's type tensor<16x?xf16, #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>> has a dynamic dimension; M and K must be static (only N, the activations' columns, may be dynamic)}}
  %y = linalg.matmul ins(%w, %x : tensor<16x?xf16, #CSR>, tensor<?x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

func.func @dynamic_m(%w: tensor<?x256xf16> {cuda_opt.sparse_weight}, %x: tensor<256x8xf16>, %acc: tensor<?x8xf16>) -> tensor<?x8xf16> {
  // expected-remark @+1 {{the weight's type tensor<?x256xf16> has a dynamic dimension; M and K must be static (only N, the activations' columns, may be dynamic)}}
  %y = linalg.matmul ins(%w, %x : tensor<?x256xf16>, tensor<256x8xf16>)
                     outs(%acc : tensor<?x8xf16>) -> tensor<?x8xf16>
  return %y : tensor<?x8xf16>
}

// -----

// fp16 weight, bf16 activations (an f32 result).
#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
func.func @mixed_types(%x: tensor<256x8xbf16>) -> tensor<16x8xf32> {
  %w = arith.constant sparse<[[0, 0]], [1.0]> : tensor<16x256xf16, #CSR>
  %acc = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-remark @+1 {{the activations and the result must have the weight's element type f16 (they are tensor<256x8xbf16>, tensor<16x8xf32>); the SpMM kernel reads and writes it, accumulating in fp32}}
  %y = linalg.matmul ins(%w, %x : tensor<16x256xf16, #CSR>, tensor<256x8xbf16>)
                     outs(%acc : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

func.func @f32_weight(%x: tensor<64x8xf32>) -> tensor<16x8xf32> {
  %w = arith.constant {cuda_opt.sparse_weight} dense<0.0> : tensor<16x64xf32>
  %acc = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-remark @+1 {{the weight's element type is f32; the SpMM kernel takes fp16 or bf16}}
  %y = linalg.matmul ins(%w, %x : tensor<16x64xf32>, tensor<64x8xf32>)
                     outs(%acc : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

func.func @f32_result(%x: tensor<64x8xf16>) -> tensor<16x8xf32> {
  %w = arith.constant {cuda_opt.sparse_weight} dense<0.0> : tensor<16x64xf16>
  %acc = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-remark @+1 {{the activations and the result must have the weight's element type f16 (they are tensor<64x8xf16>, tensor<16x8xf32>); the SpMM kernel reads and writes it, accumulating in fp32}}
  %y = linalg.matmul ins(%w, %x : tensor<16x64xf16>, tensor<64x8xf16>)
                     outs(%acc : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %y : tensor<16x8xf32>
}

// -----

// A sparse function argument is read at run time only as CSR.
#CSC = #sparse_tensor.encoding<{ map = (d0, d1) -> (d1 : dense, d0 : compressed) }>
func.func @csc_argument(%w: tensor<16x256xf16, #CSC>, %x: tensor<256x8xf16>) -> tensor<16x8xf16> {
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{the weight is a function argument of type tensor<16x256xf16, #sparse_tensor.encoding<{ map = (d0, d1) -> (d1 : dense, d0 : compressed) }>> and its encoding is not CSR (levels (d0 : dense, d1 : compressed) in identity order), the only sparse layout the runtime reads (pass the dense weight marked 'cuda_opt.sparse_weight' instead)}}
  %y = linalg.matmul ins(%w, %x : tensor<16x256xf16, #CSC>, tensor<256x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

#CSR32 = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed), posWidth = 32, crdWidth = 32 }>
func.func @csr_narrow_indices(%w: tensor<16x256xf16, #CSR32>, %x: tensor<256x8xf16>) -> tensor<16x8xf16> {
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{its CSR encoding has posWidth/crdWidth set; the runtime reads index-typed positions and coordinates (the default)}}
  %y = linalg.matmul ins(%w, %x : tensor<16x256xf16, #CSR32>, tensor<256x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

// A convert that changes the element type is not looked through.
#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
func.func @converted_type(%w: tensor<16x256xf32>, %x: tensor<256x8xf16>) -> tensor<16x8xf16> {
  %s = sparse_tensor.convert %w : tensor<16x256xf32> to tensor<16x256xf16, #CSR>
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{the weight is converted from tensor<16x256xf32>; a sparse_tensor.convert in front of the matmul may change the encoding, not the element type}}
  %y = linalg.matmul ins(%s, %x : tensor<16x256xf16, #CSR>, tensor<256x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

// A function argument pays the same padding as a constant.
func.func @small_argument(%w: tensor<16x64xf16> {cuda_opt.sparse_weight}, %x: tensor<64x8xf16>) -> tensor<16x8xf16> {
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{padding the 16 x 64 weight to 16 x 256 blocks (16 x 256) makes the encoding read at least 4.50 bytes per element, not less than 2.00 (dense fp16 reads 2; option max-bytes-per-element)}}
  %y = linalg.matmul ins(%w, %x : tensor<16x64xf16>, tensor<64x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

func.func @computed(%x: tensor<64x8xf16>) -> tensor<16x8xf16> {
  %e = tensor.empty() : tensor<16x64xf16>
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{the weight is neither a compile-time constant nor a function argument (it is defined by 'tensor.empty'); constants are encoded at compile time, function arguments at their first use at run time}}
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

// -----

// Not a 2-D weight: a broadcast 1-D sparse operand.
#SV = #sparse_tensor.encoding<{ map = (d0) -> (d0 : compressed) }>
func.func @broadcast_weight(%w: tensor<256xf16, #SV>, %x: tensor<256x8xf16>) -> tensor<16x8xf16> {
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  // expected-remark @+1 {{it has explicit indexing_maps (a transposed or broadcast operand); only the plain (M x K) * (K x N) form is supported}}
  %y = linalg.matmul
         indexing_maps = [affine_map<(m, n, k) -> (k)>,
                          affine_map<(m, n, k) -> (k, n)>,
                          affine_map<(m, n, k) -> (m, n)>]
         ins(%w, %x : tensor<256xf16, #SV>, tensor<256x8xf16>)
         outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}
