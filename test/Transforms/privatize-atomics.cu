// RUN: cuda-opt --passes='privatize-atomics{copies=4,items=8}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='privatize-atomics{copies=1,items=1}' --kernel=histogram %s | FileCheck %s --check-prefix=ONE

// The corpus histogram: an 8-bit index, 256 bins.
// CHECK-LABEL: {{^}}__global__ void histogram(
// CHECK-NEXT: {{^}}  // cuda-opt privatize-atomics{copies=4,items=8}:
// CHECK-NEXT: {{^}}  // the block's atomics go to 4 private copies of 'bins[0..255]'
// CHECK-NEXT: {{^}}  // in shared memory; each changed counter is folded into 'bins'
// CHECK-NEXT: {{^}}  // once at the end.
// CHECK-NEXT: {{^}}  // Thread t uses copy t % 4; each copy is padded by one counter
// CHECK-NEXT: {{^}}  // so that a bin's copies sit in different banks.
// CHECK-NEXT: {{^}}  __shared__ unsigned int binsShared[4][257];
// CHECK-NEXT: {{^}}  for (int b = threadIdx.x; b < 1028; b += blockDim.x)
// CHECK-NEXT: {{^}}    (&binsShared[0][0])[b] = 0u;
// CHECK-NEXT: {{^}}  __syncthreads();
// CHECK-NEXT: {{^}}  for (int c = 0; c < 8; ++c) {
// CHECK-NEXT: {{^}}    int i = (blockIdx.x * 8 + c) * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}    if (i < n)
// CHECK-NEXT: {{^}}      atomicAdd(&binsShared[threadIdx.x % 4][data[i]], 1u);
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}  __syncthreads();
// CHECK-NEXT: {{^}}  // One update of 'bins' per changed counter.
// CHECK-NEXT: {{^}}  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
// CHECK-NEXT: {{^}}    unsigned int total = binsShared[0][b] + binsShared[1][b] + binsShared[2][b] +
// CHECK-NEXT: {{^}}                         binsShared[3][b];
// CHECK-NEXT: {{^}}    if (total != 0u)
// CHECK-NEXT: {{^}}      atomicAdd(&bins[b], total);
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
// ONE-LABEL: {{^}}__global__ void histogram(
// ONE: {{^}}  __shared__ unsigned int binsShared[1][256];
// ONE: {{^}}      atomicAdd(&binsShared[0][data[i]], 1u);
// ONE: {{^}}    unsigned int total = binsShared[0][b];
// ONE: {{^}}  histogram<<<(n + 255) / 256, 256>>>(bins, d, n);
__global__ void histogram(unsigned int *bins, const unsigned char *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1u);
}

// The range comes from the guard (b < 48) over 'key[i] & 63u'; the name
// 'b' is taken, so the counter loop uses 'b2'; atomicInc(p, ~0u) adds one.
// CHECK-LABEL: {{^}}__global__ void lowBits(
// CHECK: {{^}}  __shared__ unsigned int binsShared[4][49];
// CHECK: {{^}}    if (i >= n)
// CHECK-NEXT: {{^}}      continue;
// CHECK-NEXT: {{^}}    unsigned b = key[i] & 63u;
// CHECK-NEXT: {{^}}    if (b < 48u)
// CHECK-NEXT: {{^}}      atomicInc(&binsShared[threadIdx.x % 4][b], ~0u);
// CHECK: {{^}}  for (int b2 = threadIdx.x; b2 < 48; b2 += blockDim.x) {
// CHECK: {{^}}      atomicAdd(&bins[b2], total);
// 48 bins from the low bits and a guard; early return; atomicInc(p, ~0u).
__global__ void lowBits(unsigned *bins, const unsigned *key, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned b = key[i] & 63u;
  if (b < 48u)
    atomicInc(&bins[b], ~0u);
}

// An int maximum at 'best + data[i] % 32': identity INT_MIN, flushed with
// atomicMax.
// CHECK-LABEL: {{^}}__global__ void binMax(
// CHECK: {{^}}  __shared__ int bestShared[4][33];
// CHECK: {{^}}    (&bestShared[0][0])[b] = (-2147483647 - 1);
// CHECK: {{^}}      atomicMax(&bestShared[threadIdx.x % 4][data[i] % 32], v[i]);
// CHECK: {{^}}        max(max(max(bestShared[0][b], bestShared[1][b]), bestShared[2][b]),
// CHECK: {{^}}    if (total != (-2147483647 - 1))
// CHECK-NEXT: {{^}}      atomicMax(&best[b], total);
__global__ void binMax(int *best, const unsigned char *data, const int *v,
                       int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMax(best + data[i] % 32, v[i]);
}

// A float histogram (reassociated sums): 16 bins from 'data[i] >> 4'.
// CHECK-LABEL: {{^}}__global__ void weighted(
// CHECK: {{^}}  __shared__ float wsumShared[4][17];
// CHECK: {{^}}      atomicAdd(&wsumShared[threadIdx.x % 4][data[i] >> 4], w[i]);
// CHECK: {{^}}    if (total != 0.0f)
// CHECK-NEXT: {{^}}      atomicAdd(&wsum[b], total);
__global__ void weighted(float *wsum, const unsigned char *data,
                         const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&wsum[data[i] >> 4], w[i]);
}

// CHECK-LABEL: {{^}}void run(
// CHECK: {{^}}  histogram<<<((n + 255) / 256 + 7) / 8, 256>>>(bins, d, n);
// CHECK-NEXT: {{^}}  lowBits<<<((n + 127) / 128 + 7) / 8, 128>>>(bins, k, n);
// CHECK-NEXT: {{^}}  binMax<<<((n + 255) / 256 + 7) / 8, 256>>>(best, d, v, n);
// CHECK-NEXT: {{^}}  weighted<<<((n + 255) / 256 + 7) / 8, 256>>>(ws, d, w, n);
void run(unsigned *bins, int *best, float *ws, const unsigned char *d,
         const unsigned *k, const int *v, const float *w, int n) {
  histogram<<<(n + 255) / 256, 256>>>(bins, d, n);
  lowBits<<<(n + 127) / 128, 128>>>(bins, k, n);
  binMax<<<(n + 255) / 256, 256>>>(best, d, v, n);
  weighted<<<(n + 255) / 256, 256>>>(ws, d, w, n);
}
