// A variable-length array with an initialiser in host code (cuda-samples'
// Tegra cudaNvSciBufMultiplanar: `cudaSurfaceObject_t surfObject[numPlanes]
// = {0};`), a GCC extension that nvcc's host compiler accepts; clang rejects
// it in C++. cuda-opt parses the file with a warning and lists its kernels;
// the host function is not fully modelled (clang keeps an error node for the
// initialiser), so passes that read or edit launch sites are refused while
// kernel-local ones apply, and the array keeps its text in the output. In
// device code nvcc rejects a variable-length array too, and so does cuda-opt.
// RUN: cuda-opt --list-kernels %s 2>&1 | FileCheck %s
// RUN: %if nvcc %{ %nvcc -std=c++17 -arch=sm_90 -c %s -o %t.o %}
// RUN: not cuda-opt --passes='block-size{x=128}' %s -o %t.bs.cu 2>&1 | FileCheck %s --check-prefix=REFUSE
// RUN: cuda-opt --passes='unroll{factor=2}' %s -o %t.unroll.cu
// RUN: FileCheck %s --check-prefix=KEEP --input-file=%t.unroll.cu
// RUN: %if nvcc %{ %nvcc -std=c++17 -arch=sm_90 -c %t.unroll.cu -o %t.unroll.o %}
// RUN: not cuda-opt --list-kernels %s -- -DDEVICE_VLA 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: %if nvcc %{ not %nvcc -std=c++17 -arch=sm_90 -DDEVICE_VLA -c %s -o %t.d.o %}

// CHECK: warning: {{.*}}nvcc-host-vla-init.cu:[[@LINE+24]]:8: 'planes' in 'launchAll': a variable-length array with an initialiser in host code, a GCC extension that nvcc's host compiler accepts and clang rejects (variable-sized object may not be initialized); cuda-opt parses the file and keeps the declaration as written, but host code around it is not fully modelled, so only passes that do not read or edit launch sites apply
// CHECK: kernel flip at
// CHECK: launch at {{.*}}nvcc-host-vla-init.cu:[[@LINE+25]]:5 in launchAll <<<(n + 255) / 256, 256>>>
// REFUSE: kernel 'flip': host function 'launchAll' contains code that clang rejects and nvcc 13 accepts (at {{.*}}nvcc-host-vla-init.cu:[[@LINE+21]]:{{[0-9]+}}); launches there may be missing from cuda-opt's model, so only kernel-local passes (such as unroll) apply
// KEEP: int *planes[numPlanes] = {0};
// KEEP: #pragma unroll 2
// DEVICE: error: variable-sized object may not be initialized

__global__ void flip(int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int k = 0; k < 4; ++k)
      x[i] = ~x[i];
}

#ifdef DEVICE_VLA
__device__ int sumFirst(const int *x, int n) {
  int a[n] = {0};
  a[0] = x[0];
  return a[0];
}
#endif

void launchAll(int **data, int n, int numPlanes) {
  int *planes[numPlanes] = {0};
  for (int p = 0; p < numPlanes; ++p) {
    planes[p] = data[p];
    flip<<<(n + 255) / 256, 256>>>(planes[p], n);
  }
}

int main() {
  int n = 1 << 16;
  int *data[2];
  cudaMalloc(&data[0], n * sizeof(int));
  cudaMalloc(&data[1], n * sizeof(int));
  launchAll(data, n, 2);
  cudaDeviceSynchronize();
  return 0;
}
