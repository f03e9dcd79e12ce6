// RUN: not cuda-opt --passes='block-size{x=512}' --kernel=bounded %s 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: not cuda-opt --passes='block-size{x=128}' --kernel=tiled %s 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not cuda-opt --passes='block-size{x=128}' --kernel=literal %s 2>&1 | FileCheck %s --check-prefix=LITERAL
// RUN: not cuda-opt --passes='block-size{x=128}' --kernel=fixedgrid %s 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: not cuda-opt --passes='block-size{x=128,y=2}' --kernel=oned %s 2>&1 | FileCheck %s --check-prefix=ONED
// RUN: not cuda-opt --passes='block-size{x=128}' --kernel=changed %s 2>&1 | FileCheck %s --check-prefix=CHANGED

// BOUNDS: kernel 'bounded': kernel 'bounded' has __launch_bounds__(256), below the new block size of 512 threads
__global__ void __launch_bounds__(256) bounded(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 0.0f;
}

// SHARED: kernel 'tiled': kernel 'tiled' sizes __shared__ array 'tile' by the current block size 256
__global__ void tiled(float *p, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? p[i] : 0.0f;
  __syncthreads();
  if (i < n)
    p[i] = tile[255 - threadIdx.x];
}

// LITERAL: kernel 'literal': kernel 'literal' uses the literal 256, the current block size, at {{.*}}block-size-illegal.cu:[[@LINE+2]]:{{[0-9]+}}; its index math may hard-code the block size
__global__ void literal(float *p, int n) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n)
    p[i] = 1.0f;
}

// FIXED: kernel 'fixedgrid': the grid of the launch at {{.*}} is '1024', not a ceil-div of the work size by the block size
__global__ void fixedgrid(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 2.0f;
}

// ONED: kernel 'oned': kernel 'oned' maps threads in 1-D; y=2 would only repeat the work (use y=1)
__global__ void oned(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 3.0f;
}

// CHANGED: kernel 'changed': the work size 'n' of the launch at {{.*}} reads 'n', which changes in the calling function
__global__ void changed(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 4.0f;
}

void run(float *p, int n) {
  bounded<<<(n + 255) / 256, 256>>>(p, n);
  tiled<<<(n + 255) / 256, 256>>>(p, n);
  literal<<<(n + 255) / 256, 256>>>(p, n);
  fixedgrid<<<1024, 256>>>(p, n);
  oned<<<(n + 255) / 256, 256>>>(p, n);
}

void runChanged(float *p, int n) {
  int blocks = (n + 255) / 256;
  n = n / 2;
  changed<<<blocks, 256>>>(p, n);
}
