//===- SparseLowering.h - Sparse matmul lowering helpers --------*- C++ -*-===//
//
// Part of cuda-opt. The pieces of --lower-sparse-matmul below the pass:
// turning a constant weight into the three-layer format's constants
// (TlsConstants.cpp) and declaring and calling the runtime SpMM entry points
// (RuntimeCall.cpp).
// The runtime ABI is documented in docs/sparse-lowering.md.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_OPT_SPARSELOWERING_SPARSELOWERING_H
#define CUDA_OPT_SPARSELOWERING_SPARSELOWERING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cuda_opt {
namespace sparse_lowering {

/// The discardable attribute marking a weight sparse: a unit attribute or the
/// string "tls", on the weight's arith.constant, on the linalg.matmul, or as
/// an argument attribute on a function argument.
constexpr llvm::StringLiteral SparseWeightAttrName = "cuda_opt.sparse_weight";
/// The dictionary of encoding statistics put on the runtime call.
constexpr llvm::StringLiteral TlsStatsAttrName = "cuda_opt.tls_stats";

/// Where the weight comes from, which decides the runtime entry point.
enum class WeightKind {
  /// A compile-time constant, encoded by the pass: @cuda_opt_tls_spmm.
  Constant,
  /// A dense function argument, encoded at run time on its first use:
  /// @cuda_opt_tls_spmm_dense_weight.
  DenseArgument,
  /// A CSR function argument (sparse_tensor encoding), encoded at run time on
  /// its first use: @cuda_opt_tls_spmm_csr_weight.
  CsrArgument,
};

/// The runtime entry point for a weight of \p Kind and element type fp16 or
/// (\p BF16) bf16; the bf16 ones end in "_bf16".
std::string getRuntimeName(WeightKind Kind, bool BF16);

/// The type of the runtime entry point for \p Kind, \p Elt being f16 or
/// bf16. Every one ends in X^T (tensor<?x?xElt>) and returns Y^T
/// (tensor<?x?xElt>); before it:
///   Constant:      values, bitmap, residual offsets, residual (rank-1 integer
///                  tensors), rows M, cols K, max block residual (i32);
///   DenseArgument: the weight (tensor<?x?xElt>);
///   CsrArgument:   positions and coordinates of level 1 (memref<?xindex>),
///                  values (memref<?xElt>), rows M, cols K (i32).
mlir::FunctionType getRuntimeType(mlir::MLIRContext *Ctx, WeightKind Kind,
                                  mlir::Type Elt);

/// Returns the declaration of the runtime function \p Name of type \p Ty in
/// \p Module, adding it if absent. Emits an error and fails if a symbol of
/// that name exists with another type or is not a function.
mlir::FailureOr<mlir::func::FuncOp>
getOrDeclareRuntimeFunc(mlir::ModuleOp Module, llvm::StringRef Name,
                        mlir::FunctionType Ty);

/// Returns the raw 16-bit patterns of a 2-D fp16/bf16 constant, row-major,
/// or failure for an attribute it cannot read (an unloaded dense_resource).
mlir::FailureOr<std::vector<uint16_t>>
getRaw16BitElements(mlir::ElementsAttr Attr);

/// A weight in the three-layer format, materialized as constants.
struct TlsConstants {
  mlir::Value Values;          // tensor<?xi16> (fp16 or bf16 bits)
  mlir::Value Bitmap;          // tensor<?xi32>
  mlir::Value ResidualOffsets; // tensor<?xi32>
  mlir::Value Residual;        // tensor<?xi16> (fp16 or bf16 bits)
  uint32_t Rows = 0, Cols = 0, MaxBlockResidual = 0;
  mlir::DictionaryAttr Stats;
};

/// Encodes the Rows x Cols row-major matrix \p Dense of fp16 (or, with
/// \p BF16, bf16) bits with the runtime's encoder, checks that it decodes
/// back exactly, and creates its four arrays as arith.constant ops at \p B's
/// insertion point. Emits an error at \p Loc and fails if the encoder's
/// output is inconsistent.
mlir::FailureOr<TlsConstants>
materializeTlsConstants(mlir::OpBuilder &B, mlir::Location Loc,
                        llvm::ArrayRef<uint16_t> Dense, uint32_t Rows,
                        uint32_t Cols, bool BF16);

/// The operands of a Constant weight's call before X^T: the four arrays and
/// the three sizes.
llvm::SmallVector<mlir::Value> getTlsConstantOperands(mlir::OpBuilder &B,
                                                      mlir::Location Loc,
                                                      const TlsConstants &W);

/// Emits Y = W * X + (AccIsZero ? 0 : Acc) at \p B's insertion point as a
/// call of \p Callee: X^T first, then \p MakeWeightOperands() (the
/// operands before X^T), then the call. X is the K x N activations of a
/// linalg.matmul (N may be dynamic), Acc its M x N outs operand,
/// \p ResultTy its result type. Tensor operands are cast to the callee's
/// dynamic shapes; \p Stats (if any) goes on the call. Returns the M x N
/// result.
mlir::Value emitRuntimeSpmmCall(
    mlir::OpBuilder &B, mlir::Location Loc, mlir::func::FuncOp Callee,
    llvm::function_ref<llvm::SmallVector<mlir::Value>()> MakeWeightOperands,
    mlir::Value X, mlir::Value Acc, bool AccIsZero,
    mlir::RankedTensorType ResultTy, mlir::DictionaryAttr Stats);

} // namespace sparse_lowering
} // namespace cuda_opt

#endif // CUDA_OPT_SPARSELOWERING_SPARSELOWERING_H
