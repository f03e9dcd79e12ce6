// RUN: cuda-opt --analyze %s --kernel histogram --json | FileCheck %s

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define W 32

// Block histogram: shared bins, atomics on shared and global memory, all
// three barrier kinds, static and dynamic shared memory.
__global__ void histogram(const unsigned char *data, unsigned int *bins,
                          int n) {
  __shared__ unsigned int local[256];
  __shared__ float scratch[W][W + 1];
  extern __shared__ float dyn[];
  cg::thread_block block = cg::this_thread_block();
  int t = threadIdx.x;
  local[t] = 0;
  block.sync();
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  if (t < 32) {
    scratch[t][0] = dyn[t];
    __syncwarp();
  }
  atomicAdd(&bins[t], local[t]);
}

// CHECK:      "atomics": [
// CHECK:          "op": "atomicAdd",
// CHECK-NEXT:     "target": "local",
// CHECK-NEXT:     "target_pattern": "irregular"
// CHECK:          "op": "atomicAdd",
// CHECK-NEXT:     "target": "bins",
// CHECK-NEXT:     "target_pattern": "coalesced"
// CHECK:      "barriers": [
// CHECK:          "divergent": false,
// CHECK-NEXT:     "kind": "block.sync()",
// CHECK:          "scope": "block"
// CHECK:          "kind": "__syncthreads",
// CHECK:          "divergent": true,
// CHECK-NEXT:     "kind": "__syncwarp",
// CHECK:          "scope": "warp"
// CHECK:      "idiom": {
// CHECK-NEXT:   "evidence": "no idiom matched; irregular access 'local[data[i]]': index depends on loaded data (data[i])",
// CHECK-NEXT:   "kind": "unknown"
// CHECK:      "shared_memory": {
// CHECK:          "bytes": 1024,
// CHECK-NEXT:     "dynamic": false,
// CHECK-NEXT:     "name": "local",
// CHECK:          "bytes": 4224,
// CHECK:          "name": "scratch",
// CHECK-NEXT:     "type": "float[32][33]"
// CHECK:          "bytes": null,
// CHECK-NEXT:     "dynamic": true,
// CHECK-NEXT:     "name": "dyn",
// CHECK:        "dynamic": true,
// CHECK-NEXT:   "static_bytes": 5248

// RUN: cuda-opt --analyze %s --kernel early_exit --json | FileCheck %s --check-prefix=EXIT

// A barrier after a thread-dependent return is not reached by every thread.
__global__ void early_exit(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  x[i] *= 2.0f;
  __syncthreads();
}
// EXIT:      "barriers": [
// EXIT-NEXT:   {
// EXIT-NEXT:     "divergent": true,
// EXIT-NEXT:     "kind": "__syncthreads",
