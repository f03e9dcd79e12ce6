// RUN: cuda-opt --passes=cub-sort --kernel=step_up %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --fp-model=strict --passes=cub-sort --kernel=step_down %s | FileCheck %s --check-prefix=DOWN
// RUN: cuda-opt --fp-model=fast --passes=cub-sort --kernel=step_f %s | FileCheck %s --check-prefix=FLOAT
// RUN: not cuda-opt --fp-model=reassoc --passes=cub-sort --kernel=step_f %s 2>&1 | FileCheck %s --check-prefix=REASSOC
// RUN: cuda-opt --fp-model=strict --passes=cub-sort --kernel=step_guard %s | FileCheck %s --check-prefix=GUARD
// RUN: cuda-opt --fp-model=strict --passes=cub-sort --kernel=step_and %s | FileCheck %s --check-prefix=AND
// RUN: cuda-opt --list-regions %s | FileCheck %s --check-prefix=REGIONS

// cub-sort: a host loop nest that sorts with a bitonic network (one launch
// of a compare-exchange kernel per stage) keeps its loops as the fallback
// and calls CUB's radix sort when the network would sort (n a power of two,
// one thread per key). Three spellings: the widely copied one (counters
// declared first, `if ((i & k) != 0)` for the second half, `j = j >> 1`),
// an `else` with the comparisons reversed (descending, 64-bit keys, a
// synchronisation after each stage, kept after the sort), and
// float keys (only under --fp-model=fast).

#include <cuda_runtime.h>

__global__ void step_up(int *values, int j, int k) {
  unsigned int i, ixj;
  i = threadIdx.x + blockDim.x * blockIdx.x;
  ixj = i ^ j;
  if ((ixj) > i) {
    if ((i & k) == 0) {
      if (values[i] > values[ixj]) {
        int temp = values[i];
        values[i] = values[ixj];
        values[ixj] = temp;
      }
    }
    if ((i & k) != 0) {
      if (values[i] < values[ixj]) {
        int temp = values[i];
        values[i] = values[ixj];
        values[ixj] = temp;
      }
    }
  }
}

void sort_up(int *d, int n) {
  dim3 blocks(n / 256, 1);
  dim3 threads(256, 1);
  int j, k;
  for (k = 2; k <= n; k <<= 1) {
    for (j = k >> 1; j > 0; j = j >> 1) {
      step_up<<<blocks, threads>>>(d, j, k);
    }
  }
  cudaDeviceSynchronize();
}

// CHECK: #include <cub/device/device_radix_sort.cuh>
// CHECK: static bool cudaoptBitonicSorts(long long N, dim3 Grid, dim3 Block,
// CHECK: static cudaError_t cudaoptSortKeys(Key *Keys, long long N, bool Descending) {
// CHECK: cub::DeviceRadixSort::SortKeys(Scratch, ScratchBytes,
// CHECK-LABEL: void sort_up(int *d, int n) {
// CHECK: // cuda-opt cub-sort: these loops sort d[0, n) ascending with a bitonic
// CHECK-NEXT: // network, one launch of step_up per stage; CUB's radix sort gives the same
// CHECK: if (cudaoptBitonicSorts((long long)(n), dim3(blocks), dim3(threads)) &&
// CHECK-NEXT: cudaoptSortKeys(d, (long long)(n), false) == cudaSuccess) {
// CHECK-NEXT: // Sorted by CUB.
// CHECK-NEXT: {{^  }}} else
// CHECK-NEXT: {{^    }}for (k = 2; k <= n; k <<= 1) {
// CHECK-NEXT: {{^      }}for (j = k >> 1; j > 0; j = j >> 1) {
// CHECK-NEXT: step_up<<<blocks, threads>>>(d, j, k);
// CHECK: cudaDeviceSynchronize();

// The nest as the body of an `if` with an `else`: the else stays with it.
void sort_or_clear(int *d, int n, bool sort) {
  if (sort)
    for (int k = 2; k <= n; k <<= 1)
      for (int j = k >> 1; j > 0; j >>= 1)
        step_up<<<n / 256, 256>>>(d, j, k);
  else
    cudaMemset(d, 0, n * sizeof(int));
}

// CHECK-LABEL: void sort_or_clear(int *d, int n, bool sort) {
// CHECK-NEXT: if (sort)
// CHECK-NEXT: // cuda-opt cub-sort: these loops sort d[0, n) ascending
// CHECK: {{^    }}if (cudaoptBitonicSorts((long long)(n), dim3(n / 256), dim3(256)) &&
// CHECK: {{^    }}} else
// CHECK-NEXT: {{^      }}for (int k = 2; k <= n; k <<= 1)
// CHECK-NEXT: {{^        }}for (int j = k >> 1; j > 0; j >>= 1)
// CHECK-NEXT: {{^          }}step_up<<<n / 256, 256>>>(d, j, k);
// CHECK-NEXT: {{^  }}else
// CHECK-NEXT: cudaMemset(d, 0, n * sizeof(int));

