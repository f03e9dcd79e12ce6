//===- SparseLowering.h - Sparse matmul lowering helpers --------*- C++ -*-===//
//
// Part of cuda-opt. The pieces of --lower-sparse-matmul below the pass:
// turning a constant weight into the three-layer format's constants
// (TlsConstants.cpp) and emitting the runtime SpMM call (RuntimeCall.cpp).
// The runtime ABI is documented in docs/sparse-lowering.md.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_OPT_SPARSELOWERING_SPARSELOWERING_H
#define CUDA_OPT_SPARSELOWERING_SPARSELOWERING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <vector>

namespace cuda_opt {
namespace sparse_lowering {

/// The discardable attribute marking a weight sparse: a unit attribute or the
/// string "tls", on the weight's arith.constant or on the linalg.matmul.
constexpr llvm::StringLiteral SparseWeightAttrName = "cuda_opt.sparse_weight";
/// The dictionary of encoding statistics put on the runtime call.
constexpr llvm::StringLiteral TlsStatsAttrName = "cuda_opt.tls_stats";
/// The runtime SpMM entry point.
constexpr llvm::StringLiteral RuntimeSpmmName = "cuda_opt_tls_spmm";

/// Returns the raw 16-bit patterns of a 2-D fp16/bf16 constant, row-major,
/// or failure for an attribute it cannot read (an unloaded dense_resource).
mlir::FailureOr<std::vector<uint16_t>>
getRaw16BitElements(mlir::ElementsAttr Attr);

/// A weight in the three-layer format, materialized as constants.
struct TlsConstants {
  mlir::Value Values;          // tensor<?xi16> (fp16 bits)
  mlir::Value Bitmap;          // tensor<?xi32>
  mlir::Value ResidualOffsets; // tensor<?xi32>
  mlir::Value Residual;        // tensor<?xi16> (fp16 bits)
  uint32_t Rows = 0, Cols = 0, MaxBlockResidual = 0;
  mlir::DictionaryAttr Stats;
};

/// Encodes the Rows x Cols row-major fp16 matrix \p Dense with the runtime's
/// encoder, checks that it decodes back exactly, and creates its four arrays
/// as arith.constant ops at \p B's insertion point. Emits an error at \p Loc
/// and fails if the encoder's output is inconsistent.
mlir::FailureOr<TlsConstants>
materializeTlsConstants(mlir::OpBuilder &B, mlir::Location Loc,
                        llvm::ArrayRef<uint16_t> Dense, uint32_t Rows,
                        uint32_t Cols);

/// The type of @cuda_opt_tls_spmm.
mlir::FunctionType getTlsSpmmType(mlir::MLIRContext *Ctx);

/// Returns the declaration of @cuda_opt_tls_spmm in \p Module, adding it if
/// absent. Emits an error and fails if a symbol of that name exists with
/// another type or is not a function.
mlir::FailureOr<mlir::func::FuncOp> getOrDeclareTlsSpmm(mlir::ModuleOp Module);

/// Emits Y = W * X + (AccIsZero ? 0 : Acc) through \p Callee at \p B's
/// insertion point, X being the static K x N fp16 tensor of a linalg.matmul
/// and Acc its M x N outs operand. Returns the M x N result.
mlir::Value emitTlsSpmmCall(mlir::OpBuilder &B, mlir::Location Loc,
                            mlir::func::FuncOp Callee, const TlsConstants &W,
                            mlir::Value X, mlir::Value Acc, bool AccIsZero);

} // namespace sparse_lowering
} // namespace cuda_opt

#endif // CUDA_OPT_SPARSELOWERING_SPARSELOWERING_H
