// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=shared %s 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=sync %s 2>&1 | FileCheck %s --check-prefix=SYNC
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=atomic %s 2>&1 | FileCheck %s --check-prefix=ATOMIC
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=viahelper %s 2>&1 | FileCheck %s --check-prefix=VIAHELPER
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=warp %s 2>&1 | FileCheck %s --check-prefix=WARP
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=twoloops %s 2>&1 | FileCheck %s --check-prefix=TWOLOOPS
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=writes %s 2>&1 | FileCheck %s --check-prefix=WRITES
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=noreduction %s 2>&1 | FileCheck %s --check-prefix=NOREDUCTION
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=early %s 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=inloopreturn %s 2>&1 | FileCheck %s --check-prefix=INLOOPRETURN
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=prestore %s 2>&1 | FileCheck %s --check-prefix=PRESTORE
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=prereturn %s 2>&1 | FileCheck %s --check-prefix=PRERETURN
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=inclusive %s 2>&1 | FileCheck %s --check-prefix=INCLUSIVE
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=unsignedbound %s 2>&1 | FileCheck %s --check-prefix=UNSIGNEDBOUND
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=hoistarray %s 2>&1 | FileCheck %s --check-prefix=HOISTARRAY
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=clash %s 2>&1 | FileCheck %s --check-prefix=CLASH
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=oddblock %s 2>&1 | FileCheck %s --check-prefix=ODDBLOCK
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=dynblock %s 2>&1 | FileCheck %s --check-prefix=DYNBLOCK
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=block2d %s 2>&1 | FileCheck %s --check-prefix=BLOCK2D
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=notlaunched %s 2>&1 | FileCheck %s --check-prefix=NOTLAUNCHED
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=bounded %s 2>&1 | FileCheck %s --check-prefix=BOUNDED
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=pinned %s 2>&1 | FileCheck %s --check-prefix=PINNED
// RUN: not cuda-opt --passes='split-reduce{ways=16,block-x=64}' --kernel=fixedblock %s 2>&1 | FileCheck %s --check-prefix=FIXEDBLOCK
// RUN: not cuda-opt --passes='split-reduce{ways=32,block-x=64}' --kernel=gemv %s 2>&1 | FileCheck %s --check-prefix=TOOBIG
// RUN: not cuda-opt --passes='split-reduce{ways=2}' %s 2>&1 | FileCheck %s --check-prefix=RANGE

// Each kernel is refused by split-reduce, with the reason.

// Shared memory: the rewrite adds its own and the threads would no longer be independent.
// SHARED: kernel 'shared': kernel 'shared' uses __shared__ memory ('tile' at {{.*}}), so its threads do not work independently
__global__ void shared(float *y, const float *A, int rows, int cols) {
  __shared__ float tile[32];
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    tile[threadIdx.x % 32] = s;
    y[c] = s;
  }
}

// A barrier of its own.
// SYNC: kernel 'sync': kernel 'sync' calls __syncthreads at {{.*}}, so its threads do not work independently
__global__ void sync(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    y[c] = s;
  }
  __syncthreads();
}

// An atomic, even after the loop.
// ATOMIC: kernel 'atomic': kernel 'atomic' calls the atomic 'atomicAdd' at {{.*}}; split-reduce changes which threads run together, so it leaves kernels whose threads communicate alone
__global__ void atomic(float *y, float *total, const float *A, int rows,
                       int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    atomicAdd(total, s);
  }
}

// An atomic inside a __device__ function the kernel calls.
// VIAHELPER: kernel 'viahelper': kernel 'viahelper' calls the atomic 'atomicAdd' through 'addTo' at {{.*}}; split-reduce changes which threads run together, so it leaves kernels whose threads communicate alone
__device__ void addTo(float *t, float v) { atomicAdd(t, v); }
__global__ void viahelper(float *y, float *total, const float *A, int rows,
                          int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    addTo(total, s);
  }
}

// A warp-level intrinsic.
// WARP: kernel 'warp': kernel 'warp' calls __shfl_down_sync at {{.*}}, so its threads do not work independently
__global__ void warp(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    y[c] = s + __shfl_down_sync(0xffffffffu, s, 1);
  }
}

