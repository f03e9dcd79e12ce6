// RUN: not cuda-opt --passes=cub-sort --kernel=step_SAMEDIR %s 2>&1 | FileCheck %s --check-prefix=SAMEDIR
// RUN: not cuda-opt --passes=cub-sort --kernel=step_PARTNER %s 2>&1 | FileCheck %s --check-prefix=PARTNER
// RUN: not cuda-opt --passes=cub-sort --kernel=step_SWAP %s 2>&1 | FileCheck %s --check-prefix=SWAP
// RUN: not cuda-opt --passes=cub-sort --kernel=step_EXTRA %s 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: not cuda-opt --passes=cub-sort --kernel=step_KSTART %s 2>&1 | FileCheck %s --check-prefix=KSTART
// RUN: not cuda-opt --passes=cub-sort --kernel=step_JSTART %s 2>&1 | FileCheck %s --check-prefix=JSTART
// RUN: not cuda-opt --passes=cub-sort --kernel=step_STREAM %s 2>&1 | FileCheck %s --check-prefix=STREAM
// RUN: not cuda-opt --passes=cub-sort --kernel=step_AFTER %s 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: not cuda-opt --passes=cub-sort --kernel=step_ROLES %s 2>&1 | FileCheck %s --check-prefix=ROLES
// RUN: not cuda-opt --passes=cub-sort --kernel=step_BODY %s 2>&1 | FileCheck %s --check-prefix=BODY
// RUN: not cuda-opt --passes=cub-sort --kernel=step_GUARD %s 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not cuda-opt --passes=cub-sort --kernel=step_SHORT %s 2>&1 | FileCheck %s --check-prefix=SHORT

// cub-sort's refusals: each nest below differs from a bitonic sorting
// network in one way that changes what it computes or hides it from the
// analysis: the kernel changes, or the nest around a correct kernel does.

#include <cuda_runtime.h>

// Both halves ascending: a merge of sorted runs, not a bitonic one.
// SAMEDIR: kernel 'step_SAMEDIR': it orders the pairs the same way whether bit k of i is set or not
__global__ void step_SAMEDIR(int *d, int j, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    } else {
      if (d[i] > d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    }
  }
}
void sort_SAMEDIR(int *d, int n) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1)
      step_SAMEDIR<<<n / 256, 256>>>(d, j, k);
}

// Every pair exchanged twice (by i and by its partner).
// PARTNER: 'if (ixj >= i) {' is not 'if (ixj > i)' with ixj = i ^ j
__global__ void step_PARTNER(int *d, int j, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, ixj = i ^ j;
  if (ixj >= i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    } else {
      if (d[i] < d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    }
  }
}
void sort_PARTNER(int *d, int n) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1)
      step_PARTNER<<<n / 256, 256>>>(d, j, k);
}

// The swap loses a key: d[ixj] gets d[i]'s new value.
// SWAP: kernel 'step_SWAP': the exchange under 'if (ixj > i)' is not one comparison of d[i] with d[ixj] and a swap
__global__ void step_SWAP(int *d, int j, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = d[i]; }
    } else {
      if (d[i] < d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    }
  }
}
void sort_SWAP(int *d, int n) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1)
      step_SWAP<<<n / 256, 256>>>(d, j, k);
}

// Also counts the exchanges.
// EXTRA: kernel 'step_EXTRA''s fourth parameter is not a count guarding the threads
__global__ void step_EXTRA(int *d, int j, int k, int *swaps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    } else {
      if (d[i] < d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    }
  }
}
void sort_EXTRA(int *d, int n, int *swaps) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1)
      step_EXTRA<<<n / 256, 256>>>(d, j, k, swaps);
}

// The first stage skipped: pairs are never sorted.
// KSTART: the loop at {{.*}} is not 'for (k = 2; k <= n; k <<= 1)'
__global__ void step_KSTART(int *d, int j, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    } else {
      if (d[i] < d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    }
  }
}
void sort_KSTART(int *d, int n) {
  for (int k = 4; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1)
      step_KSTART<<<n / 256, 256>>>(d, j, k);
}

// The merge starts at distance k, past the block.
// JSTART: the inner loop is not 'for (j = k >> 1; j > 0; j >>= 1)'
__global__ void step_JSTART(int *d, int j, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    } else {
      if (d[i] < d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    }
  }
}
void sort_JSTART(int *d, int n) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k; j > 0; j >>= 1)
      step_JSTART<<<n / 256, 256>>>(d, j, k);
}

// On the caller's stream.
// STREAM: the step is launched on a stream; the rewrite sorts on the default stream
__global__ void step_STREAM(int *d, int j, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    } else {
      if (d[i] < d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    }
  }
}
void sort_STREAM(int *d, int n, cudaStream_t s) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1)
      step_STREAM<<<n / 256, 256, 0, s>>>(d, j, k);
}

// The counter's last value is used afterwards.
// AFTER: 'k' is read after the loops (the rewrite would leave it unset)
__global__ void step_AFTER(int *d, int j, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    } else {
      if (d[i] < d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    }
  }
}
int sort_AFTER(int *d, int n) {
  int j, k;
  for (k = 2; k <= n; k <<= 1)
    for (j = k >> 1; j > 0; j >>= 1)
      step_AFTER<<<n / 256, 256>>>(d, j, k);
  return k;
}

// j and k passed the other way round.
// ROLES: does not pass a pointer variable, j and k to kernel 'step_ROLES' in their roles
__global__ void step_ROLES(int *d, int j, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    } else {
      if (d[i] < d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    }
  }
}
void sort_ROLES(int *d, int n) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1)
      step_ROLES<<<n / 256, 256>>>(d, k, j);
}

// Something else runs between the stages.
// BODY: 'cudaMemset(d, 0, 4)' is neither the step's launch nor an error check
__global__ void step_BODY(int *d, int j, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    } else {
      if (d[i] < d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    }
  }
}
void sort_BODY(int *d, int n) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) {
      step_BODY<<<n / 256, 256>>>(d, j, k);
      cudaMemset(d, 0, 4);
    }
}

// The guard lets thread n through: its partner n ^ j may be past the keys.
// GUARD: kernel 'step_GUARD': 'if (i > n)' returns early, but not as the guard 'if (i >= n) return;' for a count parameter n
__global__ void step_GUARD(int *d, int j, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > n)
    return;
  int ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    } else {
      if (d[i] < d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    }
  }
}
void sort_GUARD(int *d, int n) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1)
      step_GUARD<<<(n + 255) / 256, 256>>>(d, j, k, n);
}

// The index in a short: past 32767 threads the pairs wrap around.
// SHORT: kernel 'step_SHORT': local 'i' holds the thread index in 'short', which wraps before the grid ends
__global__ void step_SHORT(int *d, int j, int k) {
  short i = blockIdx.x * blockDim.x + threadIdx.x;
  int ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    } else {
      if (d[i] < d[ixj]) { int t = d[i]; d[i] = d[ixj]; d[ixj] = t; }
    }
  }
}
void sort_SHORT(int *d, int n) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1)
      step_SHORT<<<n / 256, 256>>>(d, j, k);
}
