// RUN: cuda-opt --passes=cub-scan --kernel=scan_blocks %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --fp-model=reassoc --passes=cub-scan --kernel=scan_blocks_f %s | FileCheck %s --check-prefix=FLOAT
// RUN: not cuda-opt --fp-model=strict --passes=cub-scan --kernel=scan_blocks_f %s 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: cuda-opt --list-regions %s | FileCheck %s --check-prefix=REGIONS

// cub-scan: a recursive scan-then-propagate prefix sum (a per-block
// Hillis-Steele scan that records each block's total, the function called
// again on the totals, a kernel adding the scanned totals back) becomes one
// call of CUB's device scan. Here the chunk is a literal, the load is an
// if/else, the CUDA calls are bare (so are the new ones), the function
// returns void, and the offsets kernel indexes by a chunk parameter.

#include <cuda_runtime.h>

__global__ void scan_blocks(long long *out, long long *totals,
                            const long long *in, int n) {
  __shared__ long long a[512];
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  if (gid < n)
    a[threadIdx.x] = in[gid];
  else
    a[threadIdx.x] = 0;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    long long v = threadIdx.x >= d ? a[threadIdx.x - d] : 0;
    __syncthreads();
    a[threadIdx.x] += v;
    __syncthreads();
  }
  if (threadIdx.x == blockDim.x - 1)
    totals[blockIdx.x] = a[threadIdx.x];
  if (gid < n)
    out[gid] = a[threadIdx.x];
}

__global__ void add_back(long long *out, const long long *scanned, int chunk,
                         int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= chunk && i < n)
    out[i] = out[i] + scanned[i / chunk - 1];
}

// CHECK: #include <cub/device/device_scan.cuh>
// CHECK-LABEL: void prefix_sum(long long *out, const long long *in, int n) {
// CHECK-NEXT: // cuda-opt cub-scan: the launches of scan_blocks and add_back
// CHECK: (integer sums: the same bits).
// CHECK-NEXT: size_t cudaopt_scan_bytes = 0;
// CHECK-NEXT: cub::DeviceScan::InclusiveSum(nullptr, cudaopt_scan_bytes, in, out, n);
// CHECK-NEXT: void *cudaopt_scan_temp = nullptr;
// CHECK-NEXT: cudaMallocAsync(&cudaopt_scan_temp, cudaopt_scan_bytes, 0);
// CHECK-NEXT: cub::DeviceScan::InclusiveSum(cudaopt_scan_temp, cudaopt_scan_bytes, in, out,
// CHECK-NEXT: n);
// CHECK-NEXT: cudaFreeAsync(cudaopt_scan_temp, 0);
// CHECK-NEXT: cudaDeviceSynchronize();
// CHECK-NEXT: }
void prefix_sum(long long *out, const long long *in, int n) {
  int blocks = (n + 511) / 512;
  long long *totals = nullptr;
  cudaMalloc(&totals, blocks * sizeof(long long));
  scan_blocks<<<blocks, 512>>>(out, totals, in, n);
  if (blocks > 1) {
    long long *scanned;
    cudaMalloc(&scanned, blocks * sizeof(long long));
    prefix_sum(scanned, totals, blocks);
    add_back<<<(n + 127) / 128, 128>>>(out, scanned, 512, n);
    cudaFree(scanned);
  }
  cudaDeviceSynchronize();
  cudaFree(totals);
}

// The same over floats: CUB sums them in double (its running prefix goes
// from tile to tile in sequence), in another order than the original, so
// --fp-model=strict refuses and reassoc allows it.
#define CHECKED(x) do { if ((x) != cudaSuccess) return 1; } while (0)
__global__ void scan_blocks_f(float *out, float *sums, const float *in,
                              int n) {
  __shared__ float t[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  t[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int off = 1; off < blockDim.x; off *= 2) {
    float v = 0.0f;
    if (tid >= off)
      v = t[tid - off];
    __syncthreads();
    t[tid] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = t[tid];
  if (tid == blockDim.x - 1)
    sums[blockIdx.x] = t[tid];
}

__global__ void add_sums_f(float *out, const float *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i >= 256)
    out[i] += sums[i / 256 - 1];
}

// FLOAT-LABEL: int scan_f(float *out, const float *in, int n) {
// FLOAT: (float sums accumulated in double, rounded once per
// FLOAT-NEXT: output: --fp-model=reassoc).
// FLOAT: CHECKED(cub::DeviceScan::InclusiveScan(nullptr, cudaopt_scan_bytes, in, out,
// FLOAT-NEXT: cuda::std::plus<double>(), n));
// FLOAT: CHECKED(cudaFreeAsync(cudaopt_scan_temp, 0));
// FLOAT-NEXT: return 0;
// FLOAT-NEXT: }
// STRICT: pass 'cub-scan' is not legal here:
// STRICT-NEXT: kernel 'scan_blocks_f': the rewrite reorders floating-point reductions, {{.*}} (needs --fp-model=reassoc)
int scan_f(float *out, const float *in, int n) {
  const int chunk = 256;
  const int blocks = (n + chunk - 1) / chunk;
  float *sums;
  CHECKED(cudaMalloc(&sums, blocks * sizeof(float)));
  scan_blocks_f<<<dim3(blocks), dim3(chunk)>>>(out, sums, in, n);
  CHECKED(cudaGetLastError());
  if (n > chunk) {
    float *scanned;
    CHECKED(cudaMalloc(&scanned, blocks * sizeof(float)));
    if (scan_f(scanned, sums, blocks))
      return 1;
    add_sums_f<<<blocks, chunk>>>(out, scanned, n);
    CHECKED(cudaFree(scanned));
  }
  CHECKED(cudaFree(sums));
  return 0;
}

// Host regions: a call of a scan function is one step that reads its input
// and writes its output.
// REGIONS: region in run at {{.*}}cub-scan.cu:[[@LINE+9]]:3: 0 launches, 1 call
// REGIONS-NEXT: call prefix_sum(y, x, _) at {{.*}} (inclusive prefix sum of x into y)
// REGIONS-NEXT: buffer y: written, live-out
// REGIONS-NEXT: buffer x: read, live-in, live-out
// REGIONS: region in run at {{.*}}: 0 launches, 1 call
// REGIONS-NEXT: call scan_f(fy, fx, _) at
void run(long long *x, long long *y, float *fx, float *fy, int n) {
  long long *tmp;
  cudaMalloc(&tmp, n * sizeof(long long));
  prefix_sum(y, x, n);
  cudaFree(tmp);
  if (scan_f(fy, fx, n))
    return;
}
