// RUN: cuda-opt --analyze %s --kernel poly --json | FileCheck %s --check-prefix=EXACT
// RUN: cuda-opt --analyze %s --kernel dot_rows --json | FileCheck %s --check-prefix=ASYMPTOTIC
// RUN: cuda-opt --analyze %s --kernel halve --json | FileCheck %s --check-prefix=UNKNOWN

// Horner evaluation of a degree-8 polynomial: 16 flops per 8 bytes.
__global__ void poly(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i];
  float r = 1.0f;
  for (int d = 0; d < 8; ++d)
    r = r * v + 1.0f;
  y[i] = r;
}

// Row sums of squares: the loop trip count is a parameter.
__global__ void dot_rows(const double *m, double *out, int cols) {
  int row = blockIdx.x;
  double s = 0.0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    s += m[row * cols + c] * m[row * cols + c];
  atomicAdd(&out[row], s);
}

// Flops in a loop with an unknown trip count, bytes outside it.
__global__ void halve(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  for (int s = n; s > 1; s /= 2)
    v = v * 0.5f;
  x[i] = v;
}

// EXACT:      "arithmetic_intensity": {
// EXACT-NEXT:   "flops": "16",
// EXACT-NEXT:   "flops_per_byte": 2,
// EXACT-NEXT:   "flops_per_byte_text": "2",
// EXACT-NEXT:   "global_bytes": "8",
// EXACT-NEXT:   "note": "static count; all trip counts known",
// EXACT-NEXT:   "status": "exact"
// A compute loop that touches no memory does not stop a map.
// EXACT:      "kind": "elementwise"

// ASYMPTOTIC: "arithmetic_intensity": {
// ASYMPTOTIC-NEXT: "flops": "2*trips(c)",
// ASYMPTOTIC:   "flops_per_byte_text": "0.125",
// ASYMPTOTIC-NEXT: "global_bytes": "16*trips(c) + 16",
// ASYMPTOTIC-NEXT: "note": "limit for large trip counts; trip counts are symbolic",
// ASYMPTOTIC-NEXT: "status": "asymptotic"
// ASYMPTOTIC:   "block_stride": true,
// ASYMPTOTIC:   "trip_count_expr": "ceil((cols - threadIdx.x) / (blockDim.x))"

// UNKNOWN:    "arithmetic_intensity": {
// UNKNOWN-NEXT: "flops": "trips(s)",
// UNKNOWN-NEXT: "flops_per_byte": null,
// UNKNOWN-NEXT: "flops_per_byte_text": "unknown",
// UNKNOWN-NEXT: "global_bytes": "8",
// UNKNOWN-NEXT: "note": "depends on symbolic trip counts or element sizes",
// UNKNOWN-NEXT: "status": "unknown"
// UNKNOWN:      "trip_count_expr": "~log2(n)"
