// RUN: cuda-opt --passes='vectorize' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu

// CHECK-LABEL: {{^}}__global__ void saxpy(
// CHECK-NEXT: {{^}}  int i = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}  if (i < n / 4 && reinterpret_cast<size_t>(y) % sizeof(float4) == 0 &&
// CHECK-NEXT: {{^}}      reinterpret_cast<size_t>(x) % sizeof(float4) == 0) {
// CHECK-NEXT: {{^}}    float4 y4 = reinterpret_cast<float4 *>(y)[i];
// CHECK-NEXT: {{^}}    const float4 x4 = reinterpret_cast<const float4 *>(x)[i];
// CHECK-NEXT: {{^}}    y4.x = a * x4.x + y4.x;
// CHECK-NEXT: {{^}}    y4.y = a * x4.y + y4.y;
// CHECK-NEXT: {{^}}    y4.z = a * x4.z + y4.z;
// CHECK-NEXT: {{^}}    y4.w = a * x4.w + y4.w;
// CHECK-NEXT: {{^}}    reinterpret_cast<float4 *>(y)[i] = y4;
// CHECK-NEXT: {{^}}  } else if (i <= n / 4) {
// CHECK-NEXT: {{^}}    for (int k = i * 4; k < n && k < i * 4 + 4; ++k) {
// CHECK-NEXT: {{^}}      y[k] = a * x[k] + y[k];
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
__global__ void saxpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// A write-only output is not loaded; a body with declarations gets a block
// per lane; a bare use of the index becomes the lane's element index.
// CHECK-LABEL: {{^}}__global__ void ramp(
// CHECK: {{^}}    const int4 a4 = reinterpret_cast<const int4 *>(a)[i];
// CHECK-NEXT: {{^}}    int4 out4;
// CHECK-NEXT: {{^}}    {
// CHECK-NEXT: {{^}}      int t = a4.x * 3;
// CHECK-NEXT: {{^}}      out4.x = t + (i * 4 + 0);
// CHECK-NEXT: {{^}}    }
// CHECK: {{^}}      out4.w = t + (i * 4 + 3);
// CHECK: {{^}}    reinterpret_cast<int4 *>(out)[i] = out4;
// CHECK: {{^}}    for (int k = i * 4; k < n && k < i * 4 + 4; ++k) {
// CHECK-NEXT: {{^}}      int t = a[k] * 3;
// CHECK-NEXT: {{^}}      out[k] = t + k;
__global__ void ramp(int *out, const int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int t = a[i] * 3;
  out[i] = t + i;
}

// CHECK-LABEL: {{^}}void run(
// CHECK-NEXT: {{^}}  saxpy<<<((n + 255) / 256 + 3) / 4, 256>>>(y, x, 2.0f, n);
// CHECK-NEXT: {{^}}  ramp<<<((n + 127) / 128 + 3) / 4, 128>>>(o, o, n);
void run(float *y, const float *x, int *o, int n) {
  saxpy<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
  ramp<<<(n + 127) / 128, 128>>>(o, o, n);
}
