// RUN: cuda-opt --analyze %s --json | FileCheck %s

// A template kernel is analysed once, on its pattern: template parameters
// stay symbolic.
template <typename T, int BS>
__global__ void scale_staged(T *out, const T *in, T s, int n) {
  __shared__ T tile[BS];
  int i = blockIdx.x * BS + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  if (i < n)
    out[i] = tile[threadIdx.x] * s;
}

template __global__ void scale_staged<float, 128>(float *, const float *,
                                                   float, int);

// CHECK:      "element_bytes": null,
// CHECK-NEXT: "element_type": "T",
// CHECK:      "index_form": "BS*blockIdx.x + threadIdx.x",
// CHECK:      "pattern": "coalesced",
// CHECK:      "text": "in[i]"
// CHECK:      "arithmetic_intensity": {
// CHECK-NEXT:   "flops": "1",
// CHECK:        "global_bytes": "2*sizeof(T)",
// CHECK-NEXT:   "note": "arithmetic on template-dependent types counted as floating point; {{.*}}",
// CHECK-NEXT:   "status": "unknown"
// CHECK:      "shared_memory": {
// CHECK:          "bytes": null,
// CHECK:          "name": "tile",
// CHECK-NEXT:     "type": "T[BS]"
// CHECK:        "static_bytes": "unknown"
// CHECK:      "template": true,
// CHECK:        "role": "global linear index x (block size BS)",
