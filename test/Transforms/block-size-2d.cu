// RUN: cuda-opt --passes='block-size{x=32,y=8}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='block-size{x=64,y=4},launch-bounds' %s | FileCheck %s --check-prefix=COMPOSE
// RUN: not cuda-opt --passes='block-size{x=64,y=32}' %s 2>&1 | FileCheck %s --check-prefix=TOOBIG
// RUN: not cuda-opt --passes='block-size{x=48,y=3}' %s 2>&1 | FileCheck %s --check-prefix=WARP

// CHECK-LABEL: {{^}}__global__ void scale2d(
// CHECK-LABEL: {{^}}void run(
// CHECK: {{^}}  scale2d<<<dim3((w + 31) / 32, (h + 7) / 8), dim3(32, 8)>>>(out, in, w, h);

// COMPOSE: {{^}}__global__ void __launch_bounds__(256){{$}}
// COMPOSE-NEXT: {{^}}    scale2d(
// COMPOSE: {{^}}  scale2d<<<dim3((w + 63) / 64, (h + 3) / 4), dim3(64, 4)>>>(out, in, w, h);

// TOOBIG: kernel 'scale2d': a block of 64x32 = 2048 threads exceeds the CUDA limit of 1024
// WARP: kernel 'scale2d': a block of 48x3 = 144 threads is not a multiple of the warp size 32

__global__ void scale2d(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = 2.0f * in[y * w + x];
}

void run(float *out, const float *in, int w, int h) {
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  scale2d<<<grid, block>>>(out, in, w, h);
}
