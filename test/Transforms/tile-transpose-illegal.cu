// RUN: not cuda-opt --passes='tile-transpose' --kernel=copy2d %s 2>&1 | FileCheck %s --check-prefix=COPY
// RUN: not cuda-opt --passes='tile-transpose' --kernel=oned %s 2>&1 | FileCheck %s --check-prefix=ONED
// RUN: not cuda-opt --passes='tile-transpose' --kernel=notinjective %s 2>&1 | FileCheck %s --check-prefix=INJ
// RUN: not cuda-opt --passes='tile-transpose' --kernel=scatter %s 2>&1 | FileCheck %s --check-prefix=SCATTER
// RUN: not cuda-opt --passes='tile-transpose' --kernel=update %s 2>&1 | FileCheck %s --check-prefix=UPDATE
// RUN: not cuda-opt --passes='tile-transpose' --kernel=shared %s 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not cuda-opt --passes='tile-transpose' --kernel=synced %s 2>&1 | FileCheck %s --check-prefix=SYNC
// RUN: not cuda-opt --passes='tile-transpose' --kernel=twostores %s 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not cuda-opt --passes='tile-transpose' --kernel=inplace %s 2>&1 | FileCheck %s --check-prefix=INPLACE
// RUN: not cuda-opt --passes='tile-transpose' --kernel=unknownlaunch %s 2>&1 | FileCheck %s --check-prefix=LAUNCH
// RUN: not cuda-opt --passes='tile-transpose' --kernel=notlaunched %s 2>&1 | FileCheck %s --check-prefix=NOLAUNCH
// RUN: not cuda-opt --passes='tile-transpose' --kernel=mixed %s 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: not cuda-opt --passes='tile-transpose' --kernel=localindex %s 2>&1 | FileCheck %s --check-prefix=LOCAL
// RUN: not cuda-opt --passes='tile-transpose' --kernel=callee %s 2>&1 | FileCheck %s --check-prefix=CALLEE
// RUN: not cuda-opt --passes='tile-transpose' --kernel=rowsum %s 2>&1 | FileCheck %s --check-prefix=ROWSUM
// RUN: not cuda-opt --passes='tile-transpose{tile=64,pad=1}' --kernel=wide %s 2>&1 | FileCheck %s --check-prefix=WIDE
// RUN: not cuda-opt --passes='tile-transpose{tile=16,rows=32}' --kernel=copy2d %s 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not cuda-opt --passes='tile-transpose{tile=64,rows=32}' --kernel=copy2d %s 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: not cuda-opt --passes='tile-transpose' --kernel=bounded %s 2>&1 | FileCheck %s --check-prefix=BOUNDS

// COPY: kernel 'copy2d': the store 'out[y * w + x]' is already contiguous in x (coalesced) and no load is contiguous in y instead; there is nothing to stage
__global__ void copy2d(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = in[y * w + x];
}

// ONED: kernel 'oned': kernel 'oned' maps threads in 1-D only; tile-transpose needs a 2-D mapping over x and y whose store and loads are contiguous in different dimensions
__global__ void oned(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i * 4] = in[i];
}

// A stride smaller than the bound: (x, y) and (x + 1, y - w) collide.
// INJ: kernel 'notinjective': cannot prove that different (x, y) store to different elements: the store 'out[x * w + y]' steps by 'w' along x, but y goes up to 'h', and cuda-opt cannot show the step is at least that
__global__ void notinjective(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * w + y] = in[y * w + x];
}

// SCATTER: kernel 'scatter': the index of the store 'out[perm[x] * h + y]' depends on a loaded value, so cuda-opt cannot prove which element each thread writes
__global__ void scatter(float *out, const float *in, const int *perm, int w,
                        int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[perm[x] * h + y] = in[y * w + x];
}

// UPDATE: kernel 'update': the store 'out[x * h + y] += in[y * w + x]' at {{.*}} reads the element it updates; tile-transpose stages only plain stores 'p[index] = value;'
__global__ void update(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] += in[y * w + x];
}

// SHARED: kernel 'shared': kernel 'shared' uses __shared__ memory ('t' at {{.*}}), so its threads do not work independently
__global__ void shared(float *out, const float *in, int w, int h) {
  __shared__ float t[16][17];
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    t[threadIdx.y][threadIdx.x] = in[y * w + x];
    out[x * h + y] = t[threadIdx.y][threadIdx.x];
  }
}

