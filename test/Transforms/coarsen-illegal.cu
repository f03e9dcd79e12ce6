// RUN: not cuda-opt --passes='coarsen{factor=4}' --kernel=twod %s 2>&1 | FileCheck %s --check-prefix=TWOD
// RUN: not cuda-opt --passes='coarsen{factor=4}' --kernel=sync %s 2>&1 | FileCheck %s --check-prefix=SYNC
// RUN: not cuda-opt --passes='coarsen{factor=4}' --kernel=notlaunched %s 2>&1 | FileCheck %s --check-prefix=NOLAUNCH
// RUN: not cuda-opt --passes='coarsen{factor=4}' --kernel=param %s 2>&1 | FileCheck %s --check-prefix=PARAM
// RUN: not cuda-opt --passes='coarsen{factor=4}' --kernel=hardcoded %s 2>&1 | FileCheck %s --check-prefix=HARD
// RUN: not cuda-opt --passes='coarsen{factor=4}' --kernel=modified %s 2>&1 | FileCheck %s --check-prefix=MOD
// RUN: not cuda-opt --passes='coarsen{factor=3}' %s 2>&1 | FileCheck %s --check-prefix=POW2

// TWOD: kernel 'twod': kernel 'twod' maps threads in 2-D; coarsen handles 1-D kernels only
__global__ void twod(float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    p[y * w + x] = 0.0f;
}

// SYNC: kernel 'sync': kernel 'sync' calls __syncthreads at {{.*}}, so its threads do not work independently
__global__ void sync(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 1.0f;
  __syncthreads();
}

// NOLAUNCH: kernel 'notlaunched': kernel 'notlaunched' is not launched in this file, so cuda-opt cannot check that its grid covers the work
__global__ void notlaunched(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 2.0f;
}

// PARAM: kernel 'param': the grid or block of the launch at {{.*}} is not written in the calling function, so the work size it covers cannot be recovered
__global__ void param(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 3.0f;
}

// HARD: kernel 'hardcoded': index 'i' at {{.*}} is computed as 'blockIdx.x * 256 + threadIdx.x', not as blockIdx.x * blockDim.x + threadIdx.x
__global__ void hardcoded(float *p, int n) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n)
    p[i] = 4.0f;
}

// MOD: kernel 'modified': kernel 'modified' modifies its index 'i'
__global__ void modified(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i++] = 5.0f;
}

// POW2: parameter 'factor' of pass 'coarsen' must be a power of two, got 3

void run(float *p, int n, dim3 grid) {
  dim3 block(16, 16);
  twod<<<dim3((n + 15) / 16, (n + 15) / 16), block>>>(p, n, n);
  sync<<<(n + 255) / 256, 256>>>(p, n);
  param<<<grid, 256>>>(p, n);
  hardcoded<<<(n + 255) / 256, 256>>>(p, n);
  modified<<<(n + 255) / 256, 256>>>(p, n);
}
