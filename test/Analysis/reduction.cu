// RUN: cuda-opt --analyze %s --kernel reduce_shared --json | FileCheck %s --check-prefix=TREE
// RUN: cuda-opt --analyze %s --kernel dot_shuffle --json | FileCheck %s --check-prefix=SHFL
// RUN: cuda-opt --analyze %s --kernel sum_atomic --json | FileCheck %s --check-prefix=ATOMIC

#define BLOCK 256

// Shared-memory tree reduction, two loads per thread (reduce #4 of the
// well-known series).
__global__ void reduce_shared(const float *in, float *out, int n) {
  __shared__ float sdata[BLOCK];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  float v = 0.0f;
  if (i < n)
    v = in[i];
  if (i + blockDim.x < n)
    v += in[i + blockDim.x];
  sdata[tid] = v;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = sdata[0];
}

// Dot product: grid-stride partial sums, warp shuffles, one atomic per warp.
__global__ void dot_shuffle(const float *a, const float *b, float *result,
                            int n) {
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    sum += a[i] * b[i];
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_down_sync(0xffffffff, sum, offset);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(result, sum);
}

// Plain atomic accumulation into one counter per block row.
__global__ void sum_atomic(const int *values, int *totals, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&totals[blockIdx.y], values[i]);
}

// TREE:       "text": "sdata[tid]"
// TREE:       "kind": "readwrite",
// TREE:       "space": "shared",
// TREE:       "index_form": "s + threadIdx.x",
// TREE:       "text": "sdata[tid + s]"
// TREE:       "index_form": "blockIdx.x",
// TREE:       "kind": "write",
// TREE:       "pattern": "broadcast",
// TREE:       "text": "out[blockIdx.x]"
// TREE:       "barriers": [
// TREE:         "loop": -1,
// TREE:         "loop": 0,
// TREE:       "idiom": {
// TREE-NEXT:    "evidence": "tree loop over 's' (line 20) with a barrier combines 'sdata[tid + s]' into 'sdata' (shared memory tree reduction)",
// TREE-NEXT:    "kind": "reduction"
// TREE:       "loops": [
// TREE:         "factor": "/2",
// TREE:         "induction_var": "s",
// TREE:         "init": "blockDim.x / 2",
// TREE:         "step_kind": "geometric",
// TREE-NEXT:    "trip_count": null,
// TREE-NEXT:    "trip_count_expr": "~log2((blockDim.x / 2))"
// TREE:       "shared_memory": {
// TREE:           "bytes": 1024,
// TREE:         "static_bytes": 1024
// TREE:         "name": "i",
// TREE-NEXT:    "role": "global linear index x (block size 2*blockDim.x)",

// SHFL:       "atomics": [
// SHFL-NEXT:    {
// SHFL-NEXT:      "access": 2,
// SHFL:           "op": "atomicAdd",
// SHFL-NEXT:      "target": "result",
// SHFL-NEXT:      "target_pattern": "broadcast"
// SHFL:       "idiom": {
// SHFL-NEXT:    "evidence": "__shfl_down_sync inside the halving loop over 'offset' (line 36): warp-shuffle tree reduction",
// SHFL-NEXT:    "kind": "reduction"
// SHFL:         "grid_stride": true,
// SHFL:         "factor": "/2",
// SHFL:         "trip_count": 5,
// SHFL:       "shuffles": [
// SHFL:           "loop": 1,
// SHFL-NEXT:      "op": "__shfl_down_sync"

// ATOMIC:     "kind": "atomic",
// ATOMIC:     "text": "totals[blockIdx.y]"
// ATOMIC:     "idiom": {
// ATOMIC-NEXT:  "evidence": "atomicAdd into 'totals[blockIdx.y]', the same address for every thread of a block (atomic accumulation)",
// ATOMIC-NEXT:  "kind": "reduction"
// ATOMIC:       "atomics": 1,
// ATOMIC:       "name": "totals",

// RUN: cuda-opt --analyze %s --kernel warp_sum_unrolled --json | FileCheck %s --check-prefix=UNROLLED

// Warp sum with the shuffle steps written out.
__global__ void warp_sum_unrolled(const float *in, float *out) {
  float v = in[blockIdx.x * 32 + threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  v += __shfl_down_sync(0xffffffff, v, 8);
  v += __shfl_down_sync(0xffffffff, v, 4);
  v += __shfl_down_sync(0xffffffff, v, 2);
  v += __shfl_down_sync(0xffffffff, v, 1);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}
// UNROLLED:      "idiom": {
// UNROLLED-NEXT:   "evidence": "5 __shfl_down/__shfl_xor steps: unrolled warp-shuffle reduction",
// UNROLLED-NEXT:   "kind": "reduction"
