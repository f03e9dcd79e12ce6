// RUN: not cuda-opt --list-kernels --cuda-path=%t.nowhere %s 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: env CUDA_PATH=%t.nowhere not cuda-opt --list-kernels %s 2>&1 | FileCheck %s --check-prefix=ENV
// RUN: not cuda-opt --list-kernels --resource-dir=%t.nowhere %s 2>&1 | FileCheck %s --check-prefix=RES
// RUN: not cuda-opt --list-kernels %s.missing 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: not cuda-opt --list-kernels 2>&1 | FileCheck %s --check-prefix=NOINPUT
// RUN: not cuda-opt --list-kernels -p %t.nodb %s 2>&1 | FileCheck %s --check-prefix=DB

// CUDA: error: --cuda-path '{{.*}}nowhere' is not a CUDA installation (no include/cuda_runtime.h); pass the directory that contains bin/nvcc and include/
// ENV: error: CUDA_PATH '{{.*}}nowhere' is not a CUDA installation
// RES: error: --resource-dir '{{.*}}nowhere' does not hold clang's resource headers
// FILE: error: cannot read input file '{{.*}}missing'
// NOINPUT: error: no input files
// DB: error: cannot load compile_commands.json from '{{.*}}nodb'

__global__ void k(float *p) { p[threadIdx.x] = 0.0f; }
