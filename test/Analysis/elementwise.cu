// RUN: cuda-opt --analyze %s --kernel saxpy --json | FileCheck %s --check-prefix=SAXPY
// RUN: cuda-opt --analyze %s --kernel vec_add_grid_stride --json | FileCheck %s --check-prefix=GRID

// An elementwise map: one element per thread, every access at the thread's
// own global index.

__global__ void saxpy(float *y, const float *__restrict__ x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void vec_add_grid_stride(float *c, const float *a, const float *b,
                                    int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    c[i] = a[i] + b[i];
}

void launch(float *y, const float *x, float *c, int n) {
  saxpy<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
  vec_add_grid_stride<<<80, 256>>>(c, x, y, n);
}

// SAXPY:      "accesses": [
// SAXPY:        "base": "y",
// SAXPY:        "index_form": "blockDim.x*blockIdx.x + threadIdx.x",
// SAXPY:        "kind": "write",
// SAXPY:        "pattern": "coalesced",
// SAXPY:        "space": "global",
// SAXPY-NEXT:   "stride": 1,
// SAXPY:        "text": "y[i]"
// SAXPY:        "base": "x",
// SAXPY:        "kind": "read",
// SAXPY:        "pattern": "coalesced",
// SAXPY:      "arithmetic_intensity": {
// SAXPY-NEXT:   "flops": "2",
// SAXPY:        "flops_per_byte_text": "0.167",
// SAXPY-NEXT:   "global_bytes": "12",
// SAXPY:        "status": "exact"
// SAXPY:      "idiom": {
// SAXPY-NEXT:   "evidence": "each thread writes 'y[i]' (coalesced) {{.*}}; no loop over data",
// SAXPY-NEXT:   "kind": "elementwise"
// SAXPY:      "loops": [],
// SAXPY:      "parameters": [
// SAXPY:        "const": false,
// SAXPY:        "name": "y",
// SAXPY:        "restrict": false,
// SAXPY:        "const": true,
// SAXPY-NEXT:   "element_bytes": 4,
// SAXPY-NEXT:   "element_type": "float",
// SAXPY-NEXT:   "name": "x",
// SAXPY-NEXT:   "pointer": true,
// SAXPY-NEXT:   "reads": 1,
// SAXPY-NEXT:   "restrict": true,
// SAXPY:        "name": "a",
// SAXPY-NEXT:   "pointer": false,
// SAXPY:      "thread_indices": [
// SAXPY:        "form": "blockDim.x*blockIdx.x + threadIdx.x",
// SAXPY-NEXT:   "name": "i",
// SAXPY-NEXT:   "role": "global linear index x",
// SAXPY-NEXT:   "text": "blockIdx.x * blockDim.x + threadIdx.x"

// GRID:       "index_form": "blockDim.x*gridDim.x*it(i) + blockDim.x*blockIdx.x + threadIdx.x",
// GRID:       "pattern": "coalesced",
// GRID:       "text": "c[i]"
// GRID:       "idiom": {
// GRID-NEXT:    "evidence": "{{.*}}a grid-stride loop, no other loop over data",
// GRID-NEXT:    "kind": "elementwise"
// GRID:       "loops": [
// GRID:         "grid_stride": true,
// GRID:         "induction_var": "i",
// GRID:         "stride": "blockDim.x*gridDim.x",
// GRID-NEXT:    "trip_count": null,
// GRID-NEXT:    "trip_count_expr": "ceil((-blockDim.x*blockIdx.x + n - threadIdx.x) / (blockDim.x*gridDim.x))"

// RUN: cuda-opt --analyze %s --kernel relu_rows --json | FileCheck %s --check-prefix=ROWS

// Rows distributed over blocks in y, columns over the threads of the grid in
// x: both loops step over the data together, so this is still a map.
__global__ void relu_rows(float *a, int rows, int cols) {
  for (int r = blockIdx.y; r < rows; r += gridDim.y)
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols;
         c += blockDim.x * gridDim.x)
      a[r * cols + c] = fmaxf(a[r * cols + c], 0.0f);
}
// ROWS:       "kind": "elementwise"
// ROWS:       "loops": [
// ROWS:         "grid_stride": true,
// ROWS-NEXT:    "id": 0,
// ROWS-NEXT:    "induction_var": "r",
// ROWS:         "grid_stride": true,
// ROWS-NEXT:    "id": 1,
// ROWS-NEXT:    "induction_var": "c",
