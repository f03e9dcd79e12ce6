// The lowering of a 16 x 64 fp16 weight at 50 % sparsity (one 16 x 256
// block): the three arrays and the residual as constants, the runtime call
// with its statistics, X and Y transposed to the kernel's column-major
// layout. Weight: Inputs/gen_weight.py 16 64 50 5 (475 nonzeros). The output
// is valid MLIR (mlir-opt parses it).
// K = 64 pads to 256, so the encoding reads 4.5 bytes per element, more than
// dense: --max-bytes-per-element=8 lets this small test weight through.
// RUN: cuda-opt --lower-sparse-matmul --max-bytes-per-element=8 %s | FileCheck %s
// RUN: cuda-opt --lower-sparse-matmul --max-bytes-per-element=8 %s -o %t.mlir
// The call bufferizes; the memref signature is the runtime's C ABI.
// RUN: mlir-opt --one-shot-bufferize="bufferize-function-boundaries" %t.mlir | FileCheck %s --check-prefix=BUF
// BUF: func.func private @cuda_opt_tls_spmm(memref<?xi16, strided<[?], offset: ?>> {bufferization.access = "read"}, memref<?xi32, strided<[?], offset: ?>> {bufferization.access = "read"}, memref<?xi32, strided<[?], offset: ?>> {bufferization.access = "read"}, memref<?xi16, strided<[?], offset: ?>> {bufferization.access = "read"}, i32, i32, i32, memref<?x?xf16, strided<[?, ?], offset: ?>> {bufferization.access = "read"}) -> memref<?x?xf16, strided<[?, ?], offset: ?>> attributes {llvm.emit_c_interface}
// BUF: call @cuda_opt_tls_spmm(

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>

// CHECK-LABEL: func.func private @cuda_opt_tls_spmm(tensor<?xi16> {bufferization.access = "read"}, tensor<?xi32> {bufferization.access = "read"}, tensor<?xi32> {bufferization.access = "read"}, tensor<?xi16> {bufferization.access = "read"}, i32, i32, i32, tensor<?x?xf16> {bufferization.access = "read"}) -> tensor<?x?xf16> attributes {llvm.emit_c_interface}

