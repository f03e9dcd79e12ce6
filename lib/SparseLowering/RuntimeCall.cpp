//===- RuntimeCall.cpp - Emit the calls to the TLS SpMM runtime -----------===//
//
// Part of cuda-opt. Declares the runtime SpMM entry points and emits their
// calls. Every entry point follows tlsSpmm's contract
// (runtime/sparse/include/TlsSpmm.h): X and Y are column-major, i.e. the
// row-major N x K and N x M transposes of the matmul's K x N and M x N
// tensors. docs/sparse-lowering.md has the ABI; runtime/sparse/lib/
// TlsMlirAbi.cu implements it.
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

std::string sparse_lowering::getRuntimeName(WeightKind Kind, bool BF16) {
  std::string Name = "cuda_opt_tls_spmm";
  switch (Kind) {
  case WeightKind::Constant:
    break;
  case WeightKind::DenseArgument:
    Name += "_dense_weight";
    break;
  case WeightKind::CsrArgument:
    Name += "_csr_weight";
    break;
  }
  if (BF16)
    Name += "_bf16";
  return Name;
}

FunctionType sparse_lowering::getRuntimeType(MLIRContext *Ctx, WeightKind Kind,
                                             Type Elt) {
  Builder B(Ctx);
  Type I16 = B.getIntegerType(16), I32 = B.getI32Type();
  int64_t Dyn = ShapedType::kDynamic;
  auto Vec = [&](Type T) { return RankedTensorType::get({Dyn}, T); };
  auto Buf = [&](Type T) { return MemRefType::get({Dyn}, T); };
  auto Mat = RankedTensorType::get({Dyn, Dyn}, Elt);
  SmallVector<Type, 8> Inputs;
  switch (Kind) {
  case WeightKind::Constant:
    // values, bitmap, residual offsets, residual, rows M, cols K, max block
    // residual
    Inputs = {Vec(I16), Vec(I32), Vec(I32), Vec(I16), I32, I32, I32};
    break;
  case WeightKind::DenseArgument:
    Inputs = {Mat};
    break;
  case WeightKind::CsrArgument:
    // positions and coordinates of level 1, values, rows M, cols K
    Inputs = {Buf(B.getIndexType()), Buf(B.getIndexType()), Buf(Elt), I32, I32};
    break;
  }
  Inputs.push_back(Mat);                   // X^T [N x K]
  return B.getFunctionType(Inputs, {Mat}); // Y^T [N x M]
}

FailureOr<func::FuncOp>
sparse_lowering::getOrDeclareRuntimeFunc(ModuleOp Module, StringRef Name,
                                         FunctionType Ty) {
  Operation *Existing = SymbolTable::lookupSymbolIn(Module, Name);
  if (Existing) {
    auto Fn = dyn_cast<func::FuncOp>(Existing);
    if (Fn && Fn.getFunctionType() == Ty)
      return Fn;
    return Existing->emitError()
           << "'@" << Name
           << "' is a three-layer SpMM runtime entry; it must be a func.func "
              "of type "
           << Ty << " (rename this symbol)";
  }
  OpBuilder B = OpBuilder::atBlockBegin(Module.getBody());
  auto Fn = func::FuncOp::create(B, Module.getLoc(), Name, Ty);
  Fn.setPrivate();
  // The C entry point takes memref descriptors by pointer after lowering to
  // the LLVM dialect (_mlir_ciface_<name>).
  Fn->setAttr("llvm.emit_c_interface", B.getUnitAttr());
  // The runtime only reads its operands. Without this, One-Shot Bufferize
  // assumes an external function writes them and may pass a weight argument
  // as a fresh copy, which the runtime's cache (keyed by address) would
  // encode again on every call.
  for (unsigned I = 0, E = Ty.getNumInputs(); I != E; ++I)
    if (isa<TensorType>(Ty.getInput(I)))
      Fn.setArgAttr(I, "bufferization.access", B.getStringAttr("read"));
  return Fn;
}

SmallVector<Value>
sparse_lowering::getTlsConstantOperands(OpBuilder &B, Location Loc,
                                        const TlsConstants &W) {
  auto I32 = [&](uint32_t V) {
    return arith::ConstantIntOp::create(B, Loc, B.getI32Type(), V).getResult();
  };
  return {W.Values,    W.Bitmap,    W.ResidualOffsets,      W.Residual,
          I32(W.Rows), I32(W.Cols), I32(W.MaxBlockResidual)};
}

/// linalg.transpose of a 2-D tensor, static or not.
static Value transpose2D(OpBuilder &B, Location Loc, Value V) {
  auto Ty = cast<RankedTensorType>(V.getType());
  SmallVector<OpFoldResult> Sizes = tensor::getMixedSizes(B, Loc, V);
  Value Init = tensor::EmptyOp::create(B, Loc, {Sizes[1], Sizes[0]},
                                       Ty.getElementType());
  return linalg::TransposeOp::create(B, Loc, V, Init, ArrayRef<int64_t>{1, 0})
      ->getResult(0);
}

/// \p V as type \p T: itself, or a tensor.cast between static and dynamic
/// shapes.
static Value castTo(OpBuilder &B, Location Loc, Value V, Type T) {
  if (V.getType() == T)
    return V;
  return tensor::CastOp::create(B, Loc, T, V).getResult();
}

Value sparse_lowering::emitRuntimeSpmmCall(
    OpBuilder &B, Location Loc, func::FuncOp Callee,
    llvm::function_ref<SmallVector<Value>()> MakeWeightOperands, Value X,
    Value Acc, bool AccIsZero, RankedTensorType ResultTy,
    DictionaryAttr Stats) {
  FunctionType FnTy = Callee.getFunctionType();
  // Column-major K x N is row-major N x K: X^T is the kernel's X with
  // Ldx = K.
  Value Xt = transpose2D(B, Loc, X);
  SmallVector<Value, 8> Args;
  for (auto [V, T] : llvm::zip(MakeWeightOperands(), FnTy.getInputs()))
    Args.push_back(isa<TensorType>(T) ? castTo(B, Loc, V, T) : V);
  Args.push_back(castTo(B, Loc, Xt, FnTy.getInputs().back()));
  auto Call = func::CallOp::create(B, Loc, Callee, Args);
  if (Stats)
    Call->setAttr(TlsStatsAttrName, Stats);

  // The result is Y^T (N x M, row-major = Y column-major with Ldy = M).
  auto YtTy =
      RankedTensorType::get({ResultTy.getDimSize(1), ResultTy.getDimSize(0)},
                            ResultTy.getElementType());
  Value Y = transpose2D(B, Loc, castTo(B, Loc, Call.getResult(0), YtTy));
  Y = castTo(B, Loc, Y, ResultTy);
  // linalg.matmul accumulates into its outs operand; the kernel overwrites.
  // A linalg.add (not arith.addf on tensors) bufferizes without
  // convert-elementwise-to-linalg.
  if (!AccIsZero)
    Y = linalg::AddOp::create(B, Loc, TypeRange{ResultTy}, ValueRange{Y, Acc},
                              ValueRange{Y})
            ->getResult(0);
  return Y;
}
