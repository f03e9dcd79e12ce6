// RUN: cuda-opt --analyze %s --json | FileCheck %s

// Shared-memory tiled matrix multiply (the CUDA programming guide version).
#define TILE 16

__global__ void matmul_tiled(const float *A, const float *B, float *C, int N) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < N / TILE; ++t) {
    As[ty][tx] = A[row * N + t * TILE + tx];
    Bs[ty][tx] = B[(t * TILE + ty) * N + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * N + col] = acc;
}

// CHECK:      "access_summary": {
// CHECK:        "global": {
// CHECK-NEXT:     "broadcast": 0,
// CHECK-NEXT:     "coalesced": 3,
// CHECK-NEXT:     "irregular": 0,
// CHECK-NEXT:     "strided": 0
// CHECK:        "index": "[ty][tx]",
// CHECK-NEXT:   "index_form": "threadIdx.x + 16*threadIdx.y",
// CHECK:        "kind": "write",
// CHECK:        "space": "shared",
// CHECK:        "text": "As[ty][tx]"
// CHECK:        "index": "[ty][k]",
// CHECK-NEXT:   "index_form": "k + 16*threadIdx.y",
// CHECK:        "pattern": "broadcast",
// CHECK:        "index": "[k][tx]",
// CHECK-NEXT:   "index_form": "16*k + threadIdx.x",
// CHECK:        "pattern": "coalesced",
// CHECK:      "arithmetic_intensity": {
// CHECK-NEXT:   "flops": "32*(N / TILE)",
// CHECK:        "flops_per_byte_text": "4",
// CHECK-NEXT:   "global_bytes": "8*(N / TILE) + 4",
// CHECK:      "barriers": [
// CHECK:        "kind": "__syncthreads",
// CHECK-NEXT:   "location": "{{.*}}gemm-tiled.cu:16:5",
// CHECK-NEXT:   "loop": 0,
// CHECK-NEXT:   "scope": "block"
// CHECK:      "idiom": {
// CHECK-NEXT:   "evidence": "'acc += As[ty][k] * Bs[k][tx]' in the loop over 'k' (line 17){{.*}}, from __shared__ tiles",
// CHECK-NEXT:   "kind": "gemm"
// CHECK:      "loops": [
// CHECK:        "contains_barrier": true,
// CHECK-NEXT:   "depth": 1,
// CHECK:        "induction_var": "t",
// CHECK:        "trip_count_expr": "(N / TILE)"
// CHECK:        "contains_barrier": false,
// CHECK-NEXT:   "depth": 2,
// CHECK:        "induction_var": "k",
// CHECK:        "parent": 0,
// CHECK:        "trip_count": 16,
// CHECK:      "max_loop_depth": 2,
// CHECK:      "shared_memory": {
// CHECK-NEXT:   "arrays": [
// CHECK:          "bytes": 1024,
// CHECK:          "name": "As",
// CHECK:          "name": "Bs",
// CHECK-NEXT:     "type": "float[16][16]"
// CHECK:        "dynamic": false,
// CHECK-NEXT:   "static_bytes": 2048
// CHECK:        "name": "row",
// CHECK-NEXT:   "role": "global linear index y (block size 16)",

// RUN: cuda-opt --analyze %s --json | FileCheck %s --check-prefix=FEATURES
// The flat feature vector for a learned policy.
// FEATURES:      "features": {
// FEATURES-NEXT:   "flops_per_byte": 4,
// FEATURES-NEXT:   "global_broadcast": 0,
// FEATURES-NEXT:   "global_coalesced": 3,
// FEATURES:        "idiom_gemm": 1,
// FEATURES:        "idiom_unknown": 0,
// FEATURES:        "max_loop_depth": 2,
// FEATURES:        "num_barriers": 2,
// FEATURES:        "shared_coalesced": 3,
// FEATURES:        "shared_static_bytes": 2048,
