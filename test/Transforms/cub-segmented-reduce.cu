// RUN: cuda-opt --fp-model=strict --passes=cub-segmented-reduce --kernel=row_max %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --fp-model=reassoc --passes=cub-segmented-reduce --kernel=seg_sum %s | FileCheck %s --check-prefix=SUM
// RUN: not cuda-opt --fp-model=strict --passes=cub-segmented-reduce --kernel=seg_sum %s 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: cuda-opt --passes=cub-segmented-reduce --kernel=seg_fmin %s | FileCheck %s --check-prefix=FMIN
// RUN: not cuda-opt --fp-model=strict --passes=cub-segmented-reduce --kernel=seg_fmin %s 2>&1 | FileCheck %s --check-prefix=STRICT-FMIN
// RUN: cuda-opt --fp-model=strict --passes=cub-segmented-reduce --kernel=seg_count %s | FileCheck %s --check-prefix=COUNT
// Every kernel at once; nvcc compiles CUB's host side too.
// RUN: cuda-opt --passes=cub-segmented-reduce %s -o %t.all.cu
// RUN: grep -c '^ *cudaMallocAsync(&cudaopt_segred_temp\|^ *CK(cudaMallocAsync(&cudaopt_segred_temp' %t.all.cu | FileCheck %s --check-prefix=ALL
// ALL: 4
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -std=c++17 -c %t.all.cu -o %t.all.o %}
// RUN: cuda-opt --list-regions %s | FileCheck %s --check-prefix=REGIONS

// cub-segmented-reduce: a kernel that gives each thread one segment and
// reduces it with +, max or min into the segment's output element is
// launched as CUB's segmented reduction, started from the kernel's initial
// value and combined with the kernel's own function.

#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>

#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("error: %s\n", cudaGetErrorString(e_));                      \
      return 1;                                                                \
    }                                                                          \
  } while (0)

// Fixed-length rows and an integer maximum: the rows' offsets are a
// transformed counting iterator, max is the kernel's, exact under strict.
// CHECK: #include <cub/device/device_segmented_reduce.cuh>
// CHECK: #include <thrust/iterator/counting_iterator.h>
// CHECK: #include <thrust/iterator/transform_iterator.h>
// CHECK-LABEL: // cuda-opt cub-segmented-reduce: row_max combined a segment's elements with max.
// CHECK-NEXT: struct cudaopt_row_max_op {
// CHECK-NEXT: __device__ int operator()(int a, int b) const { return max(a, b); }
// CHECK-NEXT: };
// CHECK: struct cudaopt_row_max_row_start {
// CHECK-NEXT: long long len;
// CHECK-NEXT: __host__ __device__ long long operator()(long long s) const {
// CHECK-NEXT: return s * len;
// CHECK-NEXT: }
// CHECK-NEXT: };
__global__ void row_max(const int *__restrict__ in, int *__restrict__ out,
                        int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  int m = -2147483647 - 1;
  for (int j = 0; j < cols; ++j)
    m = max(m, in[r * cols + j]);
  out[r] = m;
}

// CHECK-LABEL: int row_maxima(
// CHECK-NEXT: {
// CHECK-NEXT: // cuda-opt cub-segmented-reduce: row_max stored the maximum of segment s,
// CHECK-NEXT: // x[s * cols, (s + 1) * cols), into y[s] for each of the rows segments, one
// CHECK-NEXT: // thread per segment; CUB's segmented reduction spreads a segment over a
// CHECK-NEXT: // warp or a block (integers: the same result in any order).
// CHECK-NEXT: cudaopt_row_max_row_start cudaopt_segred_rows;
// CHECK-NEXT: cudaopt_segred_rows.len = cols;
// CHECK-NEXT: auto cudaopt_segred_begin = thrust::make_transform_iterator(
// CHECK-NEXT: thrust::make_counting_iterator<long long>(0), cudaopt_segred_rows);
// CHECK-NEXT: if (rows > 0) {
// CHECK-NEXT: size_t cudaopt_segred_bytes = 0;
// CHECK-NEXT: CK(cub::DeviceSegmentedReduce::Reduce(
// CHECK-NEXT: nullptr, cudaopt_segred_bytes, x, y, rows, cudaopt_segred_begin,
// CHECK-NEXT: cudaopt_segred_begin + 1, cudaopt_row_max_op(),
// CHECK-NEXT: (int)(-2147483647 - 1)));
// CHECK-NEXT: void *cudaopt_segred_temp = nullptr;
// CHECK-NEXT: CK(cudaMallocAsync(&cudaopt_segred_temp, cudaopt_segred_bytes, 0));
// CHECK-NEXT: CK(cub::DeviceSegmentedReduce::Reduce(
// CHECK-NEXT: cudaopt_segred_temp, cudaopt_segred_bytes, x, y, rows,
// CHECK-NEXT: cudaopt_segred_begin, cudaopt_segred_begin + 1, cudaopt_row_max_op(),
// CHECK-NEXT: (int)(-2147483647 - 1)));
// CHECK-NEXT: CK(cudaFreeAsync(cudaopt_segred_temp, 0));
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: CK(cudaGetLastError());
int row_maxima(const int *x, int *y, int rows, int cols) {
  row_max<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  CK(cudaGetLastError());
  return 0;
}

