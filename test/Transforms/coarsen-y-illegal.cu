// RUN: not cuda-opt --passes='coarsen{factor=4,axis=y}' --kernel=oned %s 2>&1 | FileCheck %s --check-prefix=ONED
// RUN: not cuda-opt --passes='coarsen{factor=4,axis=x}' --kernel=twod %s 2>&1 | FileCheck %s --check-prefix=TWOD
// RUN: not cuda-opt --passes='coarsen{factor=4,axis=z}' --kernel=twod %s 2>&1 | FileCheck %s --check-prefix=AXIS
// RUN: not cuda-opt --passes='coarsen{factor=4,axis=y}' --kernel=sync %s 2>&1 | FileCheck %s --check-prefix=SYNC
// RUN: not cuda-opt --passes='coarsen{factor=4,axis=y}' --kernel=notceil %s 2>&1 | FileCheck %s --check-prefix=NOTCEIL
// RUN: not cuda-opt --passes='coarsen{factor=4,axis=y}' --kernel=inclusive %s 2>&1 | FileCheck %s --check-prefix=INCLUSIVE
// RUN: not cuda-opt --passes='coarsen{factor=4,axis=y}' --kernel=modified %s 2>&1 | FileCheck %s --check-prefix=MODIFIED
// RUN: not cuda-opt --passes='coarsen{factor=4,axis=y}' --kernel=threadrow %s 2>&1 | FileCheck %s --check-prefix=THREADROW
// RUN: not cuda-opt --passes='coarsen{factor=4,axis=y}' --kernel=helper %s 2>&1 | FileCheck %s --check-prefix=HELPER
// RUN: not cuda-opt --passes='coarsen{factor=4,axis=y}' --kernel=griddim %s 2>&1 | FileCheck %s --check-prefix=GRIDDIM
// RUN: not cuda-opt --passes='coarsen{factor=4,axis=y}' --kernel=carry %s 2>&1 | FileCheck %s --check-prefix=CARRY
// RUN: not cuda-opt --passes='coarsen{factor=4,axis=y}' --kernel=early %s 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: not cuda-opt --passes='coarsen{factor=4,axis=y}' --kernel=guardread %s 2>&1 | FileCheck %s --check-prefix=GUARDREAD
// RUN: not cuda-opt --passes='coarsen{factor=4,axis=y}' --kernel=loopret %s 2>&1 | FileCheck %s --check-prefix=LOOPRET
// RUN: not cuda-opt --passes='coarsen{factor=4,axis=y}' --kernel=after %s 2>&1 | FileCheck %s --check-prefix=AFTER

// ONED: kernel 'oned': kernel 'oned' maps threads in 1-D (it never reads threadIdx.y or blockIdx.y); coarsen{axis=y} needs a row index 'int y = blockIdx.y * blockDim.y + threadIdx.y;' (axis=x coarsens 1-D kernels)
__global__ void oned(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 0.0f;
}

// TWOD: kernel 'twod': kernel 'twod' maps threads in 2-D; coarsen handles 1-D kernels only
// AXIS: kernel 'twod': parameter 'axis' of pass 'coarsen' must be x or y, got 'z'
__global__ void twod(float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    p[y * w + x] = 0.0f;
}

// SYNC: kernel 'sync': kernel 'sync' calls __syncthreads at {{.*}}, so its threads do not work independently
__global__ void sync(float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    p[y * w + x] = 1.0f;
  __syncthreads();
}

// The grid covers h / 16 * 16 rows, maybe fewer than h: a coarsened grid
// could cover rows the original never ran.
// NOTCEIL: kernel 'notceil': coarsen{axis=y} needs grid.y of every launch to be a ceil-div of the row bound 'h' by block.y: the grid of the launch at {{.*}} is 'dim3((w + 15) / 16, h / 16)', not a ceil-div of the work size by the block size
__global__ void notceil(float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    p[y * w + x] = 2.0f;
}

// INCLUSIVE: kernel 'inclusive': coarsen{axis=y} needs grid.y of every launch to be a ceil-div of the row bound 'h' by block.y: the grid of the launch at {{.*}} is sized for 'h' elements but the kernel's bound 'h' is inclusive
__global__ void inclusive(float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y <= h)
    p[y * w + x] = 2.5f;
}

// MODIFIED: kernel 'modified': kernel 'modified' modifies its row index 'y'
__global__ void modified(float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    y = h - 1 - y;
    p[y * w + x] = 3.0f;
  }
}

// THREADROW: kernel 'threadrow': kernel 'threadrow' reads threadIdx.y at {{.*}} outside its row index 'y'; a row's work may depend on the thread only through the row index
__global__ void threadrow(float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    p[y * w + x] = threadIdx.y;
}

// HELPER: kernel 'helper': kernel 'helper' reads blockIdx.y at {{.*}} (in 'tileRow') outside its row index 'y'
__device__ int tileRow() { return blockIdx.y; }
__global__ void helper(float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    p[y * w + x] = tileRow();
}

// GRIDDIM: kernel 'griddim': kernel 'griddim' reads gridDim.y at {{.*}} outside its row index 'y'
__global__ void griddim(float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    p[y * w + x] = gridDim.y;
}

// CARRY: kernel 'carry': 'n' is declared before the row index 'y' and modified later, so with several rows per thread its value would carry from one row to the next
__global__ void carry(float *p, int w, int h) {
  int n = 0;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    p[y * w + x] = ++n;
}

// EARLY: kernel 'early': the declaration of 'v' before the bounds guard reads memory at {{.*}}; it would also run for the rows past the bound that the new grid adds
__global__ void early(float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  float v = p[y * w + x];
  if (x < w && y < h)
    p[y * w + x] = v * 2.0f;
}

// GUARDREAD: kernel 'guardread': the guard at {{.*}} reads memory at {{.*}} before it tests the row bound 'y < h'; that would also run for the rows past the bound that the new grid adds
__global__ void guardread(float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && p[y * w + x] > 0.0f && y < h)
    p[y * w + x] = 0.0f;
}

// LOOPRET: kernel 'loopret': the per-element work returns from inside a loop at {{.*}}, which cannot become 'continue' of the new loop
__global__ void loopret(float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  for (int k = 0; k < 4; ++k) {
    if (p[k] < 0.0f)
      return;
    p[y * w + x] += p[k];
  }
}

// AFTER: kernel 'after': the statement at {{.*}} after the bounds guard runs once per thread; with several rows per thread it would run once per row
__global__ void after(float *p, int *count, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    p[y * w + x] = 4.0f;
  atomicAdd(count, 1);
}

void run(float *p, int *count, int n, int w, int h) {
  oned<<<(n + 255) / 256, 256>>>(p, n);
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  twod<<<grid, block>>>(p, w, h);
  sync<<<grid, block>>>(p, w, h);
  notceil<<<dim3((w + 15) / 16, h / 16), block>>>(p, w, h);
  inclusive<<<grid, block>>>(p, w, h);
  modified<<<grid, block>>>(p, w, h);
  threadrow<<<grid, block>>>(p, w, h);
  helper<<<grid, block>>>(p, w, h);
  griddim<<<grid, block>>>(p, w, h);
  carry<<<grid, block>>>(p, w, h);
  early<<<grid, block>>>(p, w, h);
  guardread<<<grid, block>>>(p, w, h);
  loopret<<<grid, block>>>(p, w, h);
  after<<<grid, block>>>(p, count, w, h);
}
