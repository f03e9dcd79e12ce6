// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=shared %s 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=sync %s 2>&1 | FileCheck %s --check-prefix=SYNC
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=prefix %s 2>&1 | FileCheck %s --check-prefix=PREFIX
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=carried %s 2>&1 | FileCheck %s --check-prefix=CARRIED
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=crossrow %s 2>&1 | FileCheck %s --check-prefix=CROSSROW
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=scatter %s 2>&1 | FileCheck %s --check-prefix=SCATTER
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=early %s 2>&1 | FileCheck %s --check-prefix=BREAK
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=lastwins %s 2>&1 | FileCheck %s --check-prefix=LASTWINS
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=atomic %s 2>&1 | FileCheck %s --check-prefix=ATOMIC
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=noloop %s 2>&1 | FileCheck %s --check-prefix=NOLOOP
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=oddblock %s 2>&1 | FileCheck %s --check-prefix=ODDBLOCK
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=notlaunched %s 2>&1 | FileCheck %s --check-prefix=NOLAUNCH
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=aliased %s 2>&1 | FileCheck %s --check-prefix=ALIAS
// RUN: not cuda-opt --passes='cooperative-rows{lanes=8}' --kernel=pinned %s 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: not cuda-opt --passes='cooperative-rows{lanes=3}' %s 2>&1 | FileCheck %s --check-prefix=POW2

// SHARED: kernel 'shared': kernel 'shared' uses __shared__ memory ('tile' at {{.*}}), so its threads do not work independently
__global__ void shared(float *out, const float *in, int rows, int cols) {
  __shared__ float tile[256];
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += in[r * cols + j];
    tile[0] = s;
    out[r] = tile[0];
  }
}

// SYNC: kernel 'sync': kernel 'sync' calls __syncthreads at {{.*}}, so its threads do not work independently
__global__ void sync(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += in[r * cols + j];
    out[r] = s;
  }
  __syncthreads();
}

// A running sum that the loop also stores: a scan, not a reduction.
// PREFIX: kernel 'prefix': the loop at {{.*}}illegal.cu:[[@LINE+5]]:5 reads 's' at {{.*}} outside its sum update, so each iteration depends on the running value (like a prefix sum)
__global__ void prefix(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j) {
      out[r * cols + j] = s; // exclusive: reads s before its update
      s += in[r * cols + j];
    }
  }
}

// A carried scalar that is not a recurrence (a recurrence of order two).
// CARRIED: kernel 'carried': 'a' carries a value from one iteration of the loop at {{.*}} to the next, and its update at {{.*}} is not a sum, product, min, max or argmin/argmax
__global__ void carried(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float a = 0.0f, b = 1.0f;
    for (int j = 0; j < cols; ++j) {
      float t = a;
      a = b;
      b = t + b * in[r * cols + j];
    }
    out[r] = b;
  }
}

// Each row reads the previous row's output: another element of the array
// the loop writes.
// CROSSROW: kernel 'crossrow': the loop at {{.*}} writes 'out[r * cols + j]' and also accesses 'out[(r - 1) * cols + j]' at {{.*}}, another element of the same array, so its iterations (or rows) may depend on each other
__global__ void crossrow(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = in[r * cols + j] + (r > 0 ? out[(r - 1) * cols + j] : 0.0f);
  }
}

// SCATTER: kernel 'scatter': the loop at {{.*}} writes 'out[r * cols + perm[j]]' at {{.*}}, whose index is not 'j' times a non-zero constant plus a value fixed for the row, so different iterations may write the same element
__global__ void scatter(float *out, const float *in, const int *perm, int rows,
                        int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows)
    for (int j = 0; j < cols; ++j)
      out[r * cols + perm[j]] = in[r * cols + j];
}

// BREAK: kernel 'early': the loop at {{.*}} leaves early with 'break' at {{.*}}, so which columns it visits depends on the data
__global__ void early(int *first, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    int k = -1;
    for (int j = 0; j < cols; ++j)
      if (in[r * cols + j] < 0.0f) {
        k = j;
        break;
      }
    first[r] = k;
  }
}

