// A file that does not parse for a real error and also holds code that
// clang rejects and nvcc 13 accepts (a default-constructed function-scope
// __shared__ object, an initialised variable-length array in host code;
// docs/nvcc-compatibility.md): the error message lists only the real
// errors, so that the accepted code does not read as more errors to fix.
// Without the real error the file parses, with a warning for each accepted
// declaration; a __shared__ object with an initialiser written out is an
// error under nvcc too and is listed with the real one.
// RUN: not cuda-opt --list-kernels %s -- -DREAL_ERROR 2>&1 | FileCheck %s --check-prefix=REAL
// RUN: not cuda-opt tune --dry-run %s -o %t.cu -- -DREAL_ERROR 2>&1 | FileCheck %s --check-prefix=REAL
// RUN: not cuda-opt --list-kernels %s -- -DREAL_ERROR -DINIT_WRITTEN 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: cuda-opt --list-kernels %s 2>&1 | FileCheck %s --check-prefix=OK
// RUN: %if nvcc %{ %nvcc -std=c++17 -arch=sm_90 -c %s -o %t.o %}
// RUN: %if nvcc %{ not %nvcc -std=c++17 -arch=sm_90 -DREAL_ERROR -c %s -o %t.r.o %}

// REAL-NOT: initialization is not supported for __shared__ variables
// REAL-NOT: variable-sized object may not be initialized
// REAL: nvcc-accepted-with-real-error.cu:[[@LINE+33]]:{{[0-9]+}}: error: use of undeclared identifier 'undeclaredScale'
// REAL-NOT: initialization is not supported for __shared__ variables
// REAL-NOT: variable-sized object may not be initialized
// REAL-NOT: warning:

// BOTH: nvcc-accepted-with-real-error.cu:[[@LINE+17]]:{{[0-9]+}}: error: initialization is not supported for __shared__ variables
// BOTH: error: use of undeclared identifier 'undeclaredScale'
// BOTH-NOT: variable-sized object may not be initialized

// OK: warning: {{.*}}nvcc-accepted-with-real-error.cu:[[@LINE+11]]:19: 'slot' in 'staged': a function-scope __shared__ object
// OK: warning: {{.*}}nvcc-accepted-with-real-error.cu:[[@LINE+31]]:8: 'planes' in 'launchAll': a variable-length array
// OK: kernel staged at
// OK: kernel scale at

struct Slot {
  int v;
  __device__ Slot() : v(1) {}
};

__global__ void staged(float *out, const float *in, int n) {
  __shared__ Slot slot;
#ifdef INIT_WRITTEN
  __shared__ int x = 5;
#endif
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * slot.v;
}

__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
#ifdef REAL_ERROR
    out[i] = undeclaredScale * in[i];
#else
    out[i] = 2.0f * in[i];
#endif
}

void launchAll(float *out, const float *in, int n) {
  const int numPlanes = n > 0 ? 2 : 1;
  int *planes[numPlanes] = {0};
  (void)planes;
  staged<<<(n + 255) / 256, 256>>>(out, in, n);
  scale<<<(n + 255) / 256, 256>>>(out, in, n);
}
