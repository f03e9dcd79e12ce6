// --analyze without --json prints a readable summary of the same model.
// RUN: cuda-opt --analyze %s | FileCheck %s

// CHECK: kernel tiled_matmul at {{.*}}text-summary.cu:[[@LINE+10]]:17
// CHECK-NEXT: idiom: gemm
// CHECK: param const float * A
// CHECK: index tx = threadIdx.x (thread index x)
// CHECK: loop t from 0 while < N / 16 step ++t, trips (N / 16)
// CHECK: loop k from 0 while < 16 step ++k, trips 16
// CHECK: shared read As[ty][k]: broadcast
// CHECK: shared memory: 2048 bytes static
// CHECK: barriers: 2
// CHECK: flops per global byte:
__global__ void tiled_matmul(const float *A, const float *B, float *C, int N) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.0f;
  for (int t = 0; t < N / 16; ++t) {
    As[ty][tx] = A[row * N + t * 16 + tx];
    Bs[ty][tx] = B[(t * 16 + ty) * N + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * N + col] = acc;
}
