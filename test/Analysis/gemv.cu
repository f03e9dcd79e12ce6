// RUN: cuda-opt --analyze %s --json | FileCheck %s

// y = A x, one row per thread.
__global__ void gemv(const float *__restrict__ A, const float *__restrict__ x,
                     float *__restrict__ y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M) {
    float sum = 0.0f;
    for (int j = 0; j < N; ++j)
      sum += A[row * N + j] * x[j];
    y[row] = sum;
  }
}

// CHECK:      "index_form": "N*blockDim.x*blockIdx.x + N*threadIdx.x + j",
// CHECK:      "pattern": "strided",
// CHECK:      "stride": null,
// CHECK-NEXT: "stride_expr": "N",
// CHECK-NEXT: "text": "A[row * N + j]"
// CHECK:      "index_form": "j",
// CHECK:      "pattern": "broadcast",
// CHECK:      "text": "x[j]"
// CHECK:      "idiom": {
// CHECK-NEXT:   "evidence": "'sum += A[row * N + j] * x[j]' in the loop over 'j' (line 9): 'A[row * N + j]' depends on the thread's row, 'x[j]' only on the loop (matrix-vector product)",
// CHECK-NEXT:   "kind": "gemv"
// CHECK:      "parameters": [
// CHECK:        "const": true,
// CHECK:        "name": "A",
// CHECK:        "restrict": true,
// CHECK:        "const": false,
// CHECK:        "name": "y",
// CHECK:        "restrict": true,
// CHECK-NEXT:   "type": "float *__restrict",
// CHECK-NEXT:   "writes": 1
