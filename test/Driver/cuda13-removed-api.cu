// Code for older CUDA that uses APIs CUDA 13 removed does not parse (nvcc 13
// rejects it too); each such error gets a note naming the replacement.
// Only the calls --cuda-legacy maps mention it (test/Driver/cuda-legacy.cu).
// RUN: not cuda-opt --list-kernels %s 2>&1 | FileCheck %s

// CHECK: error: use of undeclared identifier 'cudaThreadSynchronize'
// CHECK: note: 'cudaThreadSynchronize' was removed in CUDA 13 (nvcc 13 rejects it too); use cudaDeviceSynchronize()
// CHECK: error: no member named 'clockRate' in 'cudaDeviceProp'
// CHECK: note: cudaDeviceProp::clockRate was removed in CUDA 13 (nvcc 13 rejects it too); use cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, dev){{$}}
// CHECK: error: {{.*}}'texture'
// CHECK: note: 'texture' was removed in CUDA 13 (nvcc 13 rejects it too); use a cudaTextureObject_t (texture references are gone){{$}}
// CHECK-NOT: note:

__global__ void k(float *p) { p[threadIdx.x] = 0.0f; }

int main() {
  float *d;
  cudaMalloc(&d, 128);
  k<<<1, 32>>>(d);
  cudaThreadSynchronize();
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  int mhz = prop.clockRate / 1000;
  return mhz > 0 ? 0 : 1;
}

texture<float, 1, cudaReadModeElementType> tex;