// Two loops: split-reduce splits exactly one.
// TWOLOOPS: kernel 'twoloops': kernel 'twoloops' has 2 loops in its per-column work; split-reduce splits a kernel whose work is exactly one reduction loop
__global__ void twoloops(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    float m = 0.0f;
    for (int r = 0; r < rows; ++r)
      m = fmaxf(m, A[r * cols + c] - s);
    y[c] = m;
  }
}

// The loop writes memory as well as reducing.
// WRITES: kernel 'writes': the loop at {{.*}} writes memory; split-reduce splits only loops that reduce values into scalars
__global__ void writes(float *__restrict__ y, float *__restrict__ B,
                       const float *__restrict__ A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r) {
      s += A[r * cols + c];
      B[c * rows + r] = 2.0f * A[r * cols + c];
    }
    y[c] = s;
  }
}

// The loop carries nothing to combine.
// NOREDUCTION: kernel 'noreduction': the loop at {{.*}} carries no reduction (sum, product, min, max, argmin, argmax) to split
__global__ void noreduction(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    for (int r = 0; r < rows; ++r) {
      float t = A[r * cols + c];
      (void)t;
    }
    y[c] = 0.0f;
  }
}

// A data-dependent exit.
// EARLY: kernel 'early': the loop at {{.*}} leaves early with 'break' at {{.*}}, so which columns it visits depends on the data
__global__ void early(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r) {
      if (A[r * cols + c] < 0.0f)
        break;
      s += A[r * cols + c];
    }
    y[c] = s;
  }
}

// A return inside the loop.
// INLOOPRETURN: kernel 'inloopreturn': the per-element work returns from inside a loop at {{.*}}, which cannot become 'continue' of the new loop
__global__ void inloopreturn(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r) {
      if (A[r * cols + c] < 0.0f)
        return;
      s += A[r * cols + c];
    }
    y[c] = s;
  }
}

// A store before the loop would run once per thread row.
// PRESTORE: kernel 'prestore': the statement at {{.*}} before the loop writes memory (or has other effects); every thread of a column runs the statements before the loop, so split-reduce would repeat it
__global__ void prestore(float *y, int *flag, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    flag[c] = 1;
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    y[c] = s;
  }
}

// A return before the loop would skip the barrier.
// PRERETURN: kernel 'prereturn': the statement at {{.*}} before the loop returns; every thread must reach the barrier after the loop
__global__ void prereturn(float *y, const float *A, const int *len, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    int n = len[c];
    if (n <= 0)
      return;
    float s = 0.0f;
    for (int r = 0; r < n; ++r)
      s += A[r * cols + c];
    y[c] = s;
  }
}

// An inclusive bound ('<=').
// INCLUSIVE: kernel 'inclusive': the loop at {{.*}} has an inclusive bound ('<='); split-reduce splits loops 'for (j = a; j < b; ++j)'
__global__ void inclusive(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r <= rows - 1; ++r)
      s += A[r * cols + c];
    y[c] = s;
  }
}

// An unsigned bound: the chunks are computed in signed arithmetic.
// UNSIGNEDBOUND: kernel 'unsignedbound': the loop at {{.*}} compares its counter with the unsigned value 'rows'; split-reduce computes the chunks in signed arithmetic
__global__ void unsignedbound(float *y, const float *A, unsigned rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    y[c] = s;
  }
}

// A local array read after the barrier cannot be declared before the guard and assigned.
// HOISTARRAY: kernel 'hoistarray': 'w' (declared at {{.*}}) is read after the barrier and has type 'float[2]'; split-reduce declares such variables before the guard and assigns them, which it does only for scalars
__global__ void hoistarray(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float w[2] = {A[c], A[cols + c]};
    float s = 0.0f;
    for (int r = 2; r < rows; ++r)
      s += A[r * cols + c];
    y[c] = s * w[0] + w[1];
  }
}

// Moving the declaration of the result before the guard would clash with the parameter of the same name.
// CLASH: kernel 'clash': 'sum' (declared at {{.*}}) is read after the barrier, and moving its declaration before the guard would clash with another 'sum' of the kernel
__global__ void clash(float *y, const float *A, int rows, int cols,
                      float sum) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r)
      sum += A[r * cols + c];
    y[c] = sum;
  }
}

// A block of 96 threads is not a whole number of blocks of 64.
// ODDBLOCK: kernel 'oddblock': the launch at {{.*}} uses blocks of 96 threads, not a multiple of block-x=64, so no whole number of new blocks covers an old one
__global__ void oddblock(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    y[c] = s;
  }
}

