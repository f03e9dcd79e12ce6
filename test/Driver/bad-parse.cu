// A file with a syntax error: clear error with the compiler's location, exit
// status 1, and the output file is neither created nor touched.
// RUN: not cuda-opt --passes=launch-bounds %s -o %t.new.cu 2>&1 | FileCheck %s
// RUN: not test -e %t.new.cu
// RUN: echo sentinel > %t.existing.cu
// RUN: not cuda-opt --passes=launch-bounds %s -o %t.existing.cu
// RUN: FileCheck %s --check-prefix=KEPT < %t.existing.cu
// RUN: not cuda-opt --list-kernels %s 2>&1 | FileCheck %s

// CHECK: error: {{.*}}bad-parse.cu:[[@LINE+3]]:{{[0-9]+}}: error: expected ';'
// KEPT: sentinel
__global__ void broken(float *p) {
  p[threadIdx.x] = 1.0f
}

void launch(float *p) { broken<<<1, 32>>>(p); }
