// A function-argument weight reaches the runtime as the caller's own buffer:
// the runtime declarations mark their tensor operands
// {bufferization.access = "read"}, so One-Shot Bufferize passes the weight
// argument without a defensive copy, even when the function reads it again
// (a copy would be a new address per call, encoded again every time by the
// runtime's address-keyed cache).
// RUN: cuda-opt --lower-sparse-matmul %s -o %t.mlir
// RUN: mlir-opt --one-shot-bufferize="bufferize-function-boundaries" %t.mlir | FileCheck %s

// CHECK-LABEL: func.func @two_layers(
// CHECK-SAME:    %[[W:[^:]*]]: memref<512x1024xf16, strided<[?, ?], offset: ?>> {cuda_opt.sparse_weight}
// CHECK-NOT:     memref.copy
// CHECK:         %[[WD:.*]] = memref.cast %[[W]] : memref<512x1024xf16, strided<[?, ?], offset: ?>> to memref<?x?xf16, strided<[?, ?], offset: ?>>
// CHECK-NOT:     memref.copy
// CHECK:         call @cuda_opt_tls_spmm_dense_weight(%[[WD]],
// CHECK-NOT:     memref.copy
// CHECK:         %[[WD2:.*]] = memref.cast %[[W]]
// CHECK:         call @cuda_opt_tls_spmm_dense_weight(%[[WD2]],
// CHECK-NOT:     memref.copy
// CHECK:         return
func.func @two_layers(%w: tensor<512x1024xf16> {cuda_opt.sparse_weight}, %x: tensor<1024x?xf16>, %acc: tensor<512x?xf16>) -> (tensor<512x?xf16>, tensor<512x1024xf16>) {
  %y = linalg.matmul ins(%w, %x : tensor<512x1024xf16>, tensor<1024x?xf16>)
                     outs(%acc : tensor<512x?xf16>) -> tensor<512x?xf16>
  %y2 = linalg.matmul ins(%w, %x : tensor<512x1024xf16>, tensor<1024x?xf16>)
                      outs(%y : tensor<512x?xf16>) -> tensor<512x?xf16>
  return %y2, %w : tensor<512x?xf16>, tensor<512x1024xf16>
}
