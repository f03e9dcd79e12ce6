// RUN: cuda-opt --analyze %s --json | FileCheck %s

// One kernel with each kind of access, in source order.
__global__ void patterns(float *out, const float *in, const int *idx,
                         const float *scale, int stride, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];            // coalesced
  v += in[2 * i + 1];         // strided by 2
  v += in[i * stride];        // strided by a parameter
  v *= scale[blockIdx.x];     // broadcast
  v += *scale;                // broadcast through a dereference
  v += in[idx[i]];            // irregular: data dependent
  v += in[(i * 7) % n];       // irregular: not affine
  out[n - 1 - i] = v;         // coalesced, reversed
}

// CHECK:      "global": {
// CHECK-NEXT:   "broadcast": 2,
// CHECK-NEXT:   "coalesced": 3,
// CHECK-NEXT:   "irregular": 2,
// CHECK-NEXT:   "strided": 2

// in[i]
// CHECK:      "pattern": "coalesced",
// CHECK:      "stride": 1,
// CHECK:      "text": "in[i]"
// CHECK:      "index_form": "2*blockDim.x*blockIdx.x + 2*threadIdx.x + 1",
// CHECK:      "pattern": "strided",
// CHECK:      "stride": 2,
// CHECK:      "text": "in[2 * i + 1]"
// CHECK:      "index_form": "blockDim.x*blockIdx.x*stride + stride*threadIdx.x",
// CHECK:      "pattern": "strided",
// CHECK:      "stride": null,
// CHECK-NEXT: "stride_expr": "stride",
// CHECK-NEXT: "text": "in[i * stride]"
// CHECK:      "index_form": "blockIdx.x",
// CHECK:      "pattern": "broadcast",
// CHECK:      "text": "scale[blockIdx.x]"
// CHECK:      "index": "scale",
// CHECK-NEXT: "index_form": "0",
// CHECK:      "pattern": "broadcast",
// CHECK:      "text": "*scale"
// CHECK:      "text": "idx[i]"
// CHECK:      "affine": false,
// CHECK:      "pattern": "irregular",
// CHECK-NEXT: "reason": "index depends on loaded data (idx[i])",
// CHECK:      "text": "in[idx[i]]"
// CHECK:      "affine": false,
// CHECK:      "pattern": "irregular",
// CHECK-NEXT: "reason": "index is not affine in threadIdx.x ((i * 7) % n)",
// CHECK:      "text": "in[(i * 7) % n]"
// CHECK:      "index_form": "-blockDim.x*blockIdx.x + n - threadIdx.x - 1",
// CHECK:      "kind": "write",
// CHECK:      "pattern": "coalesced",
// CHECK:      "stride": -1,
// CHECK:      "text": "out[n - 1 - i]"
// CHECK:      "idiom": {
// CHECK-NEXT:   "evidence": "no idiom matched; irregular access 'in[idx[i]]': index depends on loaded data (idx[i])",
// CHECK-NEXT:   "kind": "unknown"
