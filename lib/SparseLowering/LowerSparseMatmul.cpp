//===- LowerSparseMatmul.cpp - linalg.matmul with a sparse weight ---------===//
//
// Part of cuda-opt. The pass of --lower-sparse-matmul: finds linalg.matmul ops
// whose A operand is a weight marked sparse, checks that the runtime SpMM
// can compute them (the legality check, with a remark for every candidate it
// rejects), and rewrites the legal ones into a call of the runtime:
//
//  - a compile-time constant (possibly behind sparse_tensor.convert ops) is
//    encoded by the pass; the call takes the encoded arrays;
//  - a function argument is encoded by the runtime at its first use; the
//    call takes the dense weight, or a CSR argument's storage arrays.
//
// The pass walks the module instead of running a greedy pattern driver: every
// candidate is decided exactly once, so it gets exactly one remark, and one
// weight used by several matmuls is encoded once.
//
//===----------------------------------------------------------------------===//

#include "cuda-opt/SparseLowering/Passes.h"
#include "cuda-opt/SparseLowering/SparseLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensorType.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/FormatVariadic.h"

namespace cuda_opt {
#define GEN_PASS_DEF_LOWERSPARSEMATMUL
#include "cuda-opt/SparseLowering/Passes.h.inc"
} // namespace cuda_opt

using namespace mlir;
using namespace cuda_opt;
using namespace cuda_opt::sparse_lowering;

namespace {

/// A matmul the runtime can compute, with what the rewrite needs.
struct Candidate {
  linalg::MatmulOp Op;
  WeightKind Kind = WeightKind::Constant;
  /// The weight's origin: the arith.constant's result or the function
  /// argument, past any sparse_tensor.convert ops.
  Value Source;
  /// The sparse_tensor.convert ops between Source and the matmul, the
  /// matmul's operand first.
  SmallVector<Operation *, 2> Converts;
  bool BF16 = false;
  uint32_t Rows = 0, Cols = 0;
  bool AccIsZero = false;
};

struct LowerSparseMatmulPass
    : public cuda_opt::impl::LowerSparseMatmulBase<LowerSparseMatmulPass> {
  using Base::Base;
  void runOnOperation() override;

private:
  /// Fills \p C and returns success when \p Op can be lowered; otherwise
  /// returns failure with \p Reason set (empty when \p Op is no candidate).
  LogicalResult analyze(linalg::MatmulOp Op, Candidate &C,
                        std::vector<uint16_t> &Bits, std::string &Reason);
};

} // namespace

static bool hasSparseEncoding(Type T) {
  return sparse_tensor::getSparseTensorEncoding(T) != nullptr;
}

/// The function whose entry block \p V is an argument of, or null.
static FunctionOpInterface getArgumentFunction(Value V) {
  auto Arg = dyn_cast<BlockArgument>(V);
  if (!Arg)
    return {};
  auto Fn =
      dyn_cast_or_null<FunctionOpInterface>(Arg.getOwner()->getParentOp());
  if (!Fn || Arg.getOwner() != &Fn.getFunctionBody().front())
    return {};
  return Fn;
}

/// Whether \p V is marked as a sparse weight: by its type, by the marker
/// attribute on its defining op or (for a function argument) on the argument.
static bool isMarkedSparseValue(Value V) {
  if (hasSparseEncoding(V.getType()))
    return true;
  if (Operation *Def = V.getDefiningOp())
    return Def->hasAttr(SparseWeightAttrName);
  if (FunctionOpInterface Fn = getArgumentFunction(V))
    return static_cast<bool>(Fn.getArgAttr(
        cast<BlockArgument>(V).getArgNumber(), SparseWeightAttrName));
  return false;
}

/// \p V past its sparse_tensor.convert ops, which are appended to
/// \p Converts (the one defining \p V first).
static Value peelConverts(Value V, SmallVectorImpl<Operation *> &Converts) {
  while (auto Convert = V.getDefiningOp<sparse_tensor::ConvertOp>()) {
    Converts.push_back(Convert);
    V = Convert.getSource();
  }
  return V;
}

