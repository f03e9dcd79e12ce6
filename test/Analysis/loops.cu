// RUN: cuda-opt --analyze %s --json | FileCheck %s

#define ROWS 8

__global__ void loop_shapes(float *data, const float *src, int n, int m) {
  int tid = threadIdx.x;
  float acc = 0.0f;
  // Constant trip count, nested three deep.
  for (int r = 0; r < ROWS; ++r)
    for (int c = r; c <= 2 * ROWS; c += 2)
      for (int q = 10; q > 0; --q)
        acc += src[(r * 17 + c) * 10 + q];
  // Symbolic trip count.
  for (int j = 0; j < m; ++j)
    acc += src[j * n + tid];
  // Block-stride loop.
  for (int k = tid; k < n; k += blockDim.x)
    data[k] += acc;
  // Halving loop with a constant start.
  for (int s = 128; s > 0; s >>= 1)
    acc *= 0.5f;
  // While loop stepping by the whole grid.
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  while (g < n) {
    data[g] *= acc;
    g += gridDim.x * blockDim.x;
  }
}

// CHECK:      "loops": [
// CHECK:        "depth": 1,
// CHECK:        "induction_var": "r",
// CHECK:        "trip_count": 8,
// The inner bound depends on r: only a symbolic count.
// CHECK:        "depth": 2,
// CHECK:        "induction_var": "c",
// CHECK:        "parent": 0,
// CHECK:        "stride": "2",
// CHECK-NEXT:   "trip_count": null,
// CHECK-NEXT:   "trip_count_expr": "ceil((-r + 17) / (2))"
// CHECK:        "compare": ">",
// CHECK:        "depth": 3,
// CHECK:        "induction_var": "q",
// CHECK:        "parent": 1,
// CHECK:        "stride": "-1",
// CHECK-NEXT:   "trip_count": 10,
// CHECK:        "induction_var": "j",
// CHECK:        "trip_count": null,
// CHECK-NEXT:   "trip_count_expr": "m"
// CHECK:        "block_stride": true,
// CHECK:        "grid_stride": false,
// CHECK:        "induction_var": "k",
// CHECK:        "factor": "/2",
// CHECK:        "induction_var": "s",
// CHECK:        "trip_count": 8,
// CHECK:        "grid_stride": true,
// CHECK:        "induction_var": "g",
// CHECK:        "init": "blockIdx.x * blockDim.x + threadIdx.x",
// CHECK-NEXT:   "kind": "while",
// CHECK:        "step": "g += gridDim.x * blockDim.x",
// CHECK:      "max_loop_depth": 3,
