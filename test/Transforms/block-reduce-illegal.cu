// RUN: not cuda-opt --passes='block-reduce{items=4}' --kernel=perblock %s 2>&1 | FileCheck %s --check-prefix=PERBLOCK
// RUN: not cuda-opt --passes='block-reduce{items=4}' --kernel=indexed %s 2>&1 | FileCheck %s --check-prefix=INDEXED
// RUN: not cuda-opt --passes='block-reduce{items=4}' --kernel=alsostores %s 2>&1 | FileCheck %s --check-prefix=STORES
// RUN: not cuda-opt --passes='block-reduce{items=4}' --kernel=extrasync %s 2>&1 | FileCheck %s --check-prefix=SYNC
// RUN: not cuda-opt --passes='block-reduce{items=4}' --kernel=partials %s 2>&1 | FileCheck %s --check-prefix=PARTIALS
// RUN: not cuda-opt --passes='block-reduce{items=4}' --kernel=badfill %s 2>&1 | FileCheck %s --check-prefix=FILL
// RUN: not cuda-opt --passes='block-reduce{items=4}' --kernel=mixed %s 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: not cuda-opt --passes='block-reduce{items=4}' --kernel=oddblock %s 2>&1 | FileCheck %s --check-prefix=ODD
// RUN: not cuda-opt --passes='block-reduce{items=4}' --kernel=usesold %s 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not cuda-opt --passes='block-reduce{items=4}' --kernel=twoatomics %s 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not cuda-opt --passes='block-reduce{items=4}' --kernel=exch %s 2>&1 | FileCheck %s --check-prefix=EXCH
// RUN: not cuda-opt --passes='block-reduce{items=4}' --kernel=nogrid %s 2>&1 | FileCheck %s --check-prefix=NOGRID
// RUN: not cuda-opt --passes='block-reduce{items=4}' --kernel=fsum %s 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: cuda-opt --passes='block-reduce{items=4}' --kernel=isum %s -o - | FileCheck %s --check-prefix=STRICTINT
// RUN: not cuda-opt --passes='block-reduce{items=4}' --kernel=effectguard %s 2>&1 | FileCheck %s --check-prefix=EFFECTGUARD
// RUN: not cuda-opt --passes='grid-stride' --kernel=effectguard %s 2>&1 | FileCheck %s --check-prefix=GUARDSHAPE