/// Whether \p V, or a value it is converted from, is marked sparse.
static bool isMarkedSparse(Value V) {
  SmallVector<Operation *, 2> Converts;
  Value Source = peelConverts(V, Converts);
  if (isMarkedSparseValue(Source))
    return true;
  return llvm::any_of(Converts, [](Operation *Convert) {
    return isMarkedSparseValue(Convert->getResult(0));
  });
}

/// The marker must be a unit attribute or "tls".
static LogicalResult verifyMarkerValue(Location Loc, Attribute Marker) {
  auto Str = dyn_cast<StringAttr>(Marker);
  if (isa<UnitAttr>(Marker) || (Str && Str.getValue() == "tls"))
    return success();
  return emitError(Loc) << "'" << SparseWeightAttrName
                        << "' must be a unit attribute or the string \"tls\" "
                           "(the only supported format), not "
                        << Marker;
}

/// A marked weight must be a 2-D tensor.
static LogicalResult verifyMarkedType(Location Loc, Type T, StringRef What) {
  auto Ty = dyn_cast<RankedTensorType>(T);
  if (Ty && Ty.getRank() == 2)
    return success();
  return emitError(Loc) << "'" << SparseWeightAttrName
                        << "' marks a matmul weight and needs a 2-D tensor "
                        << What << ", not " << T;
}

/// The marker on an op: on a 2-D tensor arith.constant or on a
/// linalg.matmul (or batch_matmul).
static LogicalResult verifyMarker(Operation *Op, Attribute Marker) {
  if (failed(verifyMarkerValue(Op->getLoc(), Marker)))
    return failure();
  if (auto Const = dyn_cast<arith::ConstantOp>(Op))
    return verifyMarkedType(Op->getLoc(), Const.getType(), "constant");
  // On a batch_matmul it is well-formed; the pass then says why it is not
  // lowered.
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(Op))
    return success();
  return Op->emitError() << "'" << SparseWeightAttrName
                         << "' belongs on the weight's arith.constant, on the "
                            "linalg.matmul or on a function argument, not on '"
                         << Op->getName() << "'";
}

/// The marker as a function argument attribute: on a 2-D tensor argument.
static LogicalResult verifyArgMarkers(FunctionOpInterface Fn) {
  bool Ok = true;
  for (unsigned I = 0, E = Fn.getNumArguments(); I != E; ++I) {
    Attribute Marker = Fn.getArgAttr(I, SparseWeightAttrName);
    if (!Marker)
      continue;
    Location Loc = Fn.getFunctionBody().empty()
                       ? Fn.getLoc()
                       : Fn.getFunctionBody().getArgument(I).getLoc();
    Ok &=
        succeeded(verifyMarkerValue(Loc, Marker)) &&
        succeeded(verifyMarkedType(Loc, Fn.getArgumentTypes()[I], "argument"));
  }
  return success(Ok);
}

/// Whether \p V is all zeros: a zero splat constant or a linalg.fill of zero.
static bool isZeroTensor(Value V) {
  if (matchPattern(V, m_AnyZeroFloat()))
    return true;
  auto Fill = V.getDefiningOp<linalg::FillOp>();
  return Fill && matchPattern(Fill.getInputs().front(), m_AnyZeroFloat());
}

static std::string describeProducer(Value V) {
  if (Operation *Def = V.getDefiningOp())
    return ("defined by '" + Def->getName().getStringRef() + "'").str();
  return "a block argument that is not a function argument";
}

static std::string typeString(Type T) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << T;
  return S;
}

/// Whether the runtime reads a function argument of sparse type \p Ty
/// (CSR: levels dense and compressed in identity order, index-typed
/// positions and coordinates); \p Why says why not.
static bool isRuntimeCsr(RankedTensorType Ty, std::string &Why) {
  sparse_tensor::SparseTensorType Stt(Ty);
  if (Stt.getLvlRank() != 2 || !Stt.isIdentity() || !Stt.isDenseLvl(0) ||
      !Stt.isCompressedLvl(1)) {
    Why = "its encoding is not CSR (levels (d0 : dense, d1 : compressed) in "
          "identity order), the only sparse layout the runtime reads";
    return false;
  }
  if (Stt.getPosWidth() != 0 || Stt.getCrdWidth() != 0) {
    Why = "its CSR encoding has posWidth/crdWidth set; the runtime reads "
          "index-typed positions and coordinates (the default)";
    return false;
  }
  return true;
}