__global__ void step_down(long long *d, int jj, int kk) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned partner = i ^ jj;
  if (i < partner) {
    if (!(i & kk)) {
      if (d[partner] > d[i]) {
        long long t = d[partner];
        d[partner] = d[i];
        d[i] = t;
      }
    } else {
      if (d[i] > d[partner]) {
        long long t = d[i];
        d[i] = d[partner];
        d[partner] = t;
      }
    }
  }
}

void sort_down(long long *keys, int count) {
  for (int k = 2; k <= count; k *= 2)
    for (int j = k / 2; j >= 1; j /= 2) {
      step_down<<<count / 128, 128>>>(keys, j, k);
      cudaGetLastError();
      cudaDeviceSynchronize();
    }
}

// DOWN-LABEL: void sort_down(long long *keys, int count) {
// DOWN: if (cudaoptBitonicSorts((long long)(count), dim3(count / 128), dim3(128)) &&
// DOWN-NEXT: cudaoptSortKeys(keys, (long long)(count), true) == cudaSuccess) {
// DOWN-NEXT: // Synchronised as the loops did after each stage.
// DOWN-NEXT: cudaDeviceSynchronize();
// DOWN-NEXT: } else
// DOWN-NEXT: for (int k = 2; k <= count; k *= 2)

// A guard on the thread index: `if (i >= n) return;`, and `ixj < n` beside
// the partner test. The launch may then have more threads than keys.
__global__ void step_guard(int *d, int j, int k, int n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) {
        int t = d[i];
        d[i] = d[ixj];
        d[ixj] = t;
      }
    } else {
      if (d[i] < d[ixj]) {
        int t = d[i];
        d[i] = d[ixj];
        d[ixj] = t;
      }
    }
  }
}

void sort_guard(int *d, int n) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1)
      step_guard<<<(n + 255) / 256, 256>>>(d, j, k, n);
}

// GUARD-LABEL: void sort_guard(int *d, int n) {
// GUARD: if (cudaoptBitonicSorts((long long)(n), dim3((n + 255) / 256), dim3(256), (long long)(n)) &&

__global__ void step_and(int *d, int j, int k, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int ixj = i ^ j;
  if (ixj > i && ixj < count) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) {
        int t = d[i];
        d[i] = d[ixj];
        d[ixj] = t;
      }
    } else {
      if (d[i] < d[ixj]) {
        int t = d[i];
        d[i] = d[ixj];
        d[ixj] = t;
      }
    }
  }
}

void sort_and(int *d, int n) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1)
      step_and<<<(n + 127) / 128, 128>>>(d, j, k, n);
}

// AND-LABEL: void sort_and(int *d, int n) {
// AND: if (cudaoptBitonicSorts((long long)(n), dim3((n + 127) / 128), dim3(128), (long long)(n)) &&

__global__ void step_f(float *d, int j, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) {
        float t = d[i];
        d[i] = d[ixj];
        d[ixj] = t;
      }
    } else {
      if (d[i] < d[ixj]) {
        float t = d[i];
        d[i] = d[ixj];
        d[ixj] = t;
      }
    }
  }
}

void sort_f(float *d, int n) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1)
      step_f<<<n / 256, 256>>>(d, j, k);
}

// FLOAT: cudaoptSortKeys(d, (long long)(n), false) == cudaSuccess) {
// REASSOC: pass 'cub-sort' is not legal here:
// REASSOC-NEXT: kernel 'step_f': {{.*}} (needs --fp-model=fast)

// REGIONS: region in sort_up at {{.*}}cub-sort.cu:{{[0-9]+}}:3: 0 launches, 1 sorting loop nest
// REGIONS-NEXT: sort step_up(d) at {{.*}}cub-sort.cu:{{[0-9]+}}:3 (ascending sort of d[0, n) by a bitonic network)
// REGIONS-NEXT: check at {{.*}}cub-sort.cu:{{[0-9]+}}:3
// REGIONS-NEXT: buffer d: read written, live-in, live-out
// REGIONS: region in sort_down at {{.*}}: 0 launches, 1 sorting loop nest
// REGIONS-NEXT: sort step_down(keys) at {{.*}} (descending sort of keys[0, count) by a bitonic network)
// REGIONS: region in sort_f at
// REGIONS-NEXT: sort step_f(d) at
