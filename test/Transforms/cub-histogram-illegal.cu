// RUN: not cuda-opt --passes=cub-histogram --kernel=h_WEIGHT %s 2>&1 | FileCheck %s --check-prefix=WEIGHT
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_FLOATSUM %s 2>&1 | FileCheck %s --check-prefix=FLOATSUM
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_UNBOUNDED %s 2>&1 | FileCheck %s --check-prefix=UNBOUNDED
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_NEGATIVE %s 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_THREAD %s 2>&1 | FileCheck %s --check-prefix=THREAD
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_LOOP %s 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_TWICE %s 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_OLD %s 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_MAX %s 2>&1 | FileCheck %s --check-prefix=MAX
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_GRID %s 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_STORE %s 2>&1 | FileCheck %s --check-prefix=STORE
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_SHFL %s 2>&1 | FileCheck %s --check-prefix=SHFL
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_LOCAL %s 2>&1 | FileCheck %s --check-prefix=LOCAL
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_BREAK %s 2>&1 | FileCheck %s --check-prefix=BREAK
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_GRID2D %s 2>&1 | FileCheck %s --check-prefix=GRID2D
// RUN: not cuda-opt --passes=cub-histogram --kernel=h_STREAM %s 2>&1 | FileCheck %s --check-prefix=STREAM

// cub-histogram's refusals: each kernel below differs from a histogram CUB
// computes exactly in one way.

#include <cuda_runtime.h>

// A weight per element: CUB's histogram counts samples.
// WEIGHT: kernel 'h_WEIGHT': the atomic update at {{.*}} adds 'w[i]', a weight per element
__global__ void h_WEIGHT(unsigned int *bins, const unsigned char *d,
                         const unsigned int *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[d[i]], w[i]);
}
void run_WEIGHT(unsigned int *b, const unsigned char *d, const unsigned *w,
                int n) {
  h_WEIGHT<<<(n + 255) / 256, 256>>>(b, d, w, n);
}

// Float counters: a weighted float sum, not a count.
// FLOATSUM: kernel 'h_FLOATSUM': the counters of 'bins' are 'float'; CUB counts in 32- or 64-bit integers
__global__ void h_FLOATSUM(float *bins, const unsigned char *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[d[i]], 1.0f);
}
void run_FLOATSUM(float *b, const unsigned char *d, int n) {
  h_FLOATSUM<<<(n + 255) / 256, 256>>>(b, d, n);
}

// An int bin with no bound: the original may write anywhere.
// UNBOUNDED: kernel 'h_UNBOUNDED': the index 'd[i]' of the atomic update at {{.*}} has no proven bound {{.*}}, so the original may count outside the histogram
__global__ void h_UNBOUNDED(int *bins, const int *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[d[i]], 1);
}
void run_UNBOUNDED(int *b, const int *d, int n) {
  h_UNBOUNDED<<<(n + 255) / 256, 256>>>(b, d, n);
}

// Below nbins but possibly negative: CUB would drop what the original
// counts before the array.
// NEGATIVE: kernel 'h_NEGATIVE': the index 'v' at {{.*}} may be negative
__global__ void h_NEGATIVE(int *bins, const int *d, int nbins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = d[i];
    if (v < nbins)
      atomicAdd(&bins[v], 1);
  }
}
void run_NEGATIVE(int *b, const int *d, int nb, int n) {
  h_NEGATIVE<<<(n + 255) / 256, 256>>>(b, d, nb, n);
}

// The bin depends on the thread, not only on the element.
// THREAD: kernel 'h_THREAD': kernel 'h_THREAD' reads threadIdx at {{.*}} inside its per-element work; only the index may depend on the thread
__global__ void h_THREAD(unsigned int *bins, const unsigned char *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = (d[i] + threadIdx.x) & 255;
    atomicAdd(&bins[b], 1u);
  }
}
void run_THREAD(unsigned int *b, const unsigned char *d, int n) {
  h_THREAD<<<(n + 255) / 256, 256>>>(b, d, n);
}

// Several bins per element.
// LOOP: kernel 'h_LOOP': the atomic update at {{.*}} is inside a loop: an element may count into several bins
__global__ void h_LOOP(unsigned int *bins, const unsigned int *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < 4; ++k)
      atomicAdd(&bins[(d[i] >> (8 * k)) & 255], 1u);
}
void run_LOOP(unsigned int *b, const unsigned int *d, int n) {
  h_LOOP<<<(n + 255) / 256, 256>>>(b, d, n);
}

// Two updates per element.
// TWICE: kernel 'h_TWICE': kernel 'h_TWICE' updates 'bins' at 2 places; a histogram counts each element once
__global__ void h_TWICE(unsigned int *bins, const unsigned char *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&bins[d[i] & 15], 1u);
    atomicAdd(&bins[16 + (d[i] >> 4)], 1u);
  }
}
void run_TWICE(unsigned int *b, const unsigned char *d, int n) {
  h_TWICE<<<(n + 255) / 256, 256>>>(b, d, n);
}