LogicalResult LowerSparseMatmulPass::analyze(linalg::MatmulOp Op, Candidate &C,
                                             std::vector<uint16_t> &Bits,
                                             std::string &Reason) {
  Value A = Op.getInputs()[0], B = Op.getInputs()[1];
  bool OnOp = Op->hasAttr(SparseWeightAttrName);
  if (!OnOp && !isMarkedSparse(A)) {
    if (isMarkedSparse(B))
      Reason = "the sparse weight is the B operand (K x N); only an A operand "
               "(M x K) weight is supported (compute the transposed product "
               "X^T W^T = (W X)^T to put the weight first)";
    return failure();
  }
  if (!Op.hasPureTensorSemantics()) {
    Reason = "it works on buffers; only the tensor form is supported";
    return failure();
  }
  if (Op.hasUserDefinedMaps()) {
    Reason = "it has explicit indexing_maps (a transposed or broadcast "
             "operand); only the plain (M x K) * (K x N) form is supported";
    return failure();
  }
  auto ATy = dyn_cast<RankedTensorType>(A.getType());
  auto BTy = dyn_cast<RankedTensorType>(B.getType());
  auto CTy = dyn_cast<RankedTensorType>(Op.getOutputs()[0].getType());
  if (!ATy || !BTy || !CTy) {
    Reason = "it has unranked operands";
    return failure();
  }
  if (!ATy.hasStaticShape()) {
    Reason = "the weight's type " + typeString(ATy) +
             " has a dynamic dimension; M and K must be static (only N, the "
             "activations' columns, may be dynamic)";
    return failure();
  }
  if (BTy.getEncoding() || CTy.getEncoding()) {
    Reason = "the activations or the result carry a tensor encoding; the "
             "SpMM reads and writes dense tensors";
    return failure();
  }
  Type AElt = ATy.getElementType();
  if (!AElt.isF16() && !AElt.isBF16()) {
    Reason = "the weight's element type is " + typeString(AElt) +
             "; the SpMM kernel takes fp16 or bf16";
    return failure();
  }
  if (BTy.getElementType() != AElt || CTy.getElementType() != AElt) {
    Reason = "the activations and the result must have the weight's element "
             "type " +
             typeString(AElt) + " (they are " + typeString(BTy) + ", " +
             typeString(CTy) +
             "); the SpMM kernel reads and writes it, accumulating in fp32";
    return failure();
  }
  int64_t Rows = ATy.getDimSize(0), Cols = ATy.getDimSize(1);
  if (Rows == 0 || Cols == 0 || Rows > UINT32_MAX || Cols > UINT32_MAX) {
    Reason = llvm::formatv("the weight's shape {0} x {1} is outside what the "
                           "format encodes (1 .. 2^32-1 per dimension)",
                           Rows, Cols);
    return failure();
  }
  if (Cols % 8 != 0) {
    Reason = llvm::formatv("K = {0} is not a multiple of 8, which the SpMM "
                           "kernel's 16-byte activation loads need",
                           Cols);
    return failure();
  }

  // Where the weight comes from: a constant (encoded now) or a function
  // argument (encoded by the runtime), past any sparse_tensor.convert.
  SmallVector<Operation *, 2> Converts;
  Value Source = peelConverts(A, Converts);
  auto SourceTy = dyn_cast<RankedTensorType>(Source.getType());
  if (!SourceTy || SourceTy.getElementType() != AElt) {
    Reason = "the weight is converted from " + typeString(Source.getType()) +
             "; a sparse_tensor.convert in front of the matmul may change "
             "the encoding, not the element type";
    return failure();
  }
  WeightKind Kind = WeightKind::Constant;
  if (auto Weight = Source.getDefiningOp<arith::ConstantOp>()) {
    auto WeightAttr = dyn_cast<ElementsAttr>(Weight.getValue());
    FailureOr<std::vector<uint16_t>> Raw = failure();
    if (WeightAttr)
      Raw = getRaw16BitElements(WeightAttr);
    if (failed(Raw)) {
      Reason = "the weight's value is not a dense<...>, sparse<...> or "
               "loaded dense_resource<...> attribute the encoder can read";
      return failure();
    }
    uint64_t Nonzeros = 0;
    for (uint16_t V : *Raw)
      Nonzeros += V != 0;
    uint64_t Elements = Raw->size();
    double Sparsity = 1.0 - double(Nonzeros) / double(Elements);
    if (Sparsity < minSparsity) {
      Reason = llvm::formatv(
          "the weight is only {0:F1}% sparse ({1} of {2} elements are zero), "
          "below the {3:F1}% at which the three-layer format pays off against "
          "dense {4} (option min-sparsity)",
          Sparsity * 100, Elements - Nonzeros, Elements, minSparsity * 100,
          AElt.isBF16() ? "bf16" : "fp16");
      return failure();
    }
    Bits = std::move(*Raw);
  } else if (getArgumentFunction(Source)) {
    // Its sparsity is unknown until run time: min-sparsity does not apply.
    Kind = WeightKind::DenseArgument;
    if (hasSparseEncoding(SourceTy)) {
      std::string Why;
      if (!isRuntimeCsr(SourceTy, Why)) {
        Reason = "the weight is a function argument of type " +
                 typeString(SourceTy) + " and " + Why +
                 " (pass the dense weight marked '" +
                 SparseWeightAttrName.str() + "' instead)";
        return failure();
      }
      Kind = WeightKind::CsrArgument;
    }
  } else {
    Reason = "the weight is neither a compile-time constant nor a function "
             "argument (it is " +
             describeProducer(Source) +
             "); constants are encoded at compile time, function arguments "
             "at their first use at run time";
    return failure();
  }

  // The slot array and bitmap cost 1.125 bytes per padded element whatever
  // the sparsity; a weight much smaller than a block is cheaper dense.
  uint64_t Elements = uint64_t(Rows) * uint64_t(Cols);
  uint64_t Padded =
      uint64_t((Rows + 15) / 16 * 16) * ((Cols + 255) / 256 * 256);
  double FloorBytes = 1.125 * double(Padded) / double(Elements);
  if (FloorBytes >= maxBytesPerElement) {
    Reason = llvm::formatv(
        "padding the {0} x {1} weight to 16 x 256 blocks ({2} x {3}) makes "
        "the encoding read at least {4:F2} bytes per element, not less than "
        "{5:F2} (dense {6} reads 2; option max-bytes-per-element)",
        Rows, Cols, (Rows + 15) / 16 * 16, (Cols + 255) / 256 * 256, FloorBytes,
        static_cast<double>(maxBytesPerElement),
        AElt.isBF16() ? "bf16" : "fp16");
    return failure();
  }
  C.Op = Op;
  C.Kind = Kind;
  C.Source = Source;
  C.Converts = std::move(Converts);
  C.BF16 = AElt.isBF16();
  C.Rows = static_cast<uint32_t>(Rows);
  C.Cols = static_cast<uint32_t>(Cols);
  C.AccIsZero = isZeroTensor(Op.getOutputs()[0]);
  return success();
}

