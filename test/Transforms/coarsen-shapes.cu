// RUN: cuda-opt --passes='coarsen{factor=8}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: not cuda-opt --passes='coarsen{factor=8}' --kernel=changed %s 2>&1 | FileCheck %s --check-prefix=CHANGED

// CHECK-LABEL: {{^}}__global__ void relu(
// CHECK-NEXT: {{^}}  for (int c = 0; c < 8; ++c) {
// CHECK-NEXT: {{^}}    const int i = (blockIdx.x * 8 + c) * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}    if (i >= n)
// CHECK-NEXT: {{^}}      continue;
// CHECK-NEXT: {{^}}    out[i] = in[i] > 0.0f ? in[i] : 0.0f;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
__global__ void relu(float *out, const float *in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

// CHANGED: kernel 'changed': the work size 'n' of the launch at {{.*}} reads 'n', which changes in the calling function
__global__ void changed(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 1.0f;
}

// The work size is recovered through the local variables of the caller, and
// the launch is the only thing that changes there.
// CHECK-LABEL: {{^}}void run(
// CHECK-NEXT: {{^}}  const int threads = 256;
// CHECK-NEXT: {{^}}  dim3 block(threads);
// CHECK-NEXT: {{^}}  dim3 grid((n + threads - 1) / threads);
// CHECK-NEXT: {{^}}  relu<<<dim3((grid.x + 7) / 8, grid.y, grid.z), block>>>(out, in, n);
void run(float *out, const float *in, int n) {
  const int threads = 256;
  dim3 block(threads);
  dim3 grid((n + threads - 1) / threads);
  relu<<<grid, block>>>(out, in, n);
}

void runChanged(float *p, int n) {
  int blocks = (n + 255) / 256;
  n *= 2;
  changed<<<blocks, 256>>>(p, n);
}
