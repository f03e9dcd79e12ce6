// RUN: not cuda-opt --passes='restrict-const' --kernel=done %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=DONE
// RUN: not test -e %t.cu
// RUN: not cuda-opt --passes='restrict-const' --kernel=writes_all %s 2>&1 | FileCheck %s --check-prefix=WRITTEN
// RUN: not cuda-opt --passes='restrict-const' --kernel=scalars %s 2>&1 | FileCheck %s --check-prefix=SCALARS
// RUN: not cuda-opt --passes='restrict-const' --kernel=from_macro %s 2>&1 | FileCheck %s --check-prefix=MACRO
// RUN: not cuda-opt --passes='restrict-const' --kernel=typedefd %s 2>&1 | FileCheck %s --check-prefix=TYPEDEF
// RUN: not cuda-opt --passes='restrict-const' --kernel=pointed_to %s 2>&1 | FileCheck %s --check-prefix=FNPTR
// RUN: not cuda-opt --passes='restrict-const' --kernel=in_header %s -- -DWITH_HEADER -I %S/Inputs 2>&1 | FileCheck %s --check-prefix=HEADER

#ifdef WITH_HEADER
#include "restrict-const-header.h"
#endif

// DONE: error: pass 'restrict-const' is not legal here:
// DONE-NEXT: kernel 'done': every pointer parameter of kernel 'done' is already const __restrict__ or written
__global__ void done(float *__restrict__ out, const float *__restrict__ in) {
  out[threadIdx.x] = in[threadIdx.x];
}

// Writes of every kind, and no launch to prove __restrict__ with.
// WRITTEN: kernel 'writes_all': every pointer parameter of kernel 'writes_all' is already const or written ('a' is written through at {{.*}}restrict-const-illegal.cu:[[@LINE+4]]:3), and __restrict__ is not proven: kernel 'writes_all' is not launched in this file
__global__ void writes_all(float *a, float *b, int *c, float *d, float *e,
                           float *f) {
  int i = threadIdx.x;
  a[i] = 0.0f;
  *b += 1.0f;
  atomicAdd(c, 1);
  float *alias = d;
  alias[i] = 2.0f;
  float &r = e[i];
  r = 3.0f;
  ((float *)(const float *)f)[i] = 4.0f;
}

// SCALARS: kernel 'scalars' has no pointer parameters
__global__ void scalars(int n, float x) {}

// The signature comes from a macro: refuse rather than edit the macro.
// MACRO: kernel 'from_macro' cannot be edited: parameter 'p' is declared inside a macro expansion; cuda-opt does not edit macro bodies
#define KERNEL_PARAMS float *p, int n
__global__ void from_macro(KERNEL_PARAMS) {
  if (threadIdx.x < n)
    p[threadIdx.x] += 1.0f;
}

// TYPEDEF: kernel 'typedefd' cannot be edited: parameter 'p' is not spelled as a pointer (a typedef or alias hides the '*')
typedef float *floatp;
__global__ void typedefd(floatp p, float *q) { q[0] = p[0]; q[1] = 0.0f; }

// The kernel's address is stored in a typed function pointer: changing its
// parameter types would break that.
// FNPTR: kernel 'pointed_to' is used at {{.*}}restrict-const-illegal.cu:[[@LINE+2]]:{{[0-9]+}} other than by a launch; changing its parameter types could break that use
__global__ void pointed_to(float *dst, float *src) { dst[0] = src[0]; }
void (*entry)(float *, float *) = pointed_to;

// HEADER: kernel 'in_header' is also declared at {{.*}}restrict-const-header.h:{{[0-9]+}}:{{[0-9]+}}, outside the file being rewritten
__global__ void in_header(float *dst, float *src) { dst[0] = src[0]; }
