// RUN: not cuda-opt --analyze %s --kernel nope --json 2>&1 | FileCheck %s
// CHECK: error: no kernel named 'nope' in '{{.*}}errors.cu'

__global__ void present(float *x) { x[threadIdx.x] = 0.0f; }