// SYNC: kernel 'synced': kernel 'synced' calls __syncthreads at {{.*}}, so its threads do not work independently
__global__ void synced(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  __syncthreads();
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

// TWO: kernel 'twostores': the statement at {{.*}} is not a declaration; tile-transpose stages per-element work made of local declarations followed by one store 'p[index] = value;'
__global__ void twostores(float *out, float *copy, const float *in, int w,
                          int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    copy[y * w + x] = in[y * w + x];
    out[x * h + y] = in[y * w + x];
  }
}

// INPLACE: kernel 'inplace': the per-element work reads 'p[y * w + x]' at {{.*}}, from the array 'p' it stores to; staging would reorder those reads and writes
__global__ void inplace(float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    p[w * h + x * h + y] = p[y * w + x];
}

// LAUNCH: kernel 'unknownlaunch': the grid or block of the launch at {{.*}} is not written in the calling function, so the work size it covers cannot be recovered
__global__ void unknownlaunch(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

// NOLAUNCH: kernel 'notlaunched': kernel 'notlaunched' is not launched in this file, so cuda-opt cannot check that its grid covers the work
__global__ void notlaunched(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

// MIXED: kernel 'mixed': the load 'b[x * h + y]' at {{.*}} is contiguous in y like the store, so staging would make it strided
__global__ void mixed(float *out, const float *a, const float *b, int w,
                      int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = a[y * w + x] + b[x * h + y];
}

// LOCAL: kernel 'localindex': the index of the store 'out[o]' uses 'o', a local of the per-element work; write the index in terms of the thread indices and the parameters
__global__ void localindex(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int o = x * h + y;
    out[o] = in[y * w + x];
  }
}

__device__ float laneScaled(float v) { return v * threadIdx.x; }

// CALLEE: kernel 'callee': the per-element work at {{.*}} calls 'laneScaled', which reads threadIdx; tile-transpose moves the work to another thread
__global__ void callee(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = laneScaled(in[y * w + x]);
}

// A row sum per thread reads A with a stride of cols in threadIdx.x, but in
// a loop of a 1-D kernel: not a transpose.
// ROWSUM: kernel 'rowsum': kernel 'rowsum' maps threads in 1-D only; tile-transpose needs a 2-D mapping
__global__ void rowsum(float *y, const float *A, int rows, int cols) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += A[i * cols + j];
    y[i] = s;
  }
}

// WIDE: kernel 'wide': a 64x65 tile of 'double2' takes 66560 bytes, over the 48 KiB of static shared memory a block may declare; use a smaller tile
__global__ void wide(double2 *out, const double2 *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

// ROWS: kernel 'copy2d': rows=32 exceeds tile=16; a block has at most one thread per row of its tile
// BIG: kernel 'copy2d': a block of 64x32 = 2048 threads exceeds the CUDA limit of 1024

// BOUNDS: kernel 'bounded': kernel 'bounded' has __launch_bounds__(128), below the new block size of 256 threads
__global__ void __launch_bounds__(128)
    bounded(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

void run(float *out, float *copy, const float *in, const int *perm,
         double2 *o2, const double2 *i2, int w, int h, dim3 g) {
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  copy2d<<<grid, block>>>(out, in, w, h);
  oned<<<(w + 255) / 256, 256>>>(out, in, w);
  notinjective<<<grid, block>>>(out, in, w, h);
  scatter<<<grid, block>>>(out, in, perm, w, h);
  update<<<grid, block>>>(out, in, w, h);
  shared<<<grid, block>>>(out, in, w, h);
  synced<<<grid, block>>>(out, in, w, h);
  twostores<<<grid, block>>>(out, copy, in, w, h);
  inplace<<<grid, block>>>(out, w, h);
  unknownlaunch<<<g, block>>>(out, in, w, h);
  mixed<<<grid, block>>>(out, in, in, w, h);
  localindex<<<grid, block>>>(out, in, w, h);
  callee<<<grid, block>>>(out, in, w, h);
  rowsum<<<(w + 255) / 256, 256>>>(out, in, w, h);
  wide<<<grid, block>>>(o2, i2, w, h);
  bounded<<<grid, block>>>(out, in, w, h);
}
