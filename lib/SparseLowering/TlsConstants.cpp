//===- TlsConstants.cpp - Encode a constant weight as TLS constants -------===//
//
// Part of cuda-opt. Runs the three-layer format's encoder (runtime/sparse) at
// compile time and materializes its four arrays as arith.constant tensors,
// with the encoding statistics as a dictionary attribute.
//
//===----------------------------------------------------------------------===//

#include "cuda-opt/SparseLowering/SparseLowering.h"

#include "TlsFormat.h"

#include <cmath>
#include <cstring>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace cuda_opt;
using namespace cuda_opt::sparse_lowering;
namespace tls = cudaopt::sparse;

FailureOr<std::vector<uint16_t>>
sparse_lowering::getRaw16BitElements(ElementsAttr Attr) {
  auto Ty = cast<ShapedType>(Attr.getType());
  if (Ty.getElementType().getIntOrFloatBitWidth() != 16)
    return failure();
  size_t NumElements = Ty.getNumElements();
  std::vector<uint16_t> Bits(NumElements);
  // Fast path: a non-splat dense attribute stores exactly the row-major bits.
  if (auto Dense = dyn_cast<DenseElementsAttr>(Attr);
      Dense && !Dense.isSplat()) {
    ArrayRef<char> Raw = Dense.getRawData();
    if (Raw.size() != NumElements * sizeof(uint16_t))
      return failure();
    std::memcpy(Bits.data(), Raw.data(), Raw.size());
    return Bits;
  }
  // A dense_resource blob (how large weights usually arrive) holds the same
  // row-major bits.
  if (auto Resource = dyn_cast<DenseResourceElementsAttr>(Attr)) {
    const AsmResourceBlob *Blob = Resource.getRawHandle().getBlob();
    if (!Blob || Blob->getData().size() != NumElements * sizeof(uint16_t))
      return failure();
    std::memcpy(Bits.data(), Blob->getData().data(), Blob->getData().size());
    return Bits;
  }
  // Splats and sparse<...> attributes go through the generic accessor.
  auto Values = Attr.tryGetValues<APFloat>();
  if (!Values)
    return failure();
  size_t I = 0;
  for (const APFloat &V : *Values)
    Bits[I++] = static_cast<uint16_t>(V.bitcastToAPInt().getZExtValue());
  return Bits;
}

/// A rank-1 integer constant holding \p Data.
template <typename T>
static Value createArrayConstant(OpBuilder &B, Location Loc,
                                 const std::vector<T> &Data) {
  auto Ty = RankedTensorType::get({static_cast<int64_t>(Data.size())},
                                  B.getIntegerType(8 * sizeof(T)));
  ArrayRef<char> Raw(reinterpret_cast<const char *>(Data.data()),
                     Data.size() * sizeof(T));
  auto Attr = DenseElementsAttr::getFromRawBuffer(Ty, Raw);
  return arith::ConstantOp::create(B, Loc, cast<TypedAttr>(Attr));
}

/// Rounds a share or a ratio for printing: the attribute documents the
/// encoding, it is not an input to anything.
static double round4(double V) { return std::round(V * 1e4) / 1e4; }

FailureOr<TlsConstants> sparse_lowering::materializeTlsConstants(
    OpBuilder &B, Location Loc, ArrayRef<uint16_t> Dense, uint32_t Rows,
    uint32_t Cols, bool BF16) {
  tls::TlsMatrix M =
      tls::encode(Dense.data(), Rows, Cols,
                  BF16 ? tls::ElemType::BF16 : tls::ElemType::F16);
  std::string Problem = tls::verify(M);
  if (!Problem.empty())
    return emitError(Loc) << "the three-layer encoder produced an "
                             "inconsistent matrix: "
                          << Problem;
  // The encoder is exact; check it here, where a bug would otherwise become
  // silently wrong results on the GPU.
  std::vector<uint16_t> Decoded(static_cast<size_t>(Rows) * Cols);
  tls::decode(M, Decoded.data());
  if (!std::equal(Decoded.begin(), Decoded.end(), Dense.begin()))
    return emitError(Loc) << "the three-layer encoding of this weight does "
                             "not decode back to it; please report a bug";

  tls::TlsStats S = tls::computeStats(M);
  TlsConstants C;
  C.Rows = Rows;
  C.Cols = Cols;
  C.MaxBlockResidual = S.MaxBlockResidual;
  C.Values = createArrayConstant(B, Loc, M.Values);
  C.Bitmap = createArrayConstant(B, Loc, M.Bitmap);
  C.ResidualOffsets = createArrayConstant(B, Loc, M.ResidualOffsets);
  C.Residual = createArrayConstant(B, Loc, M.Residual);

  auto I64 = [&](uint64_t V) {
    return B.getI64IntegerAttr(static_cast<int64_t>(V));
  };
  auto F64 = [&](double V) { return B.getF64FloatAttr(round4(V)); };
  double Sparsity =
      S.Elements ? 1.0 - double(S.Nonzeros) / double(S.Elements) : 0.0;
  C.Stats = B.getDictionaryAttr({
      B.getNamedAttr("rows", I64(Rows)),
      B.getNamedAttr("cols", I64(Cols)),
      B.getNamedAttr("blocks", I64(M.numBlocks())),
      B.getNamedAttr("elements", I64(S.Elements)),
      B.getNamedAttr("nonzeros", I64(S.Nonzeros)),
      B.getNamedAttr("sparsity", F64(Sparsity)),
      B.getNamedAttr("bytes", I64(S.Bytes)),
      B.getNamedAttr("bytes_per_element", F64(S.bytesPerElement())),
      B.getNamedAttr("layer1_share", F64(S.share(S.Layer1))),
      B.getNamedAttr("layer2_share", F64(S.share(S.Layer2))),
      B.getNamedAttr("layer3_share", F64(S.share(S.Layer3))),
      B.getNamedAttr("max_block_residual", I64(S.MaxBlockResidual)),
  });
  return C;
}
