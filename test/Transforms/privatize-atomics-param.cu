// RUN: cuda-opt --passes='privatize-atomics{copies=2,items=4,capacity=1024}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='privatize-atomics{copies=1,items=4,capacity=1024}' --kernel=constbins %s | FileCheck %s --check-prefix=CONST

// The bin count is a launch argument: the private copies hold 'capacity'
// counters, and a launch with more bins keeps the global atomics.
// CHECK-LABEL: {{^}}__global__ void parambins(
// CHECK-NEXT: {{^}}  if (nbins <= 1024) {
// CHECK-NEXT: {{^}}    // cuda-opt privatize-atomics{copies=2,items=4,capacity=1024}:
// CHECK-NEXT: {{^}}    // the block's atomics go to 2 private copies of 'bins[0..nbins-1]'
// CHECK: {{^}}    // Launches with more than 1024 bins ('nbins') keep the global atomics.
// CHECK: {{^}}    __shared__ int binsShared[2][1025];
// CHECK: {{^}}          atomicAdd(&binsShared[threadIdx.x % 2][v], 1);
// CHECK: {{^}}    for (int b = threadIdx.x; b < nbins; b += blockDim.x) {
// CHECK-NEXT: {{^}}      int total = binsShared[0][b] + binsShared[1][b];
// CHECK: {{^}}  } else {
// CHECK-NEXT: {{^}}    for (int c = 0; c < 4; ++c) {
// CHECK-NEXT: {{^}}      int i = (blockIdx.x * 4 + c) * blockDim.x + threadIdx.x;
// CHECK: {{^}}          atomicAdd(&bins[v], 1);
__global__ void parambins(int *bins, const int *data, int nbins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = data[i];
    if (v >= 0 && v < nbins)
      atomicAdd(&bins[v], 1);
  }
}

// 'nbins > b' bounds b too; an unsigned index needs no lower guard.
// CHECK-LABEL: {{^}}__global__ void reversed(
// CHECK: {{^}}  if (nbins <= 1024) {
// CHECK: {{^}}        atomicAdd(&binsShared[threadIdx.x % 2][b], w[i]);
__global__ void reversed(float *bins, const unsigned *key, const float *w,
                         int nbins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned b = key[i] >> 3;
    if (nbins > b)
      atomicAdd(&bins[b], w[i]);
  }
}

// A constant bound wins over the capacity, which then does not appear.
// CONST-LABEL: {{^}}__global__ void constbins(
// CONST: {{^}}  // cuda-opt privatize-atomics{copies=1,items=4}:
// CONST: {{^}}  __shared__ int binsShared[1][64];
__global__ void constbins(int *bins, const unsigned char *data, int nbins,
                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && data[i] < nbins)
    atomicAdd(&bins[data[i] & 63], 1);
}

void run(int *bins, float *fb, const int *d, const unsigned *k, const float *w,
         const unsigned char *c, int nbins, int n) {
  parambins<<<(n + 255) / 256, 256>>>(bins, d, nbins, n);
  reversed<<<(n + 255) / 256, 256>>>(fb, k, w, nbins, n);
  constbins<<<(n + 255) / 256, 256>>>(bins, c, nbins, n);
}
