// RUN: cuda-opt --passes='fuse-launches' --kernel=scale %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='fuse-launches' --kernel=square %s | FileCheck %s --check-prefix=KEPT
// RUN: cuda-opt --fp-model=strict --passes='fuse-launches' --kernel=scale %s | FileCheck %s --check-prefix=STRICT
// RUN: cuda-opt --passes='fuse-launches' --kernel=sq_map %s | FileCheck %s --check-prefix=CONSUMER

// fuse-launches: two back-to-back launches of one-element-per-thread kernels
// over the same elements become one launch of a new kernel. 'tmp' is only
// allocated, passed and freed, so it lives in a local of the fused kernel;
// 'mid' is read after the pair, so it is still stored. A product the second
// kernel reads is written __fmul_rn, so it cannot be contracted into the
// second kernel's addition.

#include <cuda_runtime.h>

__global__ void scale(float *tmp, const float *x, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    tmp[i] = alpha * x[i];
}

__global__ void bias_relu(float *y, const float *tmp, float beta, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = tmp[i] + beta;
  y[i] = v > 0.0f ? v : 0.0f;
}

__global__ void square(float *mid, const float *x, int count) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < count) {
    float v = x[j];
    mid[j] = v * v;
  }
}

__global__ void add_one(float *out, const float *mid, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count) {
    float v = mid[k];
    out[k] = v + 1.0f;
  }
}

// CHECK-LABEL: __global__ void bias_relu(
// CHECK: /// Added by cuda-opt fuse-launches: 'scale' then 'bias_relu' in one launch;
// CHECK-NEXT: /// 'tmp' is not needed after them, so each thread keeps its element in a local.
// CHECK-NEXT: __global__ void scale_bias_relu(const float *x, float alpha, int n, float *y,
// CHECK-NEXT:                                 float beta) {
// CHECK-NEXT:   int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT:   if (i < n) {
// CHECK-NEXT:     float tmp_i = __fmul_rn(alpha, x[i]);
// CHECK-NEXT:     float v = tmp_i + beta;
// CHECK-NEXT:     y[i] = v > 0.0f ? v : 0.0f;
// CHECK-NEXT:   }
// CHECK-NEXT: }

// CHECK-LABEL: {{^}}void run(
// CHECK: {{^ *}}scale_bias_relu<<<(n + 255) / 256, 256>>>(x, alpha, n, y, beta);
// CHECK-NEXT: {{^ *}}cudaGetLastError();
// CHECK-NOT: {{^ *}}bias_relu<<<
// CHECK: {{^ *}}cudaFree(tmp);
void run(float *host, float alpha, float beta, int n) {
  float *x, *y, *tmp;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&tmp, n * sizeof(float));
  cudaMemcpy(x, host, n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(n + 255) / 256, 256>>>(tmp, x, alpha, n);
  cudaGetLastError();
  bias_relu<<<(n + 255) / 256, 256>>>(y, tmp, beta, n);
  cudaFree(tmp);
  cudaMemcpy(host, y, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(x);
  cudaFree(y);
}

// Both works declare 'v': each keeps its own block. 'mid' is read after
// the pair, so it stays in memory.
// KEPT-LABEL: __global__ void square_add_one(float *mid, const float *x, int count,
// KEPT-NEXT:                                float *out) {
// KEPT-NEXT:   int j = blockIdx.x * blockDim.x + threadIdx.x;
// KEPT-NEXT:   if (j < count) {
// KEPT-NEXT:     {
// KEPT-NEXT:       float v = x[j];
// KEPT-NEXT:       mid[j] = __fmul_rn(v, v);
// KEPT-NEXT:     }
// KEPT-NEXT:     {
// KEPT-NEXT:       float v = mid[j];
// KEPT-NEXT:       out[j] = v + 1.0f;
// KEPT-NEXT:     }
// KEPT-NEXT:   }
// KEPT-NEXT: }
// KEPT: {{^ *}}square_add_one<<<blocks, 128>>>(mid, x, count, out);
// KEPT-NOT: {{^ *}}add_one<<<
float run_kept(int count, int blocks) {
  float *x, *out, *mid;
  cudaMalloc(&x, count * sizeof(float));
  cudaMalloc(&out, count * sizeof(float));
  cudaMalloc(&mid, count * sizeof(float));
  square<<<blocks, 128>>>(mid, x, count);
  add_one<<<blocks, 128>>>(out, mid, count);
  float first;
  cudaMemcpy(&first, mid, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(mid);
  return first;
}

// Every output stays bit for bit (the handed-over product is rounded as the
// store rounded it), so the rewrite is allowed under strict.
// STRICT: float tmp_i = __fmul_rn(alpha, x[i]);

// Map -> consumer: the reduction is not a map, but it reads 'sq' only at its
// thread's global index under 'j < n': it reads 'x[j] * x[j]' there instead
// and keeps its shape.
__global__ void sq_map(float *sq, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    sq[i] = x[i] * x[i];
}

__global__ void tree_sum(float *result, const float *in, int n) {
  __shared__ float sdata[256];
  int tid = threadIdx.x;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = j < n ? in[j] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(result, sdata[0]);
}

// CONSUMER-LABEL: __global__ void sq_map_tree_sum(const float *x, int n, float *result) {
// CONSUMER-NEXT:   __shared__ float sdata[256];
// CONSUMER-NEXT:   int tid = threadIdx.x;
// CONSUMER-NEXT:   int j = blockIdx.x * blockDim.x + threadIdx.x;
// CONSUMER-NEXT:   sdata[tid] = j < n ? (__fmul_rn(x[j], x[j])) : 0.0f;
// CONSUMER-NEXT:   __syncthreads();
// CONSUMER: {{^ *}}sq_map_tree_sum<<<(n + 255) / 256, 256>>>(x, n, result);
// CONSUMER-NOT: {{^ *}}tree_sum<<<
float sum_of_squares(int n) {
  float *x, *sq, *result, got;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&result, sizeof(float));
  cudaMalloc(&sq, n * sizeof(float));
  sq_map<<<(n + 255) / 256, 256>>>(sq, x, n);
  tree_sum<<<(n + 255) / 256, 256>>>(result, sq, n);
  cudaFree(sq);
  cudaMemcpy(&got, result, sizeof(float), cudaMemcpyDeviceToHost);
  return got;
}
