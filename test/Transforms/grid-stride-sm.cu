// RUN: cuda-opt --passes='grid-stride{blocks-per-sm=4}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='grid-stride{blocks-per-sm=2},launch-bounds' %s | FileCheck %s --check-prefix=COMPOSE

// The helper is emitted once, above the first launching function and its
// comment, and every launch's grid goes through it.
// CHECK-LABEL: {{^ *}}__global__ void scale(
// CHECK: {{^ *}}for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
// CHECK-LABEL: {{^ *}}__global__ void add(
// CHECK: {{^ *}}for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
// CHECK: {{^ *}}/// Added by cuda-opt grid-stride
// CHECK: {{^ *}}static unsigned cudaOptGridStrideBlocks(unsigned Blocks, unsigned BlocksPerSM) {
// CHECK: {{^ *}}cudaDeviceGetAttribute(&SMs, cudaDevAttrMultiProcessorCount,
// CHECK: {{^ *}}// Runs both kernels.
// CHECK-NEXT: {{^ *}}void run(
// CHECK: {{^ *}}scale<<<cudaOptGridStrideBlocks((n + 255) / 256, 4), 256>>>(p, n);
// CHECK: {{^ *}}add<<<dim3(cudaOptGridStrideBlocks(grid.x, 4), grid.y, grid.z), 128>>>(p, p,
// CHECK-NOT: {{^}}static unsigned cudaOptGridStrideBlocks

// COMPOSE: {{^ *}}__global__ void __launch_bounds__(256) scale(
// COMPOSE: {{^ *}}__global__ void __launch_bounds__(128){{$}}
// COMPOSE-NEXT: {{^ *}}add(
// COMPOSE: {{^ *}}scale<<<cudaOptGridStrideBlocks((n + 255) / 256, 2), 256>>>

__global__ void scale(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i] *= 2.0f;
  }
}

__global__ void add(float *out, const float *in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] += in[i];
}

// Runs both kernels.
void run(float *p, int n) {
  scale<<<(n + 255) / 256, 256>>>(p, n);
  dim3 grid((n + 127) / 128);
  add<<<grid, 128>>>(p, p, n);
}
