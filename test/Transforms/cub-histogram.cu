// RUN: cuda-opt --passes=cub-histogram --kernel=hist8 %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --fp-model=strict --passes=cub-histogram --kernel=hist_guarded %s -o %t.guarded.cu
// RUN: FileCheck %s --check-prefix=GUARDED < %t.guarded.cu
// RUN: %cuda_compile %t.guarded.cu
// RUN: cuda-opt --fp-model=strict --passes=cub-histogram --kernel=hist_float %s -o %t.float.cu
// RUN: FileCheck %s --check-prefix=FLOAT < %t.float.cu
// RUN: cuda-opt --passes=cub-histogram --kernel=hist_weighted %s -o %t.weighted.cu
// RUN: FileCheck %s --check-prefix=WEIGHTED < %t.weighted.cu
// RUN: cuda-opt --fp-model=strict --passes=cub-histogram --kernel=hist_stride %s | FileCheck %s --check-prefix=STRIDE
// Every kernel at once; nvcc compiles CUB's host side too.
// RUN: cuda-opt --passes=cub-histogram %s -o %t.all.cu
// RUN: grep -c '^ *cudaoptAddCounts<<<' %t.all.cu | FileCheck %s --check-prefix=ALL
// ALL: 4
// RUN: %if nvcc %{ %nvcc -arch=sm_90 -std=c++17 -c %t.all.cu -o %t.all.o %}
// RUN: cuda-opt --list-regions %s | FileCheck %s --check-prefix=REGIONS

// cub-histogram: a kernel that counts each element into a bin with one
// global atomicAdd is launched as CUB's device histogram. The counts go to
// scratch counters that are then added to the histogram, which keeps what
// the original added to.

#include <cuda_runtime.h>
#include <cstdio>

#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("error: %s\n", cudaGetErrorString(e_));                      \
      return 1;                                                                \
    }                                                                          \
  } while (0)

// The bytes are the bins: CUB reads them directly, levels 0 .. 256. The
// histogram is zeroed just before, so CUB writes its counts there (no
// scratch counters and no adding kernel).
// CHECK: #include <cub/device/device_histogram.cuh>
// CHECK-NOT: {{#include <thrus[t]}}
// CHECK-NOT: {{cudaoptAddCount[s]}}
__global__ void hist8(unsigned int *bins, const unsigned char *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1u);
}

// CHECK-LABEL: int count_bytes(
// CHECK: CK(cudaMemset(bins, 0, 256 * sizeof(unsigned int)));
// CHECK-NEXT: {
// CHECK-NEXT: // cuda-opt cub-histogram: hist8 counted each of the n elements into bins[0,
// CHECK-NEXT: // 256) with atomicAdd; bins is zeroed just before, so CUB's histogram
// CHECK-NEXT: // writes the same counts there (integer counts: the same bits).
// CHECK-NEXT: if (n > 0) {
// CHECK-NEXT: size_t cudaopt_hist_bytes = 0;
// CHECK-NEXT: CK(cub::DeviceHistogram::HistogramEven(nullptr, cudaopt_hist_bytes, data,
// CHECK-NEXT: bins, 257, 0, 256, n));
// CHECK-NEXT: void *cudaopt_hist_temp = nullptr;
// CHECK-NEXT: CK(cudaMallocAsync(&cudaopt_hist_temp, cudaopt_hist_bytes, 0));
// CHECK-NEXT: CK(cub::DeviceHistogram::HistogramEven(
// CHECK-NEXT: cudaopt_hist_temp, cudaopt_hist_bytes, data, bins, 257, 0, 256, n));
// CHECK-NEXT: CK(cudaFreeAsync(cudaopt_hist_temp, 0));
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: CK(cudaGetLastError());
int count_bytes(unsigned int *bins, const unsigned char *data, int n) {
  CK(cudaMemset(bins, 0, 256 * sizeof(unsigned int)));
  hist8<<<(n + 255) / 256, 256>>>(bins, data, n);
  CK(cudaGetLastError());
  return 0;
}

// A guard that skips values outside [0, nbins): the samples are the
// kernel's own work with the update replaced by 'return bin;' (-1, which
// CUB drops, on every other path), levels 0 .. nbins. Integer counts are
// exact under strict. Bare CUDA calls stay bare.
// GUARDED: #include <thrust/iterator/counting_iterator.h>
// GUARDED: #include <thrust/iterator/transform_iterator.h>
// GUARDED-LABEL: // cuda-opt cub-histogram: the bin hist_guarded counts element i in (-1: none);
// GUARDED-NEXT: // the samples cub::DeviceHistogram counts.
// GUARDED-NEXT: struct cudaopt_hist_guarded_bin {
// GUARDED-NEXT: const int *data;
// GUARDED-NEXT: int nbins;
// GUARDED-NEXT: int n;
// GUARDED-NEXT: __device__ long long operator()(int i) const {
// GUARDED-NEXT: {
// GUARDED-NEXT: int v = data[i];
// GUARDED-NEXT: if (v >= 0 && v < nbins)
// GUARDED-NEXT: return (long long)(v);
// GUARDED-NEXT: }
// GUARDED-NEXT: return -1;
// GUARDED-NEXT: }
// GUARDED-NEXT: };
__global__ void hist_guarded(int *bins, const int *data, int nbins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = data[i];
    if (v >= 0 && v < nbins)
      atomicAdd(&bins[v], 1);
  }
}

