// RUN: cuda-opt --passes='restrict-const,coarsen{factor=2,axis=y},launch-bounds' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: not cuda-opt --passes='coarsen{factor=2,axis=y},coarsen{factor=2,axis=y}' %s 2>&1 | FileCheck %s --check-prefix=TWICE

// restrict-const first: with __restrict__ the stores of one row cannot
// change the loads of the next, so nvcc may share the loads of neighbouring
// rows; launch-bounds reads the block after coarsen.
// CHECK-LABEL: {{^}}__global__ void __launch_bounds__(256)
// CHECK-NEXT: {{^}}    avg3(float *__restrict__ out, const float *__restrict__ in, int w, int h,
// CHECK:      {{^}}  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * 2;
// CHECK-NEXT: {{^}}  if (y0 + 1 < oh && x < ow) {
// CHECK:      {{^}}  avg3<<<dim3(grid.x, (grid.y + 1) / 2, grid.z), block>>>(out, in, w, h, ow,

// The output is no longer in the row shape.
// TWICE: kernel 'avg3': kernel 'avg3' reads blockIdx.y at {{.*}} but declares no row index 'int y = blockIdx.y * blockDim.y + threadIdx.y;' at the top of its body
__global__ void avg3(float *out, const float *in, int w, int h, int ow,
                     int oh) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < ow && y < oh) {
    float s = 0.0f;
    for (int dy = 0; dy < 3; ++dy)
      for (int dx = 0; dx < 3; ++dx)
        s += in[(2 * y + dy) * w + 2 * x + dx];
    out[y * ow + x] = s / 9.0f;
  }
}

int main() {
  const int w = 1000, h = 700, ow = (w - 3) / 2 + 1, oh = (h - 3) / 2 + 1;
  float *in, *out;
  cudaMalloc(&in, sizeof(float) * w * h);
  cudaMalloc(&out, sizeof(float) * ow * oh);
  dim3 block(32, 8);
  dim3 grid((ow + 31) / 32, (oh + 7) / 8);
  avg3<<<grid, block>>>(out, in, w, h, ow, oh);
  cudaDeviceSynchronize();
  return 0;
}
