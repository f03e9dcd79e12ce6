// RUN: cuda-opt --passes='restrict-const,launch-bounds' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='restrict-const,unroll{factor=8}' --emit=report %s | FileCheck %s --check-prefix=REPORT
// RUN: not cuda-opt --passes='restrict-const,restrict-const' %s 2>&1 | FileCheck %s --check-prefix=TWICE

// Composition: launch-bounds and unroll run on the output of
// restrict-const, and a second restrict-const finds nothing left to do.

// CHECK-LABEL: {{^}}__global__ void __launch_bounds__(256)
// CHECK-NEXT: blur(float *__restrict__ out, const float *__restrict__ in, int n) {
// CHECK:      for (int k = -2; k <= 2; ++k)

// REPORT: restrict-const on blur: applied (3 edits)
// REPORT: unroll{factor=8,loop=-1} on blur: applied (1 edits)

// TWICE: error: pass 'restrict-const' is not legal here:
// TWICE-NEXT: kernel 'blur': every pointer parameter of kernel 'blur' is already const __restrict__ or written
__global__ void blur(float *out, float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 2 || i >= n - 2)
    return;
  float acc = 0.0f;
  for (int k = -2; k <= 2; ++k)
    acc += in[i + k];
  out[i] = acc / 5.0f;
}

int main() {
  const int n = 4096;
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  blur<<<n / 256, 256>>>(out, in, n);
  cudaFree(in);
  cudaFree(out);
  return 0;
}
