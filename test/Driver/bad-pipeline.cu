// Pipeline errors are reported before any parsing, and nothing is written.
// RUN: not cuda-opt --passes='nonsense' %s -o %t.cu 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not cuda-opt --passes='launch-bounds{warps=4}' %s 2>&1 | FileCheck %s --check-prefix=PARAM
// RUN: not cuda-opt --passes='launch-bounds{threads=4096}' %s 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not cuda-opt --passes='launch-bounds{threads=abc}' %s 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not cuda-opt --passes='launch-bounds{threads=64' %s 2>&1 | FileCheck %s --check-prefix=BRACE
// RUN: not cuda-opt --passes='launch-bounds,,launch-bounds' %s 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not cuda-opt --passes='' %s 2>&1 | FileCheck %s --check-prefix=NOMODE
// RUN: not test -e %t.cu

// UNKNOWN: error: unknown pass 'nonsense'; available passes: {{.*}}launch-bounds{{.*}} (see --list-passes)
// PARAM: error: pass 'launch-bounds' has no parameter 'warps' (valid: threads, blocks)
// RANGE: error: parameter 'threads' of pass 'launch-bounds' is 4096, outside its range [0, 1024]
// VALUE: error: parameter 'threads' of pass 'launch-bounds' needs an integer value, got 'abc'
// BRACE: error: missing '}' after parameters of pass 'launch-bounds'
// EMPTY: error: empty pass name in pipeline
// NOMODE: error: nothing to do: --passes is empty; give a pipeline

__global__ void k(float *p) { p[threadIdx.x] = 0.0f; }
void launch(float *p) { k<<<1, 32>>>(p); }
