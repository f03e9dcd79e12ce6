// RUN: cuda-opt --passes=launch-bounds --emit=diff %s | FileCheck %s --check-prefix=DIFF
// RUN: cuda-opt --passes=launch-bounds --emit=report %s | FileCheck %s --check-prefix=REPORT
// RUN: cuda-opt --passes=launch-bounds --emit=report --json %s | FileCheck %s --check-prefix=JSON
// RUN: cuda-opt --passes=launch-bounds %s -o %t.cu
// Everything outside the kernel signature is byte-for-byte the same.
// RUN: not diff %s %t.cu > %t.diff
// RUN: FileCheck %s --check-prefix=BYTES < %t.diff

// DIFF: --- {{.*}}emit-modes.cu
// DIFF: +++ {{.*}}emit-modes.cu
// DIFF: @@
// DIFF: -__global__ void   fill(float *p,   float v) {   // odd spacing kept elsewhere
// DIFF-NEXT: +__global__ void __launch_bounds__(128)
// DIFF-NEXT: +    fill(float *p, float v) {

// REPORT: launch-bounds{threads=0,blocks=0} on fill: applied (1 edits)
// REPORT: launch-bounds{threads=0,blocks=0} on other: skipped: kernel 'other' is not launched in this file
// JSON: "applied": true
// JSON: "kernel": "fill"
// JSON: "reason": "kernel 'other' is not launched

// BYTES: {{^}}[[LINE:[0-9]+]]c[[LINE]],{{[0-9]+$}}
// BYTES-NOT: {{^[0-9]}}

__global__ void   fill(float *p,   float v) {   // odd spacing kept elsewhere
  p[blockIdx.x*blockDim.x+threadIdx.x]=v;   /* weird   spacing */
}

__global__ void other(float *p) { p[0] = 1.0f; }

int   main( ) {
  float *p;   cudaMalloc( &p, 4096 * sizeof(float) );
  fill<<<32,128>>>(p, 2.0f);   // weird
  return 0;
}