// CHECK-LABEL: func.func @encoding(
// CHECK-SAME:    %[[X:.*]]: tensor<64x8xf16>) -> tensor<16x8xf16>
// CHECK-DAG:     %[[VALUES:.*]] = arith.constant dense<"0x{{[0-9A-F]+}}"> : tensor<2048xi16>
// CHECK-DAG:     %[[BITMAP:.*]] = arith.constant dense<"0x{{[0-9A-F]+}}"> : tensor<128xi32>
// CHECK-DAG:     %[[OFFSETS:.*]] = arith.constant dense<0> : tensor<2xi32>
// CHECK-DAG:     %[[RESIDUAL:.*]] = arith.constant dense<> : tensor<0xi16>
// The dense weight is gone.
// CHECK-NOT:     tensor<16x64xf16
// CHECK:         %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<64x8xf16>) outs(%{{.*}} : tensor<8x64xf16>) permutation = [1, 0]
// CHECK-DAG:     %[[V:.*]] = tensor.cast %[[VALUES]] : tensor<2048xi16> to tensor<?xi16>
// CHECK-DAG:     %[[B:.*]] = tensor.cast %[[BITMAP]] : tensor<128xi32> to tensor<?xi32>
// CHECK-DAG:     %[[O:.*]] = tensor.cast %[[OFFSETS]] : tensor<2xi32> to tensor<?xi32>
// CHECK-DAG:     %[[R:.*]] = tensor.cast %[[RESIDUAL]] : tensor<0xi16> to tensor<?xi16>
// CHECK-DAG:     %[[M:.*]] = arith.constant 16 : i32
// CHECK-DAG:     %[[K:.*]] = arith.constant 64 : i32
// CHECK-DAG:     %[[MAXRES:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[XD:.*]] = tensor.cast %[[XT]] : tensor<8x64xf16> to tensor<?x?xf16>
// CHECK:         %[[YT:.*]] = call @cuda_opt_tls_spmm(%[[V]], %[[B]], %[[O]], %[[R]], %[[M]], %[[K]], %[[MAXRES]], %[[XD]])
// One 16 x 256 block: 4096 B of slots, 512 of bitmap, 8 of offsets, for
// 1024 logical elements (K = 64 is padded to 256). All 475 nonzeros are
// kept; the padding leaves room for every layer-2 value, so no residual.
// CHECK-SAME:      {cuda_opt.tls_stats = {blocks = 1 : i64, bytes = 4616 : i64, bytes_per_element = 4.507800e+00 : f64, cols = 64 : i64, elements = 1024 : i64, layer1_share = 8.484000e-01 : f64, layer2_share = 1.516000e-01 : f64, layer3_share = 0.000000e+00 : f64, max_block_residual = 0 : i64, nonzeros = 475 : i64, rows = 16 : i64, sparsity = 5.361000e-01 : f64}}
// CHECK-SAME:      : (tensor<?xi16>, tensor<?xi32>, tensor<?xi32>, tensor<?xi16>, i32, i32, i32, tensor<?x?xf16>) -> tensor<?x?xf16>
// CHECK:         %[[YS:.*]] = tensor.cast %[[YT]] : tensor<?x?xf16> to tensor<8x16xf16>
// CHECK:         %[[Y:.*]] = linalg.transpose ins(%[[YS]] : tensor<8x16xf16>) outs(%{{.*}} : tensor<16x8xf16>) permutation = [1, 0]
// CHECK-NOT:     linalg.add
// CHECK:         return %[[Y]] : tensor<16x8xf16>
func.func @encoding(%x: tensor<64x8xf16>) -> tensor<16x8xf16> {
  %w = arith.constant
    dense<[[3.0, 0.0, 3.0, 2.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 1.0, 0.0, 1.0, 0.0, -2.0, 1.0, 0.0, 0.0, -2.0, -2.0, -1.0, 0.0, 0.0, 3.0, 0.0, 3.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -3.0, 3.0, 0.0, 0.0, 1.0, -2.0, 0.0, -3.0, 0.0, 3.0, 0.0, 0.0, 1.0, 0.0, -3.0, 0.0, 2.0, -2.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, -1.0, -3.0],
     [0.0, -2.0, 0.0, -2.0, 0.0, 2.0, 0.0, -1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 2.0, -3.0, 0.0, -1.0, 0.0, 0.0, 0.0, -3.0, -1.0, -2.0, 2.0, 3.0, 1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 2.0, 2.0, 0.0, 0.0, 1.0, 0.0, 0.0, -3.0, 0.0, -2.0, 1.0, -2.0, 0.0, 0.0, 2.0, 0.0, -1.0, 3.0, 0.0, 0.0, 3.0, 0.0, 0.0, 3.0, -1.0, 2.0, 1.0, -1.0, 0.0, 0.0, 0.0, 3.0],
     [-1.0, 0.0, 0.0, 1.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, -2.0, 1.0, 0.0, 0.0, 1.0, 0.0, 2.0, 1.0, 0.0, 3.0, 0.0, -2.0, 0.0, 0.0, -2.0, -2.0, -3.0, -2.0, 0.0, -3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 2.0, -3.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0],
     [2.0, -1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -2.0, -1.0, -1.0, 0.0, 0.0, 0.0, 1.0, -2.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -2.0, -3.0, 0.0, 0.0, 0.0, -1.0, 0.0, 2.0, 2.0, -3.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 3.0, 3.0, -3.0, 0.0, 2.0, 3.0, 3.0, 0.0, 1.0, 0.0, 3.0, 0.0, 0.0, -3.0, 0.0, 0.0, 2.0, 0.0, -1.0],
     [0.0, 0.0, 1.0, 2.0, 0.0, -3.0, 0.0, 0.0, -3.0, -3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -3.0, -2.0, 3.0, -2.0, 0.0, 0.0, -3.0, -3.0, 3.0, 0.0, 0.0, 0.0, 3.0, 0.0, -3.0, 0.0, 0.0, 1.0, 0.0, -3.0, 0.0, 0.0, 3.0, 2.0, -2.0, 0.0, -1.0, -1.0, -2.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -3.0, 0.0, 0.0, -2.0, 0.0, 0.0, -3.0, -3.0, 1.0, 0.0, 0.0, 3.0],
     [3.0, 0.0, 3.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0, 1.0, 0.0, 3.0, 0.0, -1.0, 2.0, -2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, -3.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -3.0, 0.0, 0.0, -2.0, -3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, -2.0, 0.0, -1.0, 0.0, 0.0, -3.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, -2.0, 0.0, 0.0, 3.0, 0.0],
     [-2.0, -3.0, 1.0, -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 2.0, -3.0, -2.0, 1.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -2.0, 3.0, 0.0, -3.0, -3.0, 0.0, -2.0, 3.0, 0.0, 0.0, 1.0, 0.0, 2.0, 3.0, 0.0, 3.0, 0.0, -2.0, -2.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, -1.0, -3.0, 0.0, 1.0, 2.0, 0.0, 0.0, -2.0],
     [1.0, 0.0, -3.0, 3.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 3.0, -3.0, 0.0, -1.0, 0.0, 0.0, -3.0, 0.0, 0.0, 0.0, 0.0, 0.0, -2.0, -3.0, 0.0, 3.0, 1.0, 1.0, -3.0, 0.0, 0.0, 0.0, -2.0, 0.0, -2.0, 1.0, -3.0, 0.0, 3.0, 0.0, -3.0, -2.0, 0.0, 1.0, 0.0, 0.0, -1.0, -1.0, -2.0, 0.0, 3.0, -3.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, -2.0],
     [-1.0, 0.0, 0.0, -3.0, 1.0, -3.0, 2.0, 1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 3.0, -3.0, 1.0, 0.0, 3.0, -2.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, -3.0, 0.0, -3.0, 0.0, 0.0, -1.0, 3.0, 3.0, 2.0, 0.0, -3.0, 0.0, 2.0, 0.0, 3.0, 0.0, 0.0, -2.0, 2.0, 0.0, 0.0, 2.0, -1.0, 0.0, 0.0, 0.0, 2.0, 0.0, -3.0, -2.0, 0.0, 0.0, 3.0, 3.0, 0.0, 0.0],
     [0.0, -2.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 2.0, 1.0, 0.0, 3.0, -1.0, -3.0, -2.0, -3.0, 0.0, 3.0, 0.0, 3.0, 1.0, -3.0, 0.0, 0.0, 0.0, 0.0, -3.0, 1.0, -2.0, 2.0, 3.0, -3.0, 0.0, -2.0, 0.0, 0.0, 0.0, 3.0, -2.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 3.0, -3.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, -3.0, -1.0, 0.0, -3.0, -3.0, 0.0, -1.0],
     [-3.0, 0.0, 2.0, 0.0, 2.0, -2.0, 0.0, 0.0, -3.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, -3.0, -2.0, 1.0, 0.0, -1.0, 3.0, 0.0, 0.0, 0.0, 2.0, 0.0, 3.0, 3.0, -2.0, 0.0, 1.0, 1.0, 1.0, 0.0, -2.0, -2.0, 0.0, 0.0, -3.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, -2.0, -3.0, 0.0, 0.0, -2.0, 0.0, 0.0, -1.0, -2.0, 0.0, 0.0, 0.0, -3.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0],
     [0.0, 3.0, -1.0, 0.0, -1.0, 0.0, 2.0, -2.0, -2.0, 0.0, 3.0, 0.0, 0.0, -3.0, 0.0, 1.0, 0.0, -2.0, -3.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, -1.0, 2.0, 1.0, 0.0, 0.0, -3.0, -3.0, 2.0, -3.0, -1.0, -1.0, -2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 1.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 1.0, -2.0, 2.0, 0.0, 2.0, 0.0],
     [0.0, 2.0, 0.0, -3.0, 0.0, 0.0, 0.0, 1.0, -2.0, 3.0, 0.0, 0.0, -3.0, 0.0, -1.0, 2.0, -3.0, 3.0, -3.0, 0.0, 0.0, 0.0, 0.0, -1.0, 1.0, 0.0, 0.0, 0.0, 0.0, -2.0, 0.0, 0.0, 3.0, 0.0, 3.0, 0.0, 0.0, -2.0, 1.0, -1.0, -2.0, 0.0, 2.0, -2.0, 3.0, 0.0, -1.0, -1.0, -2.0, 0.0, 0.0, -1.0, 0.0, -3.0, -3.0, -3.0, 0.0, 0.0, 2.0, 0.0, 2.0, 0.0, 3.0, -3.0],
     [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 3.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, -1.0, 1.0, 0.0, 0.0, 0.0, -3.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, -3.0, 0.0, -2.0, 0.0, -2.0, 0.0, 2.0, 0.0, 0.0, 3.0, 0.0, 0.0, 2.0, -1.0, 0.0, -1.0, 0.0, 0.0, -3.0, 0.0, 0.0, 3.0, 1.0, -2.0, 0.0, 3.0, 0.0, 3.0, 0.0, -3.0, 0.0, 3.0, 0.0, 0.0],
     [-3.0, 0.0, 0.0, 1.0, 1.0, 2.0, -1.0, -3.0, -2.0, -1.0, 0.0, -2.0, 0.0, 0.0, -3.0, 0.0, -1.0, 1.0, 1.0, 2.0, -1.0, 2.0, 3.0, -3.0, 0.0, 0.0, 0.0, 1.0, -3.0, 0.0, 0.0, 3.0, 0.0, 2.0, 0.0, 3.0, 0.0, 0.0, 3.0, 0.0, 0.0, 2.0, 0.0, -1.0, 0.0, 0.0, -1.0, 2.0, 1.0, 3.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -3.0, 3.0, 2.0, 0.0],
     [2.0, 2.0, 0.0, 1.0, -2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -3.0, 3.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, 3.0, 3.0, 0.0, 0.0, 0.0, 0.0, 3.0, 2.0, 3.0, 3.0, 0.0, 0.0, 0.0, -3.0, 0.0, -2.0, 0.0, 0.0, -1.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, -3.0, 0.0, 0.0, 3.0, 1.0, 0.0, -1.0, 2.0, 0.0, 0.0, -3.0, 0.0, 0.0]]> : tensor<16x64xf16, #CSR>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x8xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<16x8xf16>) -> tensor<16x8xf16>
  %y = linalg.matmul ins(%w, %x : tensor<16x64xf16, #CSR>, tensor<64x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}