// CSR offsets and a float sum from +0.0: DeviceSegmentedReduce::Sum, which
// adds in another order (reassoc); strict refuses.
// SUM-LABEL: void csr_sums(
// SUM: // in[off[s], off[s + 1]), into out[s] for each of the nseg segments, one
// SUM: // warp or a block (float sums in another order: --fp-model=reassoc).
// SUM-NEXT: if (nseg > 0) {
// SUM-NEXT: size_t cudaopt_segred_bytes = 0;
// SUM-NEXT: cub::DeviceSegmentedReduce::Sum(nullptr, cudaopt_segred_bytes, in, out,
// SUM-NEXT: nseg, off, off + 1);
// SUM: cub::DeviceSegmentedReduce::Sum(cudaopt_segred_temp, cudaopt_segred_bytes, in,
// SUM-NEXT: out, nseg, off, off + 1);
// SUM-NEXT: cudaFreeAsync(cudaopt_segred_temp, 0);
// STRICT: pass 'cub-segmented-reduce' is not legal here:
// STRICT-NEXT: kernel 'seg_sum': the rewrite reorders floating-point reductions, {{.*}} (needs --fp-model=reassoc)
__global__ void seg_sum(const float *__restrict__ in,
                        const int *__restrict__ offsets,
                        float *__restrict__ out, int nseg) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < nseg) {
    float acc = 0.0f;
    for (int j = offsets[s]; j < offsets[s + 1]; ++j)
      acc += in[j];
    out[s] = acc;
  }
}

void csr_sums(const float *in, const int *off, float *out, int nseg) {
  seg_sum<<<(nseg + 127) / 128, 128>>>(in, off, out, nseg);
}

// Begin and end arrays read into locals, fminf from +infinity: Reduce with
// the kernel's fminf (NaNs skipped as the kernel skips them; which of two
// equal zeros is kept may change with the order: reassoc).
// FMIN-LABEL: struct cudaopt_seg_fmin_op {
// FMIN-NEXT: __device__ float operator()(float a, float b) const { return fminf(a, b); }
// FMIN-LABEL: void minima(
// FMIN: // v[starts[s], ends[s]), into m[s] for each of the k segments, one thread
// FMIN: cub::DeviceSegmentedReduce::Reduce(nullptr, cudaopt_segred_bytes, v, m, k,
// FMIN-NEXT: starts, ends, cudaopt_seg_fmin_op(),
// FMIN-NEXT: (float)(INFINITY));
// STRICT-FMIN: kernel 'seg_fmin': the rewrite reorders floating-point reductions
__global__ void seg_fmin(const float *__restrict__ in,
                         const long long *__restrict__ begin,
                         const long long *__restrict__ end,
                         float *__restrict__ out, int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    long long b = begin[s], e = end[s];
    float m = INFINITY;
    for (long long j = b; j < e; j++)
      m = fminf(m, in[j]);
    out[s] = m;
  }
}

void minima(const float *v, const long long *starts, const long long *ends,
            float *m, int k) {
  seg_fmin<<<(k + 255) / 256, 256>>>(v, starts, ends, m, k);
}

// An integer sum that starts at 1 (each segment's count plus one): Reduce
// with plus and the kernel's initial value, which empty segments keep.
// COUNT-LABEL: void count_rows(
// COUNT: cub::DeviceSegmentedReduce::Reduce(
// COUNT-NEXT: nullptr, cudaopt_segred_bytes, ones, counts, n, rowptr, rowptr + 1,
// COUNT-NEXT: cuda::std::plus<unsigned int>(), (unsigned int)(1u));
__global__ void seg_count(const unsigned *__restrict__ ones,
                          const int *__restrict__ rowptr,
                          unsigned *__restrict__ counts, int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    unsigned c = 1u;
    for (int j = rowptr[s]; j < rowptr[s + 1]; ++j)
      c = c + ones[j];
    counts[s] = c;
  }
}

void count_rows(const unsigned *ones, const int *rowptr, unsigned *counts,
                int n) {
  seg_count<<<(n + 255) / 256, 256>>>(ones, rowptr, counts, n);
}

// REGIONS: region in row_maxima at {{.*}}: 1 launch
// REGIONS-NEXT: launch row_max(x, y, _, _) at {{.*}} (maximum of each segment of x into y)
// REGIONS: region in csr_sums at {{.*}}: 1 launch
// REGIONS-NEXT: launch seg_sum(in, off, out, _) at {{.*}} (sum of each segment of in into out)