// The old count is used (a slot allocator, not a histogram).
// OLD: kernel 'h_OLD': the old value returned by the atomic update at {{.*}} is used; CUB's histogram returns none
__global__ void h_OLD(unsigned int *bins, unsigned int *slot,
                      const unsigned char *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    slot[i] = atomicAdd(&bins[d[i]], 1u);
}
void run_OLD(unsigned int *b, unsigned int *s, const unsigned char *d, int n) {
  h_OLD<<<(n + 255) / 256, 256>>>(b, s, d, n);
}

// A maximum per bin.
// MAX: kernel 'h_MAX': the atomic update at {{.*}} is a maximum, not a count
__global__ void h_MAX(int *bins, const unsigned char *d, const int *v,
                      int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicMax(&bins[d[i]], 7);
}
void run_MAX(int *b, const unsigned char *d, const int *v, int n) {
  h_MAX<<<(n + 255) / 256, 256>>>(b, d, v, n);
}

// A grid that misses the last partial block: the original counts fewer
// elements than n.
// GRID: kernel 'h_GRID': the grid of the launch at {{.*}} is 'n / 256', not a ceil-div of the work size by the block size
__global__ void h_GRID(unsigned int *bins, const unsigned char *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[d[i]], 1u);
}
void run_GRID(unsigned int *b, const unsigned char *d, int n) {
  h_GRID<<<n / 256, 256>>>(b, d, n);
}

// Another effect beside the count.
// STORE: kernel 'h_STORE': kernel 'h_STORE' writes 'seen[i]' at {{.*}}; a histogram's counts must be the kernel's only effect
__global__ void h_STORE(unsigned int *bins, int *seen, const unsigned char *d,
                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    seen[i] = 1;
    atomicAdd(&bins[d[i]], 1u);
  }
}
void run_STORE(unsigned int *b, int *s, const unsigned char *d, int n) {
  h_STORE<<<(n + 255) / 256, 256>>>(b, s, d, n);
}

// A warp primitive in the bin: no thread of CUB's runs it with the same
// neighbours.
// SHFL: kernel 'h_SHFL': kernel 'h_SHFL' calls __shfl_xor_sync at {{.*}}, so its threads do not work independently
__global__ void h_SHFL(unsigned int *bins, const unsigned char *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = __shfl_xor_sync(0xffffffffu, (int)d[i], 1) & 255;
    atomicAdd(&bins[v], 1u);
  }
}
void run_SHFL(unsigned int *b, const unsigned char *d, int n) {
  h_SHFL<<<(n + 255) / 256, 256>>>(b, d, n);
}

// A local set before the per-element work: the bin function copies only
// that work (this one could be recomputed; none is).
// LOCAL: kernel 'h_LOCAL': kernel 'h_LOCAL' uses 'off' at {{.*}}, a local set before its per-element work; the bin function copies that work only
__global__ void h_LOCAL(unsigned int *bins, const unsigned char *d, int shift,
                        int n) {
  const int off = shift * 3;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[(d[i] + off) & 255], 1u);
}
void run_LOCAL(unsigned int *b, const unsigned char *d, int s, int n) {
  h_LOCAL<<<(n + 255) / 256, 256>>>(b, d, s, n);
}

// A grid-stride loop that stops at the first negative value: the elements
// after it are not counted by that thread.
// BREAK: kernel 'h_BREAK': the grid-stride loop at {{.*}} leaves an iteration early at {{.*}}; the bin function copies whole iterations
__global__ void h_BREAK(int *bins, const int *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    if (x[i] < 0)
      break;
    atomicAdd(&bins[x[i] & 15], 1);
  }
}
void run_BREAK(int *b, const int *x, int n) { h_BREAK<<<64, 128>>>(b, x, n); }

// A grid-stride loop over x launched with two rows of blocks: each element
// counted twice.
// GRID2D: kernel 'h_GRID2D': the grid-stride loop at {{.*}} strides over x, and the launch at {{.*}} may have more blocks or threads along y or z, which would count an element twice
__global__ void h_GRID2D(unsigned int *bins, const unsigned char *d, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    atomicAdd(&bins[d[i]], 1u);
}
void run_GRID2D(unsigned int *b, const unsigned char *d, int n) {
  dim3 grid(64, 2);
  h_GRID2D<<<grid, 256>>>(b, d, n);
}

// A launch on a stream: the CUB calls would run on the default stream,
// unordered with the user's other work on that stream.
// STREAM: kernel 'h_STREAM': the launch at {{.*}}cub-histogram-illegal.cu:{{[0-9]+}}:3 is on a stream; the rewrite counts on the default stream
__global__ void h_STREAM(unsigned int *bins, const unsigned char *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[d[i]], 1u);
}
void run_STREAM(unsigned int *b, const unsigned char *d, int n,
                cudaStream_t s) {
  h_STREAM<<<(n + 255) / 256, 256, 0, s>>>(b, d, n);
}
