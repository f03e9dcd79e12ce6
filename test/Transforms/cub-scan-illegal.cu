// RUN: not cuda-opt --passes=cub-scan --kernel=scan_OFFBYONE %s 2>&1 | FileCheck %s --check-prefix=OFFBYONE
// RUN: not cuda-opt --passes=cub-scan --kernel=scan_UNPADDED %s 2>&1 | FileCheck %s --check-prefix=UNPADDED
// RUN: not cuda-opt --passes=cub-scan --kernel=scan_SHORTGRID %s 2>&1 | FileCheck %s --check-prefix=SHORTGRID
// RUN: not cuda-opt --passes=cub-scan --kernel=scan_CHUNK %s 2>&1 | FileCheck %s --check-prefix=CHUNK
// RUN: not cuda-opt --passes=cub-scan --kernel=scan_NORECURSE %s 2>&1 | FileCheck %s --check-prefix=NORECURSE
// RUN: not cuda-opt --passes=cub-scan --kernel=scan_SWAPPED %s 2>&1 | FileCheck %s --check-prefix=SWAPPED
// RUN: not cuda-opt --passes=cub-scan --kernel=scan_EXTRA %s 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: not cuda-opt --fp-model=reassoc --passes=cub-scan --kernel=scan_DOUBLE %s 2>&1 | FileCheck %s --check-prefix=DOUBLE

// cub-scan's refusals: each function below differs from a correct
// scan-then-propagate prefix sum in one way that changes its result or
// hides it from the analysis.

#include <cuda_runtime.h>

void scan_totals_on_host(int *out, const int *in, int n);
__global__ void touch(int *p) { p[0] = 1; }

