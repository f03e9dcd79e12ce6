// Function-argument weights: not known at compile time, so the call passes
// the weight itself and the runtime encodes it at its first use (cached by
// the buffer's address; docs/sparse-lowering.md, "Run-time weights").
// A dense argument marked by the argument attribute, by the matmul's marker
// or by a sparse_tensor.convert to a sparse type goes to
// @cuda_opt_tls_spmm_dense_weight; a CSR argument's storage arrays go to
// @cuda_opt_tls_spmm_csr_weight. fp16 and bf16; N static or dynamic.
// RUN: cuda-opt --lower-sparse-matmul %s | FileCheck %s
// RUN: cuda-opt --lower-sparse-matmul %s -o %t.mlir
// Lowered to the LLVM dialect by MLIR's own sparse pipeline, the calls reach
// the C entry points of runtime/sparse/lib/TlsMlirAbi.h: the result's
// descriptor first, then the operands (descriptors by pointer).
// RUN: mlir-opt --sparsifier %t.mlir | FileCheck %s --check-prefix=LLVM
// LLVM-DAG: llvm.func @_mlir_ciface_cuda_opt_tls_spmm_dense_weight(!llvm.ptr, !llvm.ptr{{[^,]*}}, !llvm.ptr{{[^,]*}})
// LLVM-DAG: llvm.func @_mlir_ciface_cuda_opt_tls_spmm_dense_weight_bf16(!llvm.ptr, !llvm.ptr{{[^,]*}}, !llvm.ptr{{[^,]*}})
// LLVM-DAG: llvm.func @_mlir_ciface_cuda_opt_tls_spmm_csr_weight(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, !llvm.ptr{{[^,]*}})
// LLVM-DAG: llvm.func @_mlir_ciface_cuda_opt_tls_spmm_csr_weight_bf16(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, !llvm.ptr{{[^,]*}})

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>

// CHECK-DAG: func.func private @cuda_opt_tls_spmm_dense_weight(tensor<?x?xf16> {bufferization.access = "read"}, tensor<?x?xf16> {bufferization.access = "read"}) -> tensor<?x?xf16> attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @cuda_opt_tls_spmm_dense_weight_bf16(tensor<?x?xbf16> {bufferization.access = "read"}, tensor<?x?xbf16> {bufferization.access = "read"}) -> tensor<?x?xbf16> attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @cuda_opt_tls_spmm_csr_weight(memref<?xindex>, memref<?xindex>, memref<?xf16>, i32, i32, tensor<?x?xf16> {bufferization.access = "read"}) -> tensor<?x?xf16> attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @cuda_opt_tls_spmm_csr_weight_bf16(memref<?xindex>, memref<?xindex>, memref<?xbf16>, i32, i32, tensor<?x?xbf16> {bufferization.access = "read"}) -> tensor<?x?xbf16> attributes {llvm.emit_c_interface}

// The argument attribute; static N.
// CHECK-LABEL: func.func @dense_argument(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<4096x4096xf16> {cuda_opt.sparse_weight}, %[[X:[^:]*]]: tensor<4096x8xf16>)
// CHECK:         %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<4096x8xf16>)
// CHECK-DAG:     %[[WD:.*]] = tensor.cast %[[W]] : tensor<4096x4096xf16> to tensor<?x?xf16>
// CHECK-DAG:     %[[XD:.*]] = tensor.cast %[[XT]] : tensor<8x4096xf16> to tensor<?x?xf16>
// CHECK:         %[[YT:.*]] = call @cuda_opt_tls_spmm_dense_weight(%[[WD]], %[[XD]]) : (tensor<?x?xf16>, tensor<?x?xf16>) -> tensor<?x?xf16>
// CHECK:         %[[YS:.*]] = tensor.cast %[[YT]] : tensor<?x?xf16> to tensor<8x4096xf16>
// CHECK:         %[[Y:.*]] = linalg.transpose ins(%[[YS]] : tensor<8x4096xf16>) outs(%{{.*}} : tensor<4096x8xf16>)
// CHECK-NOT:     linalg.matmul
// CHECK:         return %[[Y]]
func.func @dense_argument(%w: tensor<4096x4096xf16> {cuda_opt.sparse_weight}, %x: tensor<4096x8xf16>) -> tensor<4096x8xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x8xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<4096x8xf16>) -> tensor<4096x8xf16>
  %y = linalg.matmul ins(%w, %x : tensor<4096x4096xf16>, tensor<4096x8xf16>)
                     outs(%acc : tensor<4096x8xf16>) -> tensor<4096x8xf16>
  return %y : tensor<4096x8xf16>
}

