// The clang plugin with a tuning database (-fplugin-arg-cudaopt-db=DB)
// compiles, on both sides, the variants the database recorded for the main
// file's kernels: the same text `cuda-opt apply` writes.
// REQUIRES: clang-plugin
// RUN: rm -rf %t && mkdir -p %t
// RUN: cuda-opt db hash %S/../Search/Inputs/two_kernels.cu > %t/hashes
// RUN: %python %S/../Search/Inputs/rows.py %t/hashes saxpy > %t/rows.jsonl
// RUN: cuda-opt db import %t/rows.jsonl --db %t/tuning.db

// Remarks: what was applied (-Rpass), what was left alone (-Rpass-missed),
// on the host side only, at the kernels of the rewritten text. (The tests
// write the pattern cuda.opt: lit would replace the word cuda-opt.)
// RUN: %clang_cuda -fsyntax-only -fplugin=%cuda_opt_plugin -fplugin-arg-cudaopt-db=%t/tuning.db -Rpass=cuda.opt -Rpass-missed=cuda.opt %S/../Search/Inputs/two_kernels.cu 2>&1 | FileCheck %s
// CHECK: two_kernels.cu:2:17: remark: cuda-opt: kernel 'saxpy': applied 'restrict-const,vectorize{width=4}' from the tuning database, 2.00x over the original on NVIDIA H200 (reassoc)
// CHECK-NEXT: __global__ void saxpy(float *y, const float *x, float a, int n) {
// CHECK: remark: cuda-opt: kernel 'negate' left unchanged: nothing recorded in {{.*}}tuning.db
// CHECK-NOT: remark
// Without -R flags the compile is silent.
// RUN: %clang_cuda -fsyntax-only -fplugin=%cuda_opt_plugin -fplugin-arg-cudaopt-db=%t/tuning.db %S/../Search/Inputs/two_kernels.cu 2>&1 | count 0

// The device code is what `cuda-opt apply` writes, compiled.
// RUN: %clang_cuda -S --cuda-device-only -fplugin=%cuda_opt_plugin -fplugin-arg-cudaopt-db=%t/tuning.db %S/../Search/Inputs/two_kernels.cu -o %t/plugin.ptx
// RUN: cuda-opt apply %S/../Search/Inputs/two_kernels.cu --db %t/tuning.db -o %t/applied.cu
// RUN: %clang_cuda -S --cuda-device-only %t/applied.cu -o %t/applied.ptx
// RUN: %clang_cuda -S --cuda-device-only %S/../Search/Inputs/two_kernels.cu -o %t/original.ptx
// RUN: grep -v '^//' %t/plugin.ptx > %t/plugin.body
// RUN: grep -v '^//' %t/applied.ptx > %t/applied.body
// RUN: grep -v '^//' %t/original.ptx > %t/original.body
// RUN: diff %t/plugin.body %t/applied.body
// RUN: not diff %t/plugin.body %t/original.body > /dev/null

// A file none of whose kernels the database knows is not parsed again.
// RUN: %clang_cuda -fsyntax-only -fplugin=%cuda_opt_plugin -fplugin-arg-cudaopt-db=%t/tuning.db -Rpass-missed=cuda.opt %s 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: apply.cu:[[@LINE+2]]:17: remark: cuda-opt: kernel 'halve' left unchanged: nothing recorded in {{.*}}tuning.db
// NONE-NOT: remark
__global__ void halve(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] *= 0.5f;
}

// A missing or foreign database: a warning naming it, the file compiled as
// written; an error with `strict`. The foreign file is left as it was.
// RUN: %clang_cuda -fsyntax-only -fplugin=%cuda_opt_plugin -fplugin-arg-cudaopt-db=%t/missing.db %s 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: warning: cuda-opt plugin: cannot use the tuning database '{{.*}}missing.db'
// MISSING-SAME: compiling the file as written
// RUN: not %clang_cuda -fsyntax-only -fplugin=%cuda_opt_plugin -fplugin-arg-cudaopt-db=%t/missing.db -fplugin-arg-cudaopt-strict %s 2>&1 | FileCheck %s --check-prefix=STRICT
// STRICT: error: cuda-opt plugin: cannot use the tuning database '{{.*}}missing.db'
// RUN: echo "not a database" > %t/foreign.db
// RUN: %clang_cuda -fsyntax-only -fplugin=%cuda_opt_plugin -fplugin-arg-cudaopt-db=%t/foreign.db %s 2>&1 | FileCheck %s --check-prefix=FOREIGN
// FOREIGN: warning: cuda-opt plugin: cannot use the tuning database '{{.*}}foreign.db'
// RUN: grep -x "not a database" %t/foreign.db
// RUN: not %clang_cuda -fsyntax-only -fplugin=%cuda_opt_plugin -fplugin-arg-cudaopt-fpmodel=loose %s 2>&1 | FileCheck %s --check-prefix=BADMODEL
// BADMODEL: error: cuda-opt plugin: fpmodel=loose: use strict, reassoc or fast
