//===- LowerSparseMatmul.cpp - linalg.matmul with a sparse weight ---------===//
//
// Part of cuda-opt. The pass of --lower-sparse-matmul: finds linalg.matmul ops
// whose A operand is a constant marked sparse, checks that the runtime SpMM
// can compute them (the legality check, with a remark for every candidate it
// rejects), and rewrites the legal ones into the encoded weight and a call to
// @cuda_opt_tls_spmm.
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
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
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
  arith::ConstantOp Weight;
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

/// Whether \p V is marked as a sparse weight, by its type or by the marker
/// attribute on its defining op.
static bool isMarkedSparse(Value V) {
  if (hasSparseEncoding(V.getType()))
    return true;
  Operation *Def = V.getDefiningOp();
  return Def && Def->hasAttr(SparseWeightAttrName);
}

/// The marker must be a unit attribute or "tls", on a 2-D tensor
/// arith.constant or on a linalg.matmul (or batch_matmul).
static LogicalResult verifyMarker(Operation *Op, Attribute Marker) {
  auto Str = dyn_cast<StringAttr>(Marker);
  if (!isa<UnitAttr>(Marker) && !(Str && Str.getValue() == "tls"))
    return Op->emitError()
           << "'" << SparseWeightAttrName
           << "' must be a unit attribute or the string \"tls\" (the only "
              "supported format), not "
           << Marker;
  if (auto Const = dyn_cast<arith::ConstantOp>(Op)) {
    auto Ty = dyn_cast<RankedTensorType>(Const.getType());
    if (!Ty || Ty.getRank() != 2)
      return Op->emitError()
             << "'" << SparseWeightAttrName
             << "' marks a matmul weight and needs a 2-D tensor constant, not "
             << Const.getType();
    return success();
  }
  // On a batch_matmul it is well-formed; the pass then says why it is not
  // lowered.
  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(Op))
    return success();
  return Op->emitError() << "'" << SparseWeightAttrName
                         << "' belongs on the weight's arith.constant or on "
                            "the linalg.matmul, not on '"
                         << Op->getName() << "'";
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
  return "a block argument";
}

static std::string typeString(Type T) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << T;
  return S;
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
  if (!ATy || !BTy || !CTy || !ATy.hasStaticShape() || !BTy.hasStaticShape() ||
      !CTy.hasStaticShape()) {
    Reason = "it has dynamic shapes; the weight is encoded at compile time "
             "and the call needs static M, K and N";
    return failure();
  }
  if (BTy.getEncoding() || CTy.getEncoding()) {
    Reason = "the activations or the result carry a tensor encoding; the "
             "SpMM reads and writes dense tensors";
    return failure();
  }
  Type AElt = ATy.getElementType();
  if (AElt.isBF16()) {
    Reason = "the weight is bf16; the format can store bf16 but the SpMM "
             "kernel computes in fp16 only";
    return failure();
  }
  if (!AElt.isF16()) {
    Reason = "the weight's element type is " + typeString(AElt) +
             "; the SpMM kernel takes fp16";
    return failure();
  }
  if (!BTy.getElementType().isF16() || !CTy.getElementType().isF16()) {
    Reason = "the activations or the result are not fp16 (" + typeString(BTy) +
             ", " + typeString(CTy) +
             "); the SpMM kernel reads and writes fp16, accumulating in fp32";
    return failure();
  }
  auto Weight = A.getDefiningOp<arith::ConstantOp>();
  if (!Weight) {
    Reason = "the weight is not a compile-time constant (it is " +
             describeProducer(A) + "); only arith.constant weights are encoded";
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
        "dense fp16 (option min-sparsity)",
        Sparsity * 100, Elements - Nonzeros, Elements, minSparsity * 100);
    return failure();
  }
  // The slot array and bitmap cost 1.125 bytes per padded element whatever
  // the sparsity; a weight much smaller than a block is cheaper dense.
  uint64_t Padded =
      uint64_t((Rows + 15) / 16 * 16) * ((Cols + 255) / 256 * 256);
  double FloorBytes = 1.125 * double(Padded) / double(Elements);
  if (FloorBytes >= maxBytesPerElement) {
    Reason = llvm::formatv(
        "padding the {0} x {1} weight to 16 x 256 blocks ({2} x {3}) makes "
        "the encoding read at least {4:F2} bytes per element, not less than "
        "{5:F2} (dense fp16 reads 2; option max-bytes-per-element)",
        Rows, Cols, (Rows + 15) / 16 * 16, (Cols + 255) / 256 * 256, FloorBytes,
        static_cast<double>(maxBytesPerElement));
    return failure();
  }
  C.Op = Op;
  C.Weight = Weight;
  C.Rows = static_cast<uint32_t>(Rows);
  C.Cols = static_cast<uint32_t>(Cols);
  C.AccIsZero = isZeroTensor(Op.getOutputs()[0]);
  Bits = std::move(*Raw);
  return success();
}

void LowerSparseMatmulPass::runOnOperation() {
  ModuleOp Module = getOperation();

  // Malformed markers are errors, reported before anything is rewritten.
  bool Malformed = false;
  Module.walk([&](Operation *Op) {
    if (Attribute Marker = Op->getAttr(SparseWeightAttrName))
      Malformed |= failed(verifyMarker(Op, Marker));
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
    WeightBits.try_emplace(C.Weight, std::move(Bits));
    Candidates.push_back(C);
  });
  if (Candidates.empty())
    return;

  FailureOr<func::FuncOp> Callee = getOrDeclareTlsSpmm(Module);
  if (failed(Callee))
    return signalPassFailure();

  OpBuilder B(&getContext());
  DenseMap<Operation *, TlsConstants> Encoded;
  for (Candidate &C : Candidates) {
    auto It = Encoded.find(C.Weight);
    if (It == Encoded.end()) {
      // The constants go where the weight was, so they dominate every use.
      B.setInsertionPoint(C.Weight);
      FailureOr<TlsConstants> T = materializeTlsConstants(
          B, C.Weight.getLoc(), WeightBits[C.Weight], C.Rows, C.Cols);
      if (failed(T))
        return signalPassFailure();
      It = Encoded.try_emplace(C.Weight, *T).first;
    }
    B.setInsertionPoint(C.Op);
    Value Y =
        emitTlsSpmmCall(B, C.Op.getLoc(), *Callee, It->second,
                        C.Op.getInputs()[1], C.Op.getOutputs()[0], C.AccIsZero);
    C.Op->getResult(0).replaceAllUsesWith(Y);
    C.Op.erase();
  }
  // The dense weight is dead unless something else still reads it.
  for (auto &Entry : Encoded)
    if (Entry.first->use_empty())
      Entry.first->erase();
}