// The OFFBYONE case: the offsets kernel adds the total of its own block (scanned[i / chunk]), not of the blocks before.
// OFFBYONE: kernel 'add_OFFBYONE' adds scanned[i / chunk], not the total of the blocks before, scanned[i / chunk - 1]
__global__ void scan_OFFBYONE(int *out, int *sums, const int *in, int n) {
  __shared__ int t[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  t[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    int v = 0;
    if (tid >= d)
      v = t[tid - d];
    __syncthreads();
    t[tid] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = t[tid];
  if (tid == blockDim.x - 1)
    sums[blockIdx.x] = t[tid];
}

__global__ void add_OFFBYONE(int *out, const int *scanned, int chunk, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i >= chunk)
    out[i] += scanned[i / chunk];
}

int host_OFFBYONE(int *out, const int *in, int n) {
  int blocks = (n + 255) / 256;
  int *sums;
  cudaMalloc(&sums, blocks * sizeof(int));
  scan_OFFBYONE<<<blocks, 256>>>(out, sums, in, n);
  if (blocks > 1) {
    int *scanned;
    cudaMalloc(&scanned, blocks * sizeof(int));
    host_OFFBYONE(scanned, sums, blocks);
    add_OFFBYONE<<<(n + 255) / 256, 256>>>(out, scanned, 256, n);
    cudaFree(scanned);
  }
  cudaFree(sums);
  return 0;
}

// The UNPADDED case: the block scan reads past n (no zero padding).
// UNPADDED: kernel 'scan_UNPADDED': 't[tid] = in[i]' is not the load of the block's elements padded with zeros past n
__global__ void scan_UNPADDED(int *out, int *sums, const int *in, int n) {
  __shared__ int t[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  t[tid] = in[i];
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    int v = 0;
    if (tid >= d)
      v = t[tid - d];
    __syncthreads();
    t[tid] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = t[tid];
  if (tid == blockDim.x - 1)
    sums[blockIdx.x] = t[tid];
}

__global__ void add_UNPADDED(int *out, const int *scanned, int chunk, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i >= chunk)
    out[i] += scanned[i / chunk - 1];
}

int host_UNPADDED(int *out, const int *in, int n) {
  int blocks = (n + 255) / 256;
  int *sums;
  cudaMalloc(&sums, blocks * sizeof(int));
  scan_UNPADDED<<<blocks, 256>>>(out, sums, in, n);
  if (blocks > 1) {
    int *scanned;
    cudaMalloc(&scanned, blocks * sizeof(int));
    host_UNPADDED(scanned, sums, blocks);
    add_UNPADDED<<<(n + 255) / 256, 256>>>(out, scanned, 256, n);
    cudaFree(scanned);
  }
  cudaFree(sums);
  return 0;
}

// The SHORTGRID case: the offsets kernel's grid misses the last partial block.
// SHORTGRID: function 'host_SHORTGRID': the offset addition's grid does not cover 'n' threads
__global__ void scan_SHORTGRID(int *out, int *sums, const int *in, int n) {
  __shared__ int t[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  t[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    int v = 0;
    if (tid >= d)
      v = t[tid - d];
    __syncthreads();
    t[tid] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = t[tid];
  if (tid == blockDim.x - 1)
    sums[blockIdx.x] = t[tid];
}

__global__ void add_SHORTGRID(int *out, const int *scanned, int chunk, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i >= chunk)
    out[i] += scanned[i / chunk - 1];
}

int host_SHORTGRID(int *out, const int *in, int n) {
  int blocks = (n + 255) / 256;
  int *sums;
  cudaMalloc(&sums, blocks * sizeof(int));
  scan_SHORTGRID<<<blocks, 256>>>(out, sums, in, n);
  if (blocks > 1) {
    int *scanned;
    cudaMalloc(&scanned, blocks * sizeof(int));
    host_SHORTGRID(scanned, sums, blocks);
    add_SHORTGRID<<<n / 256, 256>>>(out, scanned, 256, n);
    cudaFree(scanned);
  }
  cudaFree(sums);
  return 0;
}

// The CHUNK case: the offsets kernel's chunk is not the block scan's.
// CHUNK: function 'host_CHUNK': kernel 'add_CHUNK' adds totals per 128 elements, the block scan scans 256
__global__ void scan_CHUNK(int *out, int *sums, const int *in, int n) {
  __shared__ int t[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  t[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    int v = 0;
    if (tid >= d)
      v = t[tid - d];
    __syncthreads();
    t[tid] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = t[tid];
  if (tid == blockDim.x - 1)
    sums[blockIdx.x] = t[tid];
}

__global__ void add_CHUNK(int *out, const int *scanned, int chunk, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i >= chunk)
    out[i] += scanned[i / chunk - 1];
}

int host_CHUNK(int *out, const int *in, int n) {
  int blocks = (n + 255) / 256;
  int *sums;
  cudaMalloc(&sums, blocks * sizeof(int));
  scan_CHUNK<<<blocks, 256>>>(out, sums, in, n);
  if (blocks > 1) {
    int *scanned;
    cudaMalloc(&scanned, blocks * sizeof(int));
    host_CHUNK(scanned, sums, blocks);
    add_CHUNK<<<(n + 255) / 256, 256>>>(out, scanned, 128, n);
    cudaFree(scanned);
  }
  cudaFree(sums);
  return 0;
}

// The NORECURSE case: the block totals are scanned by another function, whose result cuda-opt cannot see.
// NORECURSE: function 'host_NORECURSE': 'if (blocks > 1) {' calls 'scan_totals_on_host', which cub-scan does not model
__global__ void scan_NORECURSE(int *out, int *sums, const int *in, int n) {
  __shared__ int t[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  t[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    int v = 0;
    if (tid >= d)
      v = t[tid - d];
    __syncthreads();
    t[tid] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = t[tid];
  if (tid == blockDim.x - 1)
    sums[blockIdx.x] = t[tid];
}

__global__ void add_NORECURSE(int *out, const int *scanned, int chunk, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i >= chunk)
    out[i] += scanned[i / chunk - 1];
}

int host_NORECURSE(int *out, const int *in, int n) {
  int blocks = (n + 255) / 256;
  int *sums;
  cudaMalloc(&sums, blocks * sizeof(int));
  scan_NORECURSE<<<blocks, 256>>>(out, sums, in, n);
  if (blocks > 1) {
    int *scanned;
    cudaMalloc(&scanned, blocks * sizeof(int));
    scan_totals_on_host(scanned, sums, blocks);
    add_NORECURSE<<<(n + 255) / 256, 256>>>(out, scanned, 256, n);
    cudaFree(scanned);
  }
  cudaFree(sums);
  return 0;
}

// The SWAPPED case: the recursion scans the output instead of the block totals.
// SWAPPED: function 'host_SWAPPED''s recursive call does not scan the block totals 'sums' into a temporary of its own
__global__ void scan_SWAPPED(int *out, int *sums, const int *in, int n) {
  __shared__ int t[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  t[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    int v = 0;
    if (tid >= d)
      v = t[tid - d];
    __syncthreads();
    t[tid] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = t[tid];
  if (tid == blockDim.x - 1)
    sums[blockIdx.x] = t[tid];
}

__global__ void add_SWAPPED(int *out, const int *scanned, int chunk, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i >= chunk)
    out[i] += scanned[i / chunk - 1];
}

int host_SWAPPED(int *out, const int *in, int n) {
  int blocks = (n + 255) / 256;
  int *sums;
  cudaMalloc(&sums, blocks * sizeof(int));
  scan_SWAPPED<<<blocks, 256>>>(out, sums, in, n);
  if (blocks > 1) {
    int *scanned;
    cudaMalloc(&scanned, blocks * sizeof(int));
    host_SWAPPED(scanned, out, blocks);
    add_SWAPPED<<<(n + 255) / 256, 256>>>(out, scanned, 256, n);
    cudaFree(scanned);
  }
  cudaFree(sums);
  return 0;
}

// The EXTRA case: the function launches a third kernel.
// EXTRA: function 'host_EXTRA' launches 3 kernels, not a block scan and an offset addition
__global__ void scan_EXTRA(int *out, int *sums, const int *in, int n) {
  __shared__ int t[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  t[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    int v = 0;
    if (tid >= d)
      v = t[tid - d];
    __syncthreads();
    t[tid] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = t[tid];
  if (tid == blockDim.x - 1)
    sums[blockIdx.x] = t[tid];
}

__global__ void add_EXTRA(int *out, const int *scanned, int chunk, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i >= chunk)
    out[i] += scanned[i / chunk - 1];
}

int host_EXTRA(int *out, const int *in, int n) {
  int blocks = (n + 255) / 256;
  int *sums;
  cudaMalloc(&sums, blocks * sizeof(int));
  scan_EXTRA<<<blocks, 256>>>(out, sums, in, n);
  touch<<<1, 1>>>(out);
  if (blocks > 1) {
    int *scanned;
    cudaMalloc(&scanned, blocks * sizeof(int));
    host_EXTRA(scanned, sums, blocks);
    add_EXTRA<<<(n + 255) / 256, 256>>>(out, scanned, 256, n);
    cudaFree(scanned);
  }
  cudaFree(sums);
  return 0;
}

// The DOUBLE case: a double scan has no wider type for CUB's running prefix.
// DOUBLE: function 'host_DOUBLE' sums 'double': CUB's running prefix would add its tiles in sequence
__global__ void scan_DOUBLE(double *out, double *sums, const double *in, int n) {
  __shared__ double t[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  t[tid] = i < n ? in[i] : 0.0;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    double v = 0.0;
    if (tid >= d)
      v = t[tid - d];
    __syncthreads();
    t[tid] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = t[tid];
  if (tid == blockDim.x - 1)
    sums[blockIdx.x] = t[tid];
}

__global__ void add_DOUBLE(double *out, const double *scanned, int chunk, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i >= chunk)
    out[i] += scanned[i / chunk - 1];
}

int host_DOUBLE(double *out, const double *in, int n) {
  int blocks = (n + 255) / 256;
  double *sums;
  cudaMalloc(&sums, blocks * sizeof(double));
  scan_DOUBLE<<<blocks, 256>>>(out, sums, in, n);
  if (blocks > 1) {
    double *scanned;
    cudaMalloc(&scanned, blocks * sizeof(double));
    host_DOUBLE(scanned, sums, blocks);
    add_DOUBLE<<<(n + 255) / 256, 256>>>(out, scanned, 256, n);
    cudaFree(scanned);
  }
  cudaFree(sums);
  return 0;
}
