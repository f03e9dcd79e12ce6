//===- RuntimeCall.cpp - Emit the call to the TLS SpMM runtime ------------===//
//
// Part of cuda-opt. Declares @cuda_opt_tls_spmm and emits its call. The
// callee follows tlsSpmm's contract (runtime/sparse/TlsSpmm.h): X and Y are
// column-major, i.e. the row-major N x K and N x M transposes of the
// matmul's K x N and M x N tensors. docs/sparse-lowering.md has the ABI.
//
//===----------------------------------------------------------------------===//

#include "cuda-opt/SparseLowering/SparseLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace cuda_opt;
using namespace cuda_opt::sparse_lowering;

FunctionType sparse_lowering::getTlsSpmmType(MLIRContext *Ctx) {
  Builder B(Ctx);
  Type I16 = B.getIntegerType(16), I32 = B.getI32Type(), F16 = B.getF16Type();
  int64_t Dyn = ShapedType::kDynamic;
  auto Vec = [&](Type T) { return RankedTensorType::get({Dyn}, T); };
  auto Mat = RankedTensorType::get({Dyn, Dyn}, F16);
  // (values, bitmap, residual offsets, residual, rows M, cols K,
  //  max block residual, X^T [N x K]) -> Y^T [N x M]
  return B.getFunctionType(
      {Vec(I16), Vec(I32), Vec(I32), Vec(I16), I32, I32, I32, Mat}, {Mat});
}

FailureOr<func::FuncOp> sparse_lowering::getOrDeclareTlsSpmm(ModuleOp Module) {
  FunctionType Ty = getTlsSpmmType(Module.getContext());
  Operation *Existing = SymbolTable::lookupSymbolIn(Module, RuntimeSpmmName);
  if (Existing) {
    auto Fn = dyn_cast<func::FuncOp>(Existing);
    if (Fn && Fn.getFunctionType() == Ty)
      return Fn;
    return Existing->emitError()
           << "'@" << RuntimeSpmmName
           << "' is the three-layer SpMM runtime entry; it must be a func.func "
              "of type "
           << Ty << " (rename this symbol)";
  }
  OpBuilder B = OpBuilder::atBlockBegin(Module.getBody());
  auto Fn = func::FuncOp::create(B, Module.getLoc(), RuntimeSpmmName, Ty);
  Fn.setPrivate();
  // The C entry point takes memref descriptors by pointer after lowering to
  // the LLVM dialect (_mlir_ciface_cuda_opt_tls_spmm).
  Fn->setAttr("llvm.emit_c_interface", B.getUnitAttr());
  return Fn;
}

/// linalg.transpose of a static 2-D tensor.
static Value transpose2D(OpBuilder &B, Location Loc, Value V) {
  auto Ty = cast<RankedTensorType>(V.getType());
  Value Init = tensor::EmptyOp::create(
      B, Loc, {Ty.getDimSize(1), Ty.getDimSize(0)}, Ty.getElementType());
  return linalg::TransposeOp::create(B, Loc, V, Init, ArrayRef<int64_t>{1, 0})
      ->getResult(0);
}

Value sparse_lowering::emitTlsSpmmCall(OpBuilder &B, Location Loc,
                                       func::FuncOp Callee,
                                       const TlsConstants &W, Value X,
                                       Value Acc, bool AccIsZero) {
  FunctionType FnTy = Callee.getFunctionType();
  auto Cast = [&](Value V, Type T) {
    return tensor::CastOp::create(B, Loc, T, V).getResult();
  };
  auto I32 = [&](uint32_t V) {
    return arith::ConstantIntOp::create(B, Loc, B.getI32Type(), V).getResult();
  };
  // Column-major K x N is row-major N x K: X^T is the kernel's X with
  // Ldx = K.
  Value Xt = transpose2D(B, Loc, X);
  SmallVector<Value, 8> Args = {Cast(W.Values, FnTy.getInput(0)),
                                Cast(W.Bitmap, FnTy.getInput(1)),
                                Cast(W.ResidualOffsets, FnTy.getInput(2)),
                                Cast(W.Residual, FnTy.getInput(3)),
                                I32(W.Rows),
                                I32(W.Cols),
                                I32(W.MaxBlockResidual),
                                Cast(Xt, FnTy.getInput(7))};
  auto Call = func::CallOp::create(B, Loc, Callee, Args);
  Call->setAttr(TlsStatsAttrName, W.Stats);

  // The result is Y^T (N x M, row-major = Y column-major with Ldy = M).
  auto XTy = cast<RankedTensorType>(X.getType());
  auto YtTy =
      RankedTensorType::get({XTy.getDimSize(1), W.Rows}, XTy.getElementType());
  Value Y = transpose2D(B, Loc, Cast(Call.getResult(0), YtTy));
  // linalg.matmul accumulates into its outs operand; the kernel overwrites.
  if (!AccIsZero)
    Y = arith::AddFOp::create(B, Loc, Y, Acc);
  return Y;
}
