// RUN: cuda-opt --list-kernels --json %s | FileCheck %s

// The cubin symbol of a template kernel is its launched specialization's
// (the worker and --compile-cubin look it up); the pattern's name is not in
// the cubin. Found on cuda-samples' matrixMul.

// CHECK: "name": "tiled"
// CHECK: "symbol": "_Z5tiledILi32EEvPfPKfi"
// CHECK: "name": "plain"
// CHECK: "symbol": "_Z5plainPfi"
template <int B> __global__ void tiled(float *out, const float *in, int n) {
  int i = blockIdx.x * B + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void plain(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 0.0f;
}

void run(float *out, const float *in, int n) {
  tiled<32><<<(n + 31) / 32, 32>>>(out, in, n);
  plain<<<(n + 255) / 256, 256>>>(out, n);
}