/// The weight operands of \p C's runtime call, created at \p B's insertion
/// point (a CSR argument's storage arrays) or taken from \p Encoded.
static SmallVector<Value> getWeightOperands(OpBuilder &B, Candidate &C,
                                            const TlsConstants *Encoded,
                                            FunctionType CalleeTy) {
  Location Loc = C.Op.getLoc();
  switch (C.Kind) {
  case WeightKind::Constant:
    return getTlsConstantOperands(B, Loc, *Encoded);
  case WeightKind::DenseArgument:
    return {C.Source};
  case WeightKind::CsrArgument: {
    auto I32 = [&](uint32_t V) {
      return arith::ConstantIntOp::create(B, Loc, B.getI32Type(), V)
          .getResult();
    };
    Value Positions = sparse_tensor::ToPositionsOp::create(
        B, Loc, CalleeTy.getInput(0), C.Source, sparse_tensor::Level(1));
    Value Coordinates = sparse_tensor::ToCoordinatesOp::create(
        B, Loc, CalleeTy.getInput(1), C.Source, sparse_tensor::Level(1));
    Value Values = sparse_tensor::ToValuesOp::create(
        B, Loc, CalleeTy.getInput(2), C.Source);
    return {Positions, Coordinates, Values, I32(C.Rows), I32(C.Cols)};
  }
  }
  llvm_unreachable("unknown weight kind");
}

