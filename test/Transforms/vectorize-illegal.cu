// RUN: not cuda-opt --passes='vectorize' --kernel=shifted %s 2>&1 | FileCheck %s --check-prefix=SHIFTED
// RUN: not cuda-opt --passes='vectorize' --kernel=strided %s 2>&1 | FileCheck %s --check-prefix=STRIDED
// RUN: not cuda-opt --passes='vectorize' --kernel=gather %s 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: not cuda-opt --passes='vectorize' --kernel=mixed %s 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: not cuda-opt --passes='vectorize' --kernel=looping %s 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: not cuda-opt --passes='vectorize' --kernel=alias %s 2>&1 | FileCheck %s --check-prefix=ALIAS
// RUN: not cuda-opt --passes='vectorize' --kernel=floorgrid %s 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not cuda-opt --passes='vectorize{width=32}' %s 2>&1 | FileCheck %s --check-prefix=RANGE

// SHIFTED: kernel 'shifted': the access 'in[i + 1]' at {{.*}} is not 'p[i]' on a pointer parameter p, so its elements are not the thread's own
__global__ void shifted(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i + 1];
}

// STRIDED: kernel 'strided': the access 'in[2 * i]' at {{.*}} is not 'p[i]'
__global__ void strided(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[2 * i];
}

// GATHER: kernel 'gather': the access 'a[idx[i]]' at {{.*}} is not 'p[i]'
__global__ void gather(float *out, const float *a, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[idx[i]];
}

// MIXED: kernel 'mixed': kernel 'mixed' accesses elements of type 'float' and 'int'; vectorize needs one element type
__global__ void mixed(float *out, const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

// LOOP: kernel 'looping': kernel 'looping' has a loop at {{.*}} in its per-element work; vectorize handles straight-line bodies only
__global__ void looping(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < 3; ++k)
      p[i] *= 2.0f;
}

// ALIAS: kernel 'alias': kernel 'alias' reads 'b[i]' at {{.*}} after writing 'a[...]'; the two may alias, and the vector path reads everything first
__global__ void alias(float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] = 1.0f;
    c[i] = b[i];
  }
}

// GRID: kernel 'floorgrid': the grid of the launch at {{.*}} is 'n / 256 + 1', not a ceil-div
__global__ void floorgrid(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 0.0f;
}

// RANGE: parameter 'width' of pass 'vectorize' is 32, outside its range [2, 16]

void run(float *f, int *d, int n) {
  shifted<<<(n + 255) / 256, 256>>>(f, f, n);
  strided<<<(n + 255) / 256, 256>>>(f, f, n);
  gather<<<(n + 255) / 256, 256>>>(f, f, d, n);
  mixed<<<(n + 255) / 256, 256>>>(f, d, n);
  looping<<<(n + 255) / 256, 256>>>(f, n);
  alias<<<(n + 255) / 256, 256>>>(f, f, f, n);
  floorgrid<<<n / 256 + 1, 256>>>(f, n);
}
