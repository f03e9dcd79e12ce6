// RUN: cuda-opt --passes='grid-stride' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: not cuda-opt --passes='grid-stride' --kernel=twod %s 2>&1 | FileCheck %s --check-prefix=TWOD

// A template kernel launched from a template function; pure declarations
// before the index stay where they are; `n > i` guards work too.
// CHECK-LABEL: {{^}}template <typename T> __global__ void scale(
// CHECK-NEXT: {{^}}  const int two = 2;
// CHECK-NEXT: {{^}}  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; n > i;
// CHECK-NEXT: {{^}}       i += blockDim.x * gridDim.x) {
// CHECK-NEXT: {{^}}    p[i] = p[i] * two;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
template <typename T> __global__ void scale(T *p, unsigned n) {
  const int two = 2;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (n > i) {
    p[i] = p[i] * two;
  }
}

// TWOD: kernel 'twod': kernel 'twod' maps threads in 2-D; grid-stride handles 1-D kernels only
__global__ void twod(float *p, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    p[y * w + x] = 0.0f;
}

// CHECK-LABEL: {{^}}template <typename T> void run(
// CHECK-NEXT: {{^}}  scale<T><<<(n + 255) / 256, 256>>>(p, n);
template <typename T> void run(T *p, unsigned n) {
  scale<T><<<(n + 255) / 256, 256>>>(p, n);
}

void go(float *f, double *d, int w, int h) {
  run(f, 1000u);
  run(d, 1000u);
  twod<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(f, w, h);
}