void LowerSparseMatmulPass::runOnOperation() {
  ModuleOp Module = getOperation();

  // Malformed markers are errors, reported before anything is rewritten.
  bool Malformed = false;
  Module.walk([&](Operation *Op) {
    if (Attribute Marker = Op->getAttr(SparseWeightAttrName))
      Malformed |= failed(verifyMarker(Op, Marker));
    if (auto Fn = dyn_cast<FunctionOpInterface>(Op))
      Malformed |= failed(verifyArgMarkers(Fn));
  });
  if (Malformed)
    return signalPassFailure();

  SmallVector<Candidate> Candidates;
  DenseMap<Operation *, std::vector<uint16_t>> WeightBits;
  Module.walk([&](linalg::BatchMatmulOp Batch) {
    if (Batch->hasAttr(SparseWeightAttrName) ||
        llvm::any_of(Batch.getInputs(), isMarkedSparse))
      Batch.emitRemark() << "not lowered to the three-layer SpMM: batched "
                            "matmuls are not supported; only a 2-D "
                            "linalg.matmul is";
  });
  Module.walk([&](linalg::MatmulOp Matmul) {
    Candidate C;
    std::vector<uint16_t> Bits;
    std::string Reason;
    if (failed(analyze(Matmul, C, Bits, Reason))) {
      if (!Reason.empty())
        Matmul.emitRemark()
            << "not lowered to the three-layer SpMM: " << Reason;
      return;
    }
    if (C.Kind == WeightKind::Constant)
      WeightBits.try_emplace(C.Source.getDefiningOp(), std::move(Bits));
    Candidates.push_back(C);
  });
  if (Candidates.empty())
    return;

  OpBuilder B(&getContext());
  DenseMap<Operation *, TlsConstants> Encoded;
  // What may be dead once the matmuls are gone: the converts, then the
  // constants.
  SmallVector<Operation *> MaybeDead;
  for (Candidate &C : Candidates) {
    Type Elt = C.BF16 ? Type(B.getBF16Type()) : Type(B.getF16Type());
    FunctionType CalleeTy = getRuntimeType(&getContext(), C.Kind, Elt);
    FailureOr<func::FuncOp> Callee = getOrDeclareRuntimeFunc(
        Module, getRuntimeName(C.Kind, C.BF16), CalleeTy);
    if (failed(Callee))
      return signalPassFailure();

    const TlsConstants *Weight = nullptr;
    if (C.Kind == WeightKind::Constant) {
      Operation *Const = C.Source.getDefiningOp();
      auto It = Encoded.find(Const);
      if (It == Encoded.end()) {
        // The constants go where the weight was, so they dominate every use.
        B.setInsertionPoint(Const);
        FailureOr<TlsConstants> T = materializeTlsConstants(
            B, Const->getLoc(), WeightBits[Const], C.Rows, C.Cols, C.BF16);
        if (failed(T))
          return signalPassFailure();
        It = Encoded.try_emplace(Const, *T).first;
      }
      Weight = &It->second;
    }
    B.setInsertionPoint(C.Op);
    Value Y = emitRuntimeSpmmCall(
        B, C.Op.getLoc(), *Callee,
        [&] { return getWeightOperands(B, C, Weight, CalleeTy); },
        C.Op.getInputs()[1], C.Op.getOutputs()[0], C.AccIsZero,
        cast<RankedTensorType>(C.Op->getResult(0).getType()),
        Weight ? Weight->Stats : DictionaryAttr());
    C.Op->getResult(0).replaceAllUsesWith(Y);
    C.Op.erase();
    MaybeDead.append(C.Converts.begin(), C.Converts.end());
    if (Operation *Def = C.Source.getDefiningOp())
      MaybeDead.push_back(Def);
  }
  // The dense weight and its conversions are dead unless something else
  // still reads them.
  llvm::SmallPtrSet<Operation *, 8> Erased;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Operation *Op : MaybeDead)
      if (!Erased.contains(Op) && Op->use_empty()) {
        Op->erase();
        Erased.insert(Op);
        Changed = true;
      }
  }
}