// LASTWINS: kernel 'lastwins': the argmax at {{.*}} compares with '>=' or '<=', so ties go to the last position; cuda-opt only splits arg-min/max loops whose ties go to the first
__global__ void lastwins(int *idx, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float b = in[r * cols];
    int k = 0;
    for (int j = 1; j < cols; ++j)
      if (in[r * cols + j] >= b) {
        b = in[r * cols + j];
        k = j;
      }
    idx[r] = k;
  }
}

// ATOMIC: kernel 'atomic': the loop at {{.*}} calls 'atomicAdd' at {{.*}}, which may have effects (atomics, output, writes cuda-opt cannot see) that cannot be spread over threads
__global__ void atomic(float *total, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows)
    for (int j = 0; j < cols; ++j)
      atomicAdd(total, in[r * cols + j]);
}

// NOLOOP: kernel 'noloop': kernel 'noloop' has no loop over the row at the top of its per-row work, so there is nothing to share between threads
__global__ void noloop(float *out, const float *in, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows)
    out[r] = 2.0f * in[r];
}

// ODDBLOCK: kernel 'oddblock': the launch at {{.*}} uses blocks of 100 threads, not a multiple of 8, so a group would straddle two blocks
__global__ void oddblock(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += in[r * cols + j];
    out[r] = s;
  }
}

// NOLAUNCH: kernel 'notlaunched': kernel 'notlaunched' is not launched in this file, so cuda-opt cannot check that its block size is a multiple of 8
__global__ void notlaunched(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += in[r * cols + j];
    out[r] = s;
  }
}

// The launch passes pointers it got from its caller, which may overlap.
// ALIAS: kernel 'aliased': the loop at {{.*}} writes 'out[r * cols + j]' and reads 'in[r * cols + j]', and nothing shows that 'out' and 'in' do not overlap: at the launch at {{.*}}, 'out' is a parameter of the launching function, so where it points is decided by its callers
__global__ void aliased(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows)
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = 2.0f * in[r * cols + j];
}

// STRICT: kernel 'pinned': the rewrite reorders floating-point reductions, which --fp-model=strict does not allow for kernel 'pinned'
#pragma cuda_opt fp_model(strict)
__global__ void pinned(float *out, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += in[r * cols + j];
    out[r] = s;
  }
}

// POW2: parameter 'lanes' of pass 'cooperative-rows' must be a power of two, got 3

void run(float *out, const float *in, int *idx, int rows, int cols) {
  float *o, *i;
  int *p;
  cudaMalloc(&o, rows * cols * sizeof(float));
  cudaMalloc(&i, rows * cols * sizeof(float));
  cudaMalloc(&p, cols * sizeof(int));
  shared<<<(rows + 255) / 256, 256>>>(o, i, rows, cols);
  sync<<<(rows + 255) / 256, 256>>>(o, i, rows, cols);
  prefix<<<(rows + 255) / 256, 256>>>(o, i, rows, cols);
  carried<<<(rows + 255) / 256, 256>>>(o, i, rows, cols);
  crossrow<<<(rows + 255) / 256, 256>>>(o, i, rows, cols);
  scatter<<<(rows + 255) / 256, 256>>>(o, i, p, rows, cols);
  early<<<(rows + 255) / 256, 256>>>(idx, i, rows, cols);
  lastwins<<<(rows + 255) / 256, 256>>>(idx, i, rows, cols);
  atomic<<<(rows + 255) / 256, 256>>>(o, i, rows, cols);
  noloop<<<(rows + 255) / 256, 256>>>(o, i, rows);
  oddblock<<<(rows + 99) / 100, 100>>>(o, i, rows, cols);
  aliased<<<(rows + 255) / 256, 256>>>(out, in, rows, cols);
  pinned<<<(rows + 255) / 256, 256>>>(o, i, rows, cols);
}
