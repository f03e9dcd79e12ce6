// The fp64 shadow tune verifies float outputs against (docs/fp-model.md):
// the kernel and its __device__ callees copied with float promoted to double,
// literals and math functions with them; the original code is untouched.
// RUN: cuda-opt --fp64-shadow --kernel=softmax_rows %s -o %t.softmax.cu
// RUN: FileCheck %s --check-prefix=SOFTMAX --input-file=%t.softmax.cu
// RUN: %if nvcc %{ %nvcc -std=c++17 -arch=sm_90 -cubin %t.softmax.cu -o %t.softmax.cubin %}
// RUN: cuda-opt --fp64-shadow --kernel=scaled_sum %s -o %t.sum.cu
// RUN: FileCheck %s --check-prefix=SUM --input-file=%t.sum.cu
// RUN: %if nvcc %{ %nvcc -std=c++17 -arch=sm_90 -cubin %t.sum.cu -o %t.sum.cubin %}
// RUN: cuda-opt --fp64-shadow --kernel=staged %s -o %t.staged.cu
// RUN: FileCheck %s --check-prefix=STAGED --input-file=%t.staged.cu
// RUN: %if nvcc %{ %nvcc -std=c++17 -arch=sm_90 -cubin %t.staged.cu -o %t.staged.cubin %}
// RUN: not cuda-opt --fp64-shadow --kernel=bits %s 2>&1 | FileCheck %s --check-prefix=BITS
// RUN: not cuda-opt --fp64-shadow --kernel=vec4 %s 2>&1 | FileCheck %s --check-prefix=VEC
// RUN: not cuda-opt --fp64-shadow --kernel=macro_type %s 2>&1 | FileCheck %s --check-prefix=MACRO
// RUN: not cuda-opt --fp64-shadow --kernel=ints %s 2>&1 | FileCheck %s --check-prefix=INTS
// RUN: not cuda-opt --fp64-shadow %s 2>&1 | FileCheck %s --check-prefix=WHICH

#define REAL float
#define HALF 0.5f

// A dynamic shared array declares one array for the file: the shadow's
// double array gets its own name (found on cuda-samples' fastWalshTransform).
// STAGED: __global__ void staged(float *out, const float *in, int n) {
// STAGED:   extern __shared__ float tile[];
// STAGED: extern "C" __global__ void staged__cuda_opt_fp64(double *out, const double *in, int n) {
// STAGED:   extern __shared__ double tile__cuda_opt_fp64[];
// STAGED:   tile__cuda_opt_fp64[threadIdx.x] = in[i];
// STAGED:   out[i] = tile__cuda_opt_fp64[blockDim.x - 1 - threadIdx.x] * 2.0;
__global__ void staged(float *out, const float *in, int n) {
  extern __shared__ float tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[blockDim.x - 1 - threadIdx.x] * 2.0f;
}

__device__ float squash(float x) { return x * HALF + __expf(-x) * 2.0f; }

__global__ void softmax_rows(float *out, const float *__restrict__ in,
                             int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = in[r * cols];
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, in[r * cols + j]);
    float sum = 0.0f, unused = 1.f;
    for (int j = 0; j < cols; ++j)
      sum += expf(in[r * cols + j] - m);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] = __fdividef(expf(in[r * cols + j] - m), sum);
  }
}

__global__ void scaled_sum(float *result, const float *x, float alpha, int n) {
  __shared__ float part[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = i < n ? squash(alpha * x[i]) : 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (int k = 0; k < blockDim.x; ++k)
      s += part[k];
    atomicAdd(result, static_cast<float>(s));
  }
}

__global__ void bits(int *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __float_as_int(in[i]);
}

__global__ void vec4(float4 *out, const float4 *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void macro_type(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  REAL v = i;
  if (i < n)
    out[i] = v;
}

__global__ void ints(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = i;
}

// The original is kept as written.
// SOFTMAX: __global__ void softmax_rows(float *out, const float *__restrict__ in,
// SOFTMAX: // cuda-opt: the fp64 shadow of kernel 'softmax_rows'
// SOFTMAX-NEXT: extern "C" __global__ void softmax_rows__cuda_opt_fp64(double *out, const double *__restrict__ in,
// SOFTMAX: double m = in[r * cols];
// SOFTMAX: m = fmax(m, in[r * cols + j]);
// SOFTMAX: double sum = 0.0, unused = 1.;
// SOFTMAX: sum += exp(in[r * cols + j] - m);
// SOFTMAX: out[r * cols + j] = __ddiv_rn(exp(in[r * cols + j] - m), sum);

// The callee is copied first; the macro's literal keeps its (float) value.
// SUM: // cuda-opt: the fp64 shadow of kernel 'scaled_sum'
// SUM-NEXT: static __device__ double squash__cuda_opt_fp64(double x) { return x * HALF + exp(-x) * 2.0; }
// SUM: extern "C" __global__ void scaled_sum__cuda_opt_fp64(double *result, const double *x, double alpha, int n) {
// SUM: __shared__ double part[256];
// SUM: part[threadIdx.x] = i < n ? squash__cuda_opt_fp64(alpha * x[i]) : 0.0;
// SUM: double s = 0;
// SUM: atomicAdd(result, static_cast<double>(s));

// BITS: error: no fp64 shadow of kernel 'bits': calls `__float_as_int`, which has no double counterpart
// VEC: error: no fp64 shadow of kernel 'vec4': uses `float4`, a type with float members
// MACRO: error: no fp64 shadow of kernel 'macro_type': `float` is spelled in a macro
// INTS: error: no fp64 shadow of kernel 'ints': it has no float parameter to promote
// WHICH: error: '{{.*}}fp64-shadow.cu' defines several kernels; name one with --kernel=NAME