// A block size known only at run time.
// DYNBLOCK: kernel 'dynblock': the block of the launch at {{.*}} is not a constant 1-D size, so split-reduce cannot scale its grid to keep every column
__global__ void dynblock(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    y[c] = s;
  }
}

// A 2-D block.
// BLOCK2D: kernel 'block2d': the block of the launch at {{.*}} is not a constant 1-D size, so split-reduce cannot scale its grid to keep every column
__global__ void block2d(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    y[c] = s;
  }
}

// No launch to rewrite.
// NOTLAUNCHED: kernel 'notlaunched': kernel 'notlaunched' is not launched in this file, so split-reduce cannot give its launches the new block shape
__global__ void notlaunched(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    y[c] = s;
  }
}

// __launch_bounds__ below the new block of 64 x 16 threads.
// BOUNDED: kernel 'bounded': kernel 'bounded' has __launch_bounds__(256), below the new block size of 1024 threads
__global__ void __launch_bounds__(256) bounded(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    y[c] = s;
  }
}

// A float sum under a strict fp-model.
// PINNED: kernel 'pinned': the rewrite reorders floating-point reductions, which --fp-model=strict does not allow for kernel 'pinned' (needs --fp-model=reassoc)
#pragma cuda_opt fp_model(strict)
__global__ void pinned(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    y[c] = s;
  }
}

// An index with a hard-coded block size.
// FIXEDBLOCK: kernel 'fixedblock': index 'c' at {{.*}} is computed as 'blockIdx.x * 256 + threadIdx.x', not as blockIdx.x * blockDim.x + threadIdx.x
__global__ void fixedblock(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * 256 + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    y[c] = s;
  }
}

// Any kernel: 64 x 32 threads is more than a block may have.
// TOOBIG: kernel 'gemv': a block of 64x32 = 2048 threads exceeds the CUDA limit of 1024
// RANGE: parameter 'ways' of pass 'split-reduce' is 2, outside its range [4, 32]
__global__ void gemv(float *y, const float *A, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
      s += A[r * cols + c];
    y[c] = s;
  }
}

void run(float *y, float *B, float *total, int *flag, const float *A,
         const int *len, int rows, int cols, int threads) {
  gemv<<<(cols + 255) / 256, 256>>>(y, A, rows, cols);
  shared<<<(cols + 255) / 256, 256>>>(y, A, rows, cols);
  sync<<<(cols + 255) / 256, 256>>>(y, A, rows, cols);
  atomic<<<(cols + 255) / 256, 256>>>(y, total, A, rows, cols);
  viahelper<<<(cols + 255) / 256, 256>>>(y, total, A, rows, cols);
  warp<<<(cols + 255) / 256, 256>>>(y, A, rows, cols);
  twoloops<<<(cols + 255) / 256, 256>>>(y, A, rows, cols);
  writes<<<(cols + 255) / 256, 256>>>(y, B, A, rows, cols);
  noreduction<<<(cols + 255) / 256, 256>>>(y, A, rows, cols);
  early<<<(cols + 255) / 256, 256>>>(y, A, rows, cols);
  inloopreturn<<<(cols + 255) / 256, 256>>>(y, A, rows, cols);
  prestore<<<(cols + 255) / 256, 256>>>(y, flag, A, rows, cols);
  prereturn<<<(cols + 255) / 256, 256>>>(y, A, len, cols);
  inclusive<<<(cols + 255) / 256, 256>>>(y, A, rows, cols);
  unsignedbound<<<(cols + 255) / 256, 256>>>(y, A, rows, cols);
  hoistarray<<<(cols + 255) / 256, 256>>>(y, A, rows, cols);
  clash<<<(cols + 255) / 256, 256>>>(y, A, rows, cols, 0.0f);
  oddblock<<<(cols + 95) / 96, 96>>>(y, A, rows, cols);
  dynblock<<<(cols + threads - 1) / threads, threads>>>(y, A, rows, cols);
  block2d<<<(cols + 255) / 256, dim3(32, 8)>>>(y, A, rows, cols);
  bounded<<<(cols + 255) / 256, 256>>>(y, A, rows, cols);
  pinned<<<(cols + 255) / 256, 256>>>(y, A, rows, cols);
  fixedblock<<<(cols + 255) / 256, 256>>>(y, A, rows, cols);
}
