// RUN: not cuda-opt --passes='unroll' --kernel=bumps %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=IV
// RUN: not test -e %t.cu
// RUN: not cuda-opt --passes='unroll' --kernel=grid_stride %s 2>&1 | FileCheck %s --check-prefix=STEP
// RUN: not cuda-opt --passes='unroll' --kernel=shrinking %s 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: not cuda-opt --passes='unroll' --kernel=loopless %s 2>&1 | FileCheck %s --check-prefix=NOLOOP
// RUN: not cuda-opt --passes='unroll' --kernel=hinted %s 2>&1 | FileCheck %s --check-prefix=HINT
// RUN: not cuda-opt --passes='unroll{loop=1}' --kernel=hinted %s 2>&1 | FileCheck %s --check-prefix=NOUNROLL
// RUN: not cuda-opt --passes='unroll{loop=4}' --kernel=bumps %s 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not cuda-opt --passes='unroll{loop=0}' --kernel=floats %s 2>&1 | FileCheck %s --check-prefix=FLOAT
// RUN: not cuda-opt --passes='unroll{loop=0}' --kernel=loads %s 2>&1 | FileCheck %s --check-prefix=LOAD
// RUN: not cuda-opt --passes='unroll{factor=3}' %s 2>&1 | FileCheck %s --check-prefix=POW2
// RUN: not cuda-opt --passes='unroll{factor=64}' %s 2>&1 | FileCheck %s --check-prefix=MAX

// IV: error: pass 'unroll{factor=4,loop=-1}' is not legal here:
// IV-NEXT: kernel 'bumps': kernel 'bumps' has no innermost counted loop to unroll: loop at {{.*}}unroll-illegal.cu:[[@LINE+3]]:3 changes its induction variable 'k' in its body
// RANGE: kernel 'bumps' has 1 for loop, so loop=4 does not exist (loops count from 0)
__global__ void bumps(const float *in, float *out, int n) {
  for (int k = 0; k < n; ++k) {
    if (in[k] < 0.0f)
      ++k;
    out[k] = in[k];
  }
}

// STEP: loop at {{.*}}unroll-illegal.cu:[[@LINE+2]]:3 does not step its induction variable 'i' by a constant
__global__ void grid_stride(float *p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    p[i] = 0.0f;
}

// BOUND: loop at {{.*}}unroll-illegal.cu:[[@LINE+2]]:3 may change its bound 'n' in its body
__global__ void shrinking(float *p, int n) {
  for (int i = 0; i < n; ++i)
    if (p[i] > 0.0f)
      --n;
}

// NOLOOP: kernel 'loopless' has no for loop to unroll
__global__ void loopless(float *p) { p[threadIdx.x] = 1.0f; }

// HINT: loop at {{.*}}unroll-illegal.cu:[[@LINE+4]]:3 already has a loop pragma (#pragma unroll or #pragma nounroll)
// NOUNROLL: loop at {{.*}}unroll-illegal.cu:[[@LINE+6]]:3 already has a loop pragma
__global__ void hinted(float *p, int n) {
#pragma unroll 2
  for (int i = 0; i < n; ++i)
    p[i] = 0.0f;
#pragma nounroll
  for (int j = 0; j < n; ++j)
    p[j] += 1.0f;
}

// FLOAT: loop at {{.*}}unroll-illegal.cu:[[@LINE+2]]:3 does not declare one integer induction variable in its init
__global__ void floats(float *p, float limit) {
  for (float x = 0.0f; x < limit; x += 1.0f)
    p[0] += x;
}

// LOAD: loop at {{.*}}unroll-illegal.cu:[[@LINE+2]]:3 has a bound 'p[0]' that may change while the loop runs
__global__ void loads(float *p) {
  for (int i = 0; i < p[0]; ++i)
    p[i + 1] = 0.0f;
}

// POW2: error: parameter 'factor' of pass 'unroll' must be a power of two, got 3
// MAX: error: parameter 'factor' of pass 'unroll' is 64, outside its range [2, 32]
