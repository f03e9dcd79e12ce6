// Flags come from compile_commands.json (an nvcc command line): the -I and -D
// are honoured, nvcc-only flags are dropped.
// RUN: rm -rf %t && mkdir -p %t/inc
// RUN: echo '#define TILE 64' > %t/inc/tile.h
// RUN: echo '[{"directory": "%t", "file": "%s", "command": "/usr/local/cuda/bin/nvcc -arch=sm_90 --expt-relaxed-constexpr -Xcompiler -fPIC -I%t/inc -DSCALE=3 -c %s -o x.o"}]' > %t/compile_commands.json
// RUN: cuda-opt --list-kernels -p %t %s | FileCheck %s
// Without the database the include is missing.
// RUN: not cuda-opt --list-kernels %s 2>&1 | FileCheck %s --check-prefix=NODB

// CHECK: kernel scaled
// CHECK: launch at {{.*}} <<<n / TILE, TILE>>>
// NODB: 'tile.h' file not found

#include "tile.h"

__global__ void scaled(float *p, int n) {
  int i = blockIdx.x * TILE + threadIdx.x;
  if (i < n)
    p[i] *= SCALE;
}

void run(float *p, int n) { scaled<<<n / TILE, TILE>>>(p, n); }
