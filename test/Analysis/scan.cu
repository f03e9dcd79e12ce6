// RUN: cuda-opt --analyze %s --kernel scan_hillis_steele --json | FileCheck %s --check-prefix=HS
// RUN: cuda-opt --analyze %s --kernel scan_blelloch --json | FileCheck %s --check-prefix=BLELLOCH

// Inclusive Hillis-Steele scan of one block in shared memory.
__global__ void scan_hillis_steele(const float *in, float *out, int n) {
  extern __shared__ float temp[];
  int tid = threadIdx.x;
  temp[tid] = tid < n ? in[tid] : 0.0f;
  __syncthreads();
  for (int offset = 1; offset < n; offset *= 2) {
    float t = 0.0f;
    if (tid >= offset)
      t = temp[tid - offset];
    __syncthreads();
    temp[tid] += t;
    __syncthreads();
  }
  if (tid < n)
    out[tid] = temp[tid];
}

// Work-efficient exclusive scan (GPU Gems 3, chapter 39).
__global__ void scan_blelloch(float *g_odata, const float *g_idata, int n) {
  extern __shared__ float temp[];
  int thid = threadIdx.x;
  int offset = 1;
  temp[2 * thid] = g_idata[2 * thid];
  temp[2 * thid + 1] = g_idata[2 * thid + 1];
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (thid == 0)
    temp[n - 1] = 0;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1;
      int bi = offset * (2 * thid + 2) - 1;
      float t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  g_odata[2 * thid] = temp[2 * thid];
  g_odata[2 * thid + 1] = temp[2 * thid + 1];
}

// HS:         "index_form": "-offset + threadIdx.x",
// HS:         "text": "temp[tid - offset]"
// HS:         "idiom": {
// HS-NEXT:      "evidence": "offset-doubling loop over 'offset' (line 10) with a barrier reads 'temp[tid - offset]' at a negative offset (Hillis-Steele scan)",
// HS-NEXT:      "kind": "scan"
// HS:           "contains_barrier": true,
// HS:           "factor": "*2",
// HS:           "trip_count_expr": "~log2(n)"
// HS:         "shared_memory": {
// HS:             "dynamic": true,
// HS-NEXT:        "name": "temp",
// HS:           "dynamic": true,

// BLELLOCH:   "affine": false,
// BLELLOCH:   "index_form": "2*offset*threadIdx.x + 2*offset - 1",
// BLELLOCH:   "pattern": "strided",
// BLELLOCH:   "stride_expr": "2*offset",
// BLELLOCH-NEXT: "text": "temp[bi]"
// BLELLOCH:   "idiom": {
// BLELLOCH-NEXT: "evidence": "two tree sweeps with barriers, loop over 'd' (line 29) then loop over 'd' (line 40) (up-sweep/down-sweep, Blelloch scan)",
// BLELLOCH-NEXT: "kind": "scan"
