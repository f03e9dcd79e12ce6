// RUN: not cuda-opt --passes='privatize-atomics' --kernel=unbounded %s 2>&1 | FileCheck %s --check-prefix=UNBOUNDED
// RUN: not cuda-opt --passes='privatize-atomics' --kernel=parambound %s 2>&1 | FileCheck %s --check-prefix=PARAM
// RUN: not cuda-opt --passes='privatize-atomics' --kernel=paramneg %s 2>&1 | FileCheck %s --check-prefix=PARAMNEG
// RUN: not cuda-opt --passes='privatize-atomics' --kernel=mixed %s 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: not cuda-opt --passes='privatize-atomics' --kernel=negative %s 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not cuda-opt --passes='privatize-atomics' --kernel=readsbins %s 2>&1 | FileCheck %s --check-prefix=READS
// RUN: not cuda-opt --passes='privatize-atomics' --kernel=stores %s 2>&1 | FileCheck %s --check-prefix=STORES
// RUN: not cuda-opt --passes='privatize-atomics{copies=4}' --kernel=huge %s 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not cuda-opt --passes='privatize-atomics' --kernel=wrapinc %s 2>&1 | FileCheck %s --check-prefix=WRAP
// RUN: not cuda-opt --passes='privatize-atomics' --kernel=fbins %s 2>&1 | FileCheck %s --check-prefix=STRICT

// UNBOUNDED: kernel 'unbounded': the index 'key[i]' of the atomic update at {{.*}} has no proven bound
__global__ void unbounded(unsigned *bins, const int *key, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[key[i]], 1u);
}

// PARAM: kernel 'parambound': the index 'b' of the atomic update at {{.*}} has no proven bound
// The kernel changes 'nbins', so it bounds nothing at launch.
__global__ void parambound(unsigned *bins, const int *key, int nbins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    nbins -= 1;
    int b = key[i];
    if (b >= 0 && b < nbins)
      atomicAdd(&bins[b], 1u);
  }
}

// PARAMNEG: kernel 'paramneg': the index 'b' at {{.*}} may be negative (nothing proves it is at least 0; add 'b >= 0' to its guard)
__global__ void paramneg(unsigned *bins, const int *key, int nbins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = key[i];
    if (b < nbins)
      atomicAdd(&bins[b], 1u);
  }
}

// MIXED: kernel 'mixed': the atomic updates of kernel 'mixed' have different bounds; privatize-atomics needs one
__global__ void mixed(unsigned *bins, const int *key, int nbins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = key[i];
    if (b >= 0 && b < nbins)
      atomicAdd(&bins[b], 1u);
    if (b >= 0 && b < 64)
      atomicAdd(&bins[b], 1u);
  }
}

// NEG: kernel 'negative': the index 'key[i] % 16' at {{.*}} may be negative
__global__ void negative(unsigned *bins, const signed char *key, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[key[i] % 16], 1u);
}

// READS: kernel 'readsbins': kernel 'readsbins' also uses 'bins' at {{.*}} outside its atomic updates
__global__ void readsbins(unsigned *bins, const unsigned char *d, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&bins[d[i]], 1u);
    if (bins[0] > 100u)
      atomicAdd(&bins[1], 1u);
  }
}

// STORES: kernel 'stores': kernel 'stores' writes 'out[i]' at {{.*}}; privatize-atomics needs the atomic updates to be the kernel's only effect outside the thread
__global__ void stores(unsigned *bins, const unsigned char *d, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&bins[d[i]], 1u);
    out[i] = d[i];
  }
}

// HUGE: kernel 'huge': 4 private copies of 8192 counters need 131088 bytes of shared memory, more than the 49152 a block may declare statically
__global__ void huge(unsigned *bins, const unsigned *key, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[key[i] & 8191], 1u);
}

// WRAP: kernel 'wrapinc': the atomic operation at {{.*}} cannot be privatized: 'atomicInc' wraps around at its limit '100u'
__global__ void wrapinc(unsigned *bins, const unsigned char *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicInc(&bins[d[i]], 100u);
}

// STRICT: kernel 'fbins': the rewrite reorders floating-point reductions, which --fp-model=strict does not allow
#pragma cuda_opt fp_model(strict)
__global__ void fbins(float *bins, const unsigned char *d, const float *w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[d[i]], w[i]);
}

void run(unsigned *b, float *fb, const int *k, const unsigned char *d,
         const signed char *sk, const unsigned *uk, const float *w, int n) {
  unbounded<<<(n + 255) / 256, 256>>>(b, k, n);
  parambound<<<(n + 255) / 256, 256>>>(b, k, 64, n);
  paramneg<<<(n + 255) / 256, 256>>>(b, k, 64, n);
  mixed<<<(n + 255) / 256, 256>>>(b, k, 64, n);
  negative<<<(n + 255) / 256, 256>>>(b, sk, n);
  readsbins<<<(n + 255) / 256, 256>>>(b, d, b, n);
  stores<<<(n + 255) / 256, 256>>>(b, d, b, n);
  huge<<<(n + 255) / 256, 256>>>(b, uk, n);
  wrapinc<<<(n + 255) / 256, 256>>>(b, d, n);
  fbins<<<(n + 255) / 256, 256>>>(fb, d, w, n);
}
