//===- Driver.cpp - The MLIR mode of cuda-opt -----------------------------===//
//
// Part of cuda-opt. Parses an .mlir file, runs --lower-sparse-matmul and
// prints the result, with mlir-opt's -split-input-file and
// -verify-diagnostics behaviour.
//
//===----------------------------------------------------------------------===//

#include "cuda-opt/SparseLowering/Driver.h"
#include "cuda-opt/SparseLowering/Passes.h"
#include "cuda-opt/Support/OutputFile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace cuda_opt;

/// Parses one buffer, lowers it and prints it to \p OS.
static LogicalResult lowerBuffer(llvm::SourceMgr &SrcMgr, MLIRContext &Ctx,
                                 const MlirDriverOptions &Opts,
                                 raw_ostream &OS) {
  OwningOpRef<ModuleOp> Module =
      parseSourceFile<ModuleOp>(SrcMgr, ParserConfig(&Ctx));
  if (!Module)
    return failure();
  PassManager PM(&Ctx);
  LowerSparseMatmulOptions PassOpts;
  PassOpts.minSparsity = Opts.MinSparsity;
  PassOpts.maxBytesPerElement = Opts.MaxBytesPerElement;
  PM.addPass(createLowerSparseMatmul(PassOpts));
  if (failed(PM.run(*Module)))
    return failure();
  Module->print(OS);
  OS << "\n";
  return success();
}

int cuda_opt::runLowerSparseMatmul(StringRef InputPath, StringRef OutputPath,
                                   const MlirDriverOptions &Opts) {
  std::string Message;
  std::unique_ptr<llvm::MemoryBuffer> Input =
      openInputFile(InputPath, &Message);
  if (!Input) {
    llvm::WithColor::error(llvm::errs(), "cuda-opt") << Message << "\n";
    return 1;
  }
  // Written once the whole input is lowered, through a temporary file: a
  // failure leaves an existing output as it was.
  std::string Text;
  llvm::raw_string_ostream Output(Text);

  DialectRegistry Registry;
  Registry.insert<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
                  memref::MemRefDialect, sparse_tensor::SparseTensorDialect,
                  tensor::TensorDialect>();

  auto ProcessChunk = [&](std::unique_ptr<llvm::MemoryBuffer> Chunk,
                          const llvm::MemoryBufferRef &,
                          raw_ostream &OS) -> LogicalResult {
    MLIRContext Ctx(Registry, MLIRContext::Threading::DISABLED);
    // A remark points at the matmul's source line; the op dump adds nothing.
    Ctx.printOpOnDiagnostic(false);
    llvm::SourceMgr SrcMgr;
    SrcMgr.AddNewSourceBuffer(std::move(Chunk), llvm::SMLoc());
    if (!Opts.VerifyDiagnostics) {
      SourceMgrDiagnosticHandler Handler(SrcMgr, &Ctx);
      return lowerBuffer(SrcMgr, Ctx, Opts, OS);
    }
    // Whether the lowering failed is the diagnostics' business: only the
    // expected-* comments decide.
    SourceMgrDiagnosticVerifierHandler Handler(SrcMgr, &Ctx);
    (void)lowerBuffer(SrcMgr, Ctx, Opts, OS);
    return Handler.verify();
  };

  LogicalResult Result = failure();
  if (Opts.SplitInputFile) {
    Result = splitAndProcessBuffer(std::move(Input),
                                   ChunkBufferHandler(ProcessChunk), Output,
                                   kDefaultSplitMarker, kDefaultSplitMarker);
  } else {
    llvm::MemoryBufferRef Ref = Input->getMemBufferRef();
    Result = ProcessChunk(std::move(Input), Ref, Output);
  }
  if (failed(Result))
    return 1;
  if (llvm::Error E = writeFileAtomically(OutputPath, Text)) {
    llvm::WithColor::error(llvm::errs(), "cuda-opt")
        << llvm::toString(std::move(E)) << "\n";
    return 1;
  }
  return 0;
}