// GUARDED-LABEL: void count_ints(
// GUARDED: cudaopt_hist_guarded_bin cudaopt_hist_bin;
// GUARDED-NEXT: cudaopt_hist_bin.data = data;
// GUARDED-NEXT: cudaopt_hist_bin.nbins = nbins;
// GUARDED-NEXT: cudaopt_hist_bin.n = count;
// GUARDED-NEXT: auto cudaopt_hist_samples = thrust::make_transform_iterator(
// GUARDED-NEXT: thrust::make_counting_iterator<int>(0), cudaopt_hist_bin);
// GUARDED-NEXT: if (count > 0 && nbins > 0) {
// GUARDED: cudaMallocAsync(&cudaopt_hist_temp, cudaopt_hist_bytes, 0);
// GUARDED: cub::DeviceHistogram::HistogramEven(
// GUARDED-NEXT: cudaopt_hist_temp, cudaopt_hist_bytes, cudaopt_hist_samples,
// GUARDED-NEXT: cudaopt_hist_counts, (int)nbins + 1, 0LL, (long long)nbins, count);
// GUARDED-NEXT: cudaoptAddCounts<<<(unsigned)(((long long)nbins + 255) / 256), 256>>>(
// GUARDED-NEXT: bins, cudaopt_hist_counts, (long long)nbins, 1);
// GUARDED-NEXT: cudaGetLastError();
void count_ints(int *bins, const int *data, int nbins, int count) {
  hist_guarded<<<(count + 127) / 128, 128>>>(bins, data, nbins, count);
}

// Float data binned by the kernel's own expression (clamped): CUB never
// scales a float, so the bins are the original's for every value,
// NaN included ((int)NaN is whatever the kernel's conversion gives, then
// clamped, on the same device).
// FLOAT: struct cudaopt_hist_float_bin {
// FLOAT: __device__ long long operator()(int i) const {
// FLOAT-NEXT: if (!(x[i] >= lo))
// FLOAT-NEXT: return -1;
// FLOAT-NEXT: {
// FLOAT-NEXT: int b = min(max((int)((x[i] - lo) * 64.0f), 0), 63);
// FLOAT-NEXT: return (long long)(b);
// FLOAT-NEXT: }
// FLOAT-NEXT: return -1;
// FLOAT-NEXT: }
// FLOAT: cudaopt_hist_counts, 65, 0LL, (long long)64, n);
__global__ void hist_float(unsigned int *bins, const float *x, float lo,
                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] >= lo) {
    int b = min(max((int)((x[i] - lo) * 64.0f), 0), 63);
    atomicAdd(&bins[b], 1u);
  }
}

void count_floats(unsigned int *bins, const float *x, int n) {
  hist_float<<<(n + 255) / 256, 256>>>(bins, x, 0.0f, n);
}

// A weight from a parameter, 64-bit counters, an early-return guard and
// atomicInc-free 'bins + idx' addressing: the scratch counts are 64-bit and
// multiplied by the weight when they are added.
// WEIGHTED: __device__ long long operator()(long long i) const {
// WEIGHTED-NEXT: {
// WEIGHTED-NEXT: return (long long)(((data[i] >> 4) & 7));
// WEIGHTED: unsigned long long *cudaopt_hist_counts = nullptr;
// WEIGHTED: cudaopt_hist_counts, 9, 0LL, (long long)8, m);
// WEIGHTED: cudaoptAddCounts<<<(unsigned)(((long long)8 + 255) / 256), 256>>>(
// WEIGHTED-NEXT: out, cudaopt_hist_counts, (long long)8, w);
__global__ void hist_weighted(unsigned long long *bins,
                              const unsigned int *data, unsigned long long w,
                              long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  atomicAdd(bins + ((data[i] >> 4) & 7), w);
}

void weigh(unsigned long long *out, const unsigned int *data,
           unsigned long long w, long long m) {
  hist_weighted<<<(m + 255) / 256, 256>>>(out, data, w, m);
}

// A grid-stride loop over a grid sized to the GPU: any 1-D grid gives each
// element to one thread once, so only the loop's count matters.
// STRIDE-LABEL: struct cudaopt_hist_stride_bin {
// STRIDE: __device__ long long operator()(int i) const {
// STRIDE-NEXT: {
// STRIDE-NEXT: int b = (int)(x[i] * nbins);
// STRIDE-NEXT: if (b >= 0 && b < nbins)
// STRIDE-NEXT: return (long long)(b);
// STRIDE-NEXT: }
// STRIDE-NEXT: return -1;
// STRIDE-LABEL: void count_stride(
// STRIDE: cudaopt_hist_bin.n = n;
// STRIDE: if (n > 0 && nbins > 0) {
// STRIDE: cudaopt_hist_counts, (int)nbins + 1, 0LL, (long long)nbins, n);
__global__ void hist_stride(int *bins, const float *x, int nbins, int n) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    int b = (int)(x[i] * nbins);
    if (b >= 0 && b < nbins)
      atomicAdd(&bins[b], 1);
  }
}

void count_stride(int *bins, const float *x, int nbins, int n) {
  hist_stride<<<132 * 8, 256>>>(bins, x, nbins, n);
}

// REGIONS: region in count_bytes at {{.*}}: 1 launch
// REGIONS-NEXT: memset(bins) at
// REGIONS-NEXT: launch hist8(bins, data, _) at {{.*}} (histogram of n elements added to bins[0, 256))
// REGIONS: region in count_ints at {{.*}}: 1 launch
// REGIONS-NEXT: launch hist_guarded(bins, data, _, _) at {{.*}} (histogram of count elements added to bins[0, nbins))
