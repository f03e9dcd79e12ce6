//===- cuda-opt-mlir.cpp - cuda-opt's MLIR passes in an -opt driver --------===//
//
// Part of cuda-opt. mlir-opt with the dialects the sparse lowering reads and
// the passes of lib/SparseLowering registered from their TableGen'erated
// registration, e.g.
//   cuda-opt-mlir --cuda-opt-lower-sparse-matmul model.mlir
// `cuda-opt --lower-sparse-matmul` remains as a thin forward to the same pass.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/SparseLowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  cuda_opt::registerCudaOptSparseLoweringPasses();
  mlir::DialectRegistry Registry;
  Registry.insert<mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::linalg::LinalgDialect, mlir::memref::MemRefDialect,
                  mlir::sparse_tensor::SparseTensorDialect,
                  mlir::tensor::TensorDialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "cuda-opt MLIR driver (sparse lowering)\n", Registry));
}