// PERBLOCK: kernel 'perblock': the atomic update at {{.*}} targets '&out[blockIdx.x]', which reads blockIdx, so it is not one address for the whole grid
__global__ void perblock(float *out, const float *x, int n) {
  __shared__ float sh[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sh[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sh[tid] += sh[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(&out[blockIdx.x], sh[0]);
}

// INDEXED: kernel 'indexed': the atomic update at {{.*}} targets 'out + k[0]', which reads memory ('k[0]')
__global__ void indexed(float *out, const int *k, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out + k[0], x[i]);
}

// STORES: kernel 'alsostores': kernel 'alsostores' writes 'y[i]' at {{.*}}; block-reduce needs the atomic update to be the kernel's only effect outside the thread
__global__ void alsostores(float *out, float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = 2.0f * x[i];
    atomicAdd(out, x[i]);
  }
}

// SYNC: kernel 'extrasync': kernel 'extrasync' uses shared memory or __syncthreads but is not the classic block tree {{.*}}expected exactly four statements after the declarations
__global__ void extrasync(float *out, const float *x, int n) {
  __shared__ float sh[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sh[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sh[tid] += sh[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(out, sh[0]);
}

// PARTIALS: kernel 'partials': kernel 'partials' stores one partial result per block at {{.*}}; the host reads one per block, so the grid cannot shrink
__global__ void partials(float *out, const float *x, int n) {
  __shared__ float sh[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sh[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sh[tid] += sh[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sh[0];
}

// FILL: kernel 'badfill': out-of-range threads of kernel 'badfill' fill the tree with '1.0f', which is not an identity of the sum
__global__ void badfill(float *out, const float *x, int n) {
  __shared__ float sh[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sh[tid] = i < n ? x[i] : 1.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sh[tid] += sh[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(out, sh[0]);
}

// MIXED: kernel 'mixed': kernel 'mixed' combines each block with a maximum but folds the blocks into the target with a sum
__global__ void mixed(int *out, const int *x, int n) {
  __shared__ int sh[256];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sh[tid] = i < n ? x[i] : (-2147483647 - 1);
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sh[tid] = max(sh[tid], sh[tid + s]);
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(out, sh[0]);
}

// ODD: kernel 'oddblock': the launch at {{.*}} uses blocks of 384 threads; the tree reduces the whole block only for a power of two
__global__ void oddblock(float *out, const float *x, int n) {
  __shared__ float sh[512];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sh[tid] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sh[tid] += sh[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(out, sh[0]);
}

// OLD: kernel 'usesold': the old value returned by the atomic update at {{.*}} is used, so the updates cannot be folded together
__global__ void usesold(int *count, int *slot, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int k = atomicAdd(count, 1);
    slot[i] = k;
  }
}

// TWO: kernel 'twoatomics': kernel 'twoatomics' updates memory atomically at {{.*}} and at {{.*}}; block-reduce folds a single reduction
__global__ void twoatomics(int *pos, int *neg, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (x[i] > 0.0f)
      atomicAdd(pos, 1);
    else
      atomicAdd(neg, 1);
  }
}

// EXCH: kernel 'exch': the atomic operation at {{.*}} cannot be folded: 'atomicExch' is not a combining update
__global__ void exch(int *last, const int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicExch(last, x[i]);
}

// NOGRID: kernel 'nogrid': the grid of the launch at {{.*}} is '1024', not a ceil-div of the work size by the block size
__global__ void nogrid(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, x[i]);
}

// Both kernels are pinned to the strict fp-model.
// STRICT: kernel 'fsum': the rewrite reorders floating-point reductions, which --fp-model=strict does not allow for kernel 'fsum'
#pragma cuda_opt fp_model(strict)
__global__ void fsum(float *out, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, x[i]);
}

// Integer sums stay exact, so strict allows them.
// STRICTINT-LABEL: {{^}}__global__ void isum(
// STRICTINT: atomicAdd(out, acc);
#pragma cuda_opt fp_model(strict)
__global__ void isum(int *out, const int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(out, x[i]);
}

void run(float *f, int *ip, const int *ci, const float *x, int n) {
  perblock<<<(n + 255) / 256, 256>>>(f, x, n);
  indexed<<<(n + 255) / 256, 256>>>(f, ci, x, n);
  alsostores<<<(n + 255) / 256, 256>>>(f, f, x, n);
  extrasync<<<(n + 255) / 256, 256>>>(f, x, n);
  partials<<<(n + 255) / 256, 256>>>(f, x, n);
  badfill<<<(n + 255) / 256, 256>>>(f, x, n);
  mixed<<<(n + 255) / 256, 256>>>(ip, ci, n);
  oddblock<<<(n + 383) / 384, 384>>>(f, x, n);
  usesold<<<(n + 255) / 256, 256>>>(ip, ip, n);
  twoatomics<<<(n + 255) / 256, 256>>>(ip, ip, x, n);
  exch<<<(n + 255) / 256, 256>>>(ip, ci, n);
  nogrid<<<1024, 256>>>(f, x, n);
  fsum<<<(n + 255) / 256, 256>>>(f, x, n);
  isum<<<(n + 255) / 256, 256>>>(ip, ci, n);
}

// A condition with side effects in the guard would run once per element
// folded, which block-reduce does not reason about; the transforms that turn
// the guard into a loop condition refuse any condition.
// EFFECTGUARD: the guard at {{.*}} has a condition with side effects
// GUARDSHAPE: is not a bounds guard of the form 'if (i < n)'
__global__ void effectguard(int *count, int *seen, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && seen[i]++ >= 0)
    atomicAdd(count, 1);
}
void run_effectguard(int *c, int *s, const float *in, int n) {
  effectguard<<<(n + 255) / 256, 256>>>(c, s, in, n);
}
