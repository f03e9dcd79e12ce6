// RUN: cuda-opt --passes='block-scan' --kernel=scan_int %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='block-scan' --kernel=scan_float %s | FileCheck %s --check-prefix=FLOAT
// RUN: cuda-opt --fp-model=strict --passes='block-scan' --kernel=scan_int %s | FileCheck %s --check-prefix=STRICT
// RUN: not cuda-opt --fp-model=strict --passes='block-scan' --kernel=scan_float %s 2>&1 | FileCheck %s --check-prefix=STRICTF
// RUN: not cuda-opt --passes='block-scan' --kernel=after_return %s 2>&1 | FileCheck %s --check-prefix=RET
// RUN: not cuda-opt --passes='block-scan' --kernel=in_branch %s 2>&1 | FileCheck %s --check-prefix=BRANCH
// RUN: not cuda-opt --passes='block-scan' --kernel=mixed_types %s 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: not cuda-opt --passes='block-scan' --kernel=bound_n %s 2>&1 | FileCheck %s --check-prefix=SHAPE

// block-scan: the shared-memory (Hillis-Steele) prefix sum of a 1-D block
// becomes warp shuffles with two barriers; blocks that are not 1-D keep the
// loop. Integer scans are exact (allowed under --fp-model=strict).

// CHECK: static __device__ __forceinline__ int cudaOptBlockScanSum(int V) {
// CHECK: int Lower = __shfl_up_sync(Mask, V, Offset);
// CHECK-LABEL: __global__ void scan_int(
// CHECK: {{^ *}}if (blockDim.y == 1 && blockDim.z == 1) {
// CHECK-NEXT: {{^ *}}__syncthreads();
// CHECK-NEXT: {{^ *}}temp[tid] = cudaOptBlockScanSum(temp[tid]);
// CHECK-NEXT: {{^ *}}__syncthreads();
// CHECK-NEXT: {{^ *}}} else {
// CHECK-NEXT: {{^ *}}for (int offset = 1; offset < blockDim.x; offset *= 2) {
// CHECK: {{^ *}}out[i] = temp[tid];
__global__ void scan_int(int *out, int *sums, const int *in, int n) {
  __shared__ int temp[1024];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  temp[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset *= 2) {
    int v = 0;
    if (tid >= offset)
      v = temp[tid - offset];
    __syncthreads();
    temp[tid] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = temp[tid];
  if (tid == blockDim.x - 1)
    sums[blockIdx.x] = temp[tid];
}

// The other spellings: a conditional initialiser, `d <<= 1`, threadIdx.x
// itself, `a[t] = a[t] + v`; float sums are reassociated.
// FLOAT: static __device__ __forceinline__ float cudaOptBlockScanSum(float V) {
// FLOAT-LABEL: __global__ void scan_float(
// FLOAT: {{^ *}}buf[threadIdx.x] = cudaOptBlockScanSum(buf[threadIdx.x]);
// STRICT: temp[tid] = cudaOptBlockScanSum(temp[tid]);
// STRICTF: reorders floating-point reductions, which --fp-model=strict does not allow for kernel 'scan_float'
__global__ void scan_float(float *out, const float *in, int n) {
  __shared__ float buf[512];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d <<= 1) {
    float v = threadIdx.x >= d ? buf[threadIdx.x - d] : 0.0f;
    __syncthreads();
    buf[threadIdx.x] = buf[threadIdx.x] + v;
    __syncthreads();
  }
  if (i < n)
    out[i] = buf[threadIdx.x];
}

// RET: kernel 'after_return': the scan loop at {{.*}}block-scan.cu:[[@LINE+7]]:3 follows a 'return', so some threads may not reach it
__global__ void after_return(int *out, const int *in, int n) {
  __shared__ int temp[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x * blockDim.x >= n)
    return;
  temp[threadIdx.x] = i < n ? in[i] : 0;
  for (int d = 1; d < blockDim.x; d *= 2) {
    int v = 0;
    if (threadIdx.x >= d)
      v = temp[threadIdx.x - d];
    __syncthreads();
    temp[threadIdx.x] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = temp[threadIdx.x];
}

// BRANCH: kernel 'in_branch' has no block-wide prefix sum over a __shared__ array at its top level
__global__ void in_branch(int *out, const int *in, int n) {
  __shared__ int temp[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  temp[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  if (n > 1) {
    for (int d = 1; d < blockDim.x; d *= 2) {
      int v = 0;
      if (threadIdx.x >= d)
        v = temp[threadIdx.x - d];
      __syncthreads();
      temp[threadIdx.x] += v;
      __syncthreads();
    }
  }
  if (i < n)
    out[i] = temp[threadIdx.x];
}

// MIXED: kernel 'mixed_types': the scan loop at {{.*}}block-scan.cu:{{[0-9]+}}:3 adds a 'float' to elements of type 'int' (the sum's type would change)
__global__ void mixed_types(int *out, const int *in, int n) {
  __shared__ int temp[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  temp[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    float v = 0;
    if (threadIdx.x >= d)
      v = temp[threadIdx.x - d];
    __syncthreads();
    temp[threadIdx.x] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = temp[threadIdx.x];
}

// SHAPE: kernel 'bound_n' has no block-wide prefix sum over a __shared__ array at its top level
__global__ void bound_n(int *out, const int *in, int n) {
  __shared__ int temp[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  temp[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int d = 1; d < n; d *= 2) {
    int v = 0;
    if (threadIdx.x >= d)
      v = temp[threadIdx.x - d];
    __syncthreads();
    temp[threadIdx.x] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = temp[threadIdx.x];
}
