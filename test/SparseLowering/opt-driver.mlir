// cuda-opt-mlir runs the same pass through MlirOptMain with its generated
// registration; its output matches `cuda-opt --lower-sparse-matmul`.
// REQUIRES: cuda-opt-mlir
// RUN: cuda-opt-mlir --cuda-opt-lower-sparse-matmul="max-bytes-per-element=8" %S/forms.mlir | FileCheck %S/forms.mlir
// RUN: cuda-opt --lower-sparse-matmul --max-bytes-per-element=8 %S/forms.mlir > %t.tool.mlir
// RUN: cuda-opt-mlir --cuda-opt-lower-sparse-matmul="max-bytes-per-element=8" %S/forms.mlir > %t.opt.mlir
// RUN: diff %t.tool.mlir %t.opt.mlir
// RUN: cuda-opt-mlir --help | FileCheck %s --check-prefix=HELP
// HELP: --cuda-opt-lower-sparse-matmul
// The same for function-argument weights (sparse_tensor ops in the output).
// RUN: cuda-opt --lower-sparse-matmul %S/arguments.mlir > %t.args.tool.mlir
// RUN: cuda-opt-mlir --cuda-opt-lower-sparse-matmul %S/arguments.mlir > %t.args.opt.mlir
// RUN: diff %t.args.tool.mlir %t.args.opt.mlir
