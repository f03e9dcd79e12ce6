// The input forms: the marker attribute on the constant or on the matmul, a
// sparse<...> constant, an accumulator that is not zero, one weight shared by
// two matmuls (encoded once), a lower --min-sparsity.
// (--max-bytes-per-element=8: the 16 x 64 weights are padded to 16 x 256.)
// RUN: cuda-opt --lower-sparse-matmul --max-bytes-per-element=8 %s | FileCheck %s
// RUN: cuda-opt --lower-sparse-matmul --max-bytes-per-element=8 --min-sparsity=0.999 %s 2>&1 | FileCheck %s --check-prefix=STRICT

// CHECK: func.func private @cuda_opt_tls_spmm(

// A sparse<...> constant with four nonzeros, marked on the constant; the
// accumulator is an argument, so the result is added to it.
// CHECK-LABEL: func.func @marker_on_constant(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<64x8xf16>, %[[ACC:[^:]*]]: tensor<16x8xf16>)
// CHECK-DAG:     %[[V:.*]] = arith.constant dense<{{.*}}> : tensor<2048xi16>
// CHECK-DAG:     %[[B:.*]] = arith.constant dense<{{.*}}> : tensor<128xi32>
// CHECK-DAG:     %[[O:.*]] = arith.constant dense<0> : tensor<2xi32>
// CHECK-DAG:     %[[R:.*]] = arith.constant dense<> : tensor<0xi16>
// CHECK-NOT:     tensor<16x64xf16>
// CHECK:         %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<64x8xf16>)
// CHECK:         %[[Y:.*]] = call @cuda_opt_tls_spmm(
// CHECK-SAME:      cuda_opt.tls_stats = {{{.*}}layer1_share = 1.000000e+00 : f64, layer2_share = 0.000000e+00 : f64, layer3_share = 0.000000e+00 : f64, max_block_residual = 0 : i64, nonzeros = 4 : i64, rows = 16 : i64, sparsity = {{0.996|9.96}}{{[0-9]*}}{{(e-01)?}} : f64}
// CHECK:         %[[YN:.*]] = linalg.transpose
// CHECK:         %[[SUM:.*]] = arith.addf %[[YN]], %[[ACC]] : tensor<16x8xf16>
// CHECK:         return %[[SUM]]
// STRICT: remark: not lowered to the three-layer SpMM: the weight is only 99.6% sparse (1020 of 1024 elements are zero), below the 99.9% at which
func.func @marker_on_constant(%x: tensor<64x8xf16>, %acc: tensor<16x8xf16>) -> tensor<16x8xf16> {
  %w = arith.constant {cuda_opt.sparse_weight}
         sparse<[[0, 0], [3, 17], [9, 40], [15, 63]], [1.0, -2.0, 0.5, 4.0]> : tensor<16x64xf16>
  %y = linalg.matmul ins(%w, %x : tensor<16x64xf16>, tensor<64x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// The marker on the matmuls; both read one weight, encoded once. A zero
// splat accumulator needs no add.
// CHECK-LABEL: func.func @marker_on_matmul(
// CHECK-COUNT-4: arith.constant dense<{{.*}}> : tensor<{{[0-9]+}}xi{{16|32}}>
// CHECK-NOT:     arith.constant dense<{{.*}}> : tensor<{{[0-9]+}}xi{{16|32}}>
// CHECK:         call @cuda_opt_tls_spmm(
// CHECK-SAME:      nonzeros = 4 : i64
// CHECK-NOT:     arith.addf
// CHECK:         call @cuda_opt_tls_spmm(
// CHECK-NOT:     linalg.matmul
// CHECK:         return
func.func @marker_on_matmul(%x: tensor<64x8xf16>, %x2: tensor<64x32xf16>) -> (tensor<16x8xf16>, tensor<16x32xf16>) {
  %w = arith.constant sparse<[[1, 1], [2, 2], [3, 3], [4, 4]], [1.0, 1.0, 1.0, 1.0]> : tensor<16x64xf16>
  %acc = arith.constant dense<0.0> : tensor<16x8xf16>
  %acc2 = arith.constant dense<0.0> : tensor<16x32xf16>
  %y = linalg.matmul {cuda_opt.sparse_weight}
                     ins(%w, %x : tensor<16x64xf16>, tensor<64x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  %y2 = linalg.matmul {cuda_opt.sparse_weight = "tls"}
                      ins(%w, %x2 : tensor<16x64xf16>, tensor<64x32xf16>)
                      outs(%acc2 : tensor<16x32xf16>) -> tensor<16x32xf16>
  return %y, %y2 : tensor<16x8xf16>, tensor<16x32xf16>
}

// A matmul without a marked operand is not a candidate: no remark, no change.
// CHECK-LABEL: func.func @dense(
// CHECK:         linalg.matmul
func.func @dense(%w: tensor<16x64xf16>, %x: tensor<64x8xf16>, %acc: tensor<16x8xf16>) -> tensor<16x8xf16> {
  %y = linalg.matmul ins(%w, %x : tensor<16x64xf16>, tensor<64x8xf16>)
                     outs(%acc : tensor<16x8xf16>) -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}
