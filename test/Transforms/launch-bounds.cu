// RUN: cuda-opt --passes='launch-bounds' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='launch-bounds{threads=512,blocks=2}' --kernel=tiled %s | FileCheck %s --check-prefix=EXPLICIT

// CHECK-LABEL: __global__ void __launch_bounds__(256) saxpy(
// CHECK-LABEL: __global__ void __launch_bounds__(256) tiled(
// EXPLICIT: __global__ void saxpy(
// EXPLICIT: __global__ void __launch_bounds__(512, 2) tiled(

__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void tiled(float *out, const float *in, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * w + x] = in[x * w + y];
}

int main() {
  float *x, *y;
  int n = 1 << 20;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  saxpy<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
  dim3 block(16, 16);
  dim3 grid(1024 / 16, 1024 / 16);
  tiled<<<grid, block>>>(y, x, 1024);
  return 0;
}

// A kernel with no launch in the file takes an explicit bound.
// RUN: cuda-opt --passes='launch-bounds{threads=128}' --kernel=library %s | FileCheck %s --check-prefix=LIB
// LIB: __global__ void __launch_bounds__(128) library(
__global__ void library(float *p) { p[threadIdx.x] = 4.0f; }