// The matmul's marker, bf16, dynamic N and a non-zero accumulator: the
// transposes take N from tensor.dim.
// CHECK-LABEL: func.func @dense_argument_bf16_dynamic_n(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<512x1024xbf16>, %[[X:[^:]*]]: tensor<1024x?xbf16>, %[[ACC:[^:]*]]: tensor<512x?xbf16>)
// CHECK:         %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<1024x?xbf16>
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x1024xbf16>
// CHECK:         %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<1024x?xbf16>) outs(%[[E]] : tensor<?x1024xbf16>)
// CHECK:         %[[YT:.*]] = call @cuda_opt_tls_spmm_dense_weight_bf16(
// CHECK:         %[[YS:.*]] = tensor.cast %[[YT]] : tensor<?x?xbf16> to tensor<?x512xbf16>
// CHECK:         %[[Y:.*]] = linalg.transpose ins(%[[YS]] : tensor<?x512xbf16>) outs(%{{.*}} : tensor<512x?xbf16>)
// CHECK:         %[[SUM:.*]] = linalg.add ins(%[[Y]], %[[ACC]] : tensor<512x?xbf16>, tensor<512x?xbf16>) outs(%[[Y]] : tensor<512x?xbf16>)
// CHECK:         return %[[SUM]]
func.func @dense_argument_bf16_dynamic_n(%w: tensor<512x1024xbf16>, %x: tensor<1024x?xbf16>, %acc: tensor<512x?xbf16>) -> tensor<512x?xbf16> {
  %y = linalg.matmul {cuda_opt.sparse_weight}
                     ins(%w, %x : tensor<512x1024xbf16>, tensor<1024x?xbf16>)
                     outs(%acc : tensor<512x?xbf16>) -> tensor<512x?xbf16>
  return %y : tensor<512x?xbf16>
}

// A dense argument converted to CSR in the function: the call takes the
// dense argument (a stable buffer), the convert goes.
// CHECK-LABEL: func.func @dense_argument_converted(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<256x512xf16>
// CHECK-NOT:     sparse_tensor.convert
// CHECK:         %[[WD:.*]] = tensor.cast %[[W]] : tensor<256x512xf16> to tensor<?x?xf16>
// CHECK:         call @cuda_opt_tls_spmm_dense_weight(%[[WD]],
func.func @dense_argument_converted(%w: tensor<256x512xf16>, %x: tensor<512x16xf16>) -> tensor<256x16xf16> {
  %s = sparse_tensor.convert %w : tensor<256x512xf16> to tensor<256x512xf16, #CSR>
  %acc = arith.constant dense<0.0> : tensor<256x16xf16>
  %y = linalg.matmul ins(%s, %x : tensor<256x512xf16, #CSR>, tensor<512x16xf16>)
                     outs(%acc : tensor<256x16xf16>) -> tensor<256x16xf16>
  return %y : tensor<256x16xf16>
}

// A CSR argument: its positions, coordinates and values (level 1), M and K.
// CHECK-LABEL: func.func @csr_argument(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<256x512xf16, #sparse{{[0-9]*}}>, %[[X:[^:]*]]: tensor<512x?xf16>
// CHECK-DAG:     %[[P:.*]] = sparse_tensor.positions %[[W]] {level = 1 : index} : tensor<256x512xf16, #sparse{{[0-9]*}}> to memref<?xindex>
// CHECK-DAG:     %[[C:.*]] = sparse_tensor.coordinates %[[W]] {level = 1 : index} : tensor<256x512xf16, #sparse{{[0-9]*}}> to memref<?xindex>
// CHECK-DAG:     %[[V:.*]] = sparse_tensor.values %[[W]] : tensor<256x512xf16, #sparse{{[0-9]*}}> to memref<?xf16>
// CHECK-DAG:     %[[M:.*]] = arith.constant 256 : i32
// CHECK-DAG:     %[[K:.*]] = arith.constant 512 : i32
// CHECK:         call @cuda_opt_tls_spmm_csr_weight(%[[P]], %[[C]], %[[V]], %[[M]], %[[K]], %{{.*}}) : (memref<?xindex>, memref<?xindex>, memref<?xf16>, i32, i32, tensor<?x?xf16>) -> tensor<?x?xf16>
// CHECK-NOT:     linalg.matmul
func.func @csr_argument(%w: tensor<256x512xf16, #CSR>, %x: tensor<512x?xf16>) -> tensor<256x?xf16> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<512x?xf16>
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty(%n) : tensor<256x?xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%e : tensor<256x?xf16>) -> tensor<256x?xf16>
  %y = linalg.matmul ins(%w, %x : tensor<256x512xf16, #CSR>, tensor<512x?xf16>)
                     outs(%acc : tensor<256x?xf16>) -> tensor<256x?xf16>
  return %y : tensor<256x?xf16>
}

// bf16 CSR, marked on the argument as well (the marker is redundant).
// CHECK-LABEL: func.func @csr_argument_bf16(
// CHECK:         sparse_tensor.values %{{.*}} : tensor<64x256xbf16, #sparse{{[0-9]*}}> to memref<?xbf16>
// CHECK:         call @cuda_opt_tls_spmm_csr_weight_bf16(
func.func @csr_argument_bf16(%w: tensor<64x256xbf16, #CSR> {cuda_opt.sparse_weight}, %x: tensor<256x8xbf16>) -> tensor<64x8xbf16> {
  %acc = arith.constant dense<0.0> : tensor<64x8xbf16>
  %y = linalg.matmul ins(%w, %x : tensor<64x256xbf16, #CSR>, tensor<256x8xbf16>)
                     outs(%acc : tensor<64x8xbf16>) -> tensor<64x8xbf16>
  return %y : tensor<64x8xbf16>
}
