// RUN: not cuda-opt --passes=launch-bounds --kernel=nope %s -o %t.cu 2>&1 | FileCheck %s
// RUN: not test -e %t.cu
// RUN: not cuda-opt --list-kernels --kernel=nope %s 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: not cuda-opt --analyze --kernel=nope --json %s 2>&1 | FileCheck %s --check-prefix=LIST

// CHECK: error: no kernel named 'nope' in '{{.*}}bad-kernel-name.cu' (kernels: first, second)
// LIST: error: no kernel named 'nope'

__global__ void first(float *p) { p[threadIdx.x] = 0.0f; }
__global__ void second(float *p) { p[threadIdx.x] = 1.0f; }
void launch(float *p) {
  first<<<1, 32>>>(p);
  second<<<1, 32>>>(p);
}
