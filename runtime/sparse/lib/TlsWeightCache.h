//===- TlsWeightCache.h - Weights encoded at first use ----------*- C++ -*-===//
//
// The host-side, CUDA-free part of the MLIR ABI's run-time weights
// (TlsMlirAbi.cu, docs/sparse-lowering.md "Run-time weights"): reading a
// weight from MLIR memref descriptors (a dense, possibly strided M x K view
// or CSR arrays), fingerprinting it, and the cache that maps a weight buffer
// to its encoded (uploaded) form. The cache is not synchronised; its user
// (TlsMlirAbi.cu) holds one mutex around every call. Checked on the CPU by
// runtime/sparse/test/WeightCacheTest.cpp (test/SparseLowering/
// runtime-weight-cache.test); the CPU stand-in runtime of
// test/SparseLowering/run-cpu.test runs on it too.
//
// Lifetime rule: a weight is encoded once, at its first use, and found again
// by the address of its first element, its shape, layout and element type.
// Its contents must not change, and its buffer must not be freed and reused
// for another weight of the same shape, while it is cached; call
// cuda_opt_tls_forget_weight(address) first. Every call compares a
// fingerprint of WeightSamples elements spread over the weight with the one
// taken at encoding time and stops the program when they differ (all
// elements with CUDA_OPT_TLS_VERIFY_WEIGHTS=1), so most violations are
// caught; a change that touches no sampled element is not.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAOPT_SPARSE_TLSWEIGHTCACHE_H
#define CUDAOPT_SPARSE_TLSWEIGHTCACHE_H

#include "MlirMemRef.h"
#include "TlsFormat.h"
#include "TlsLayout.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace cudaopt {
namespace sparse {

/// How a weight reaches the runtime.
enum class WeightForm : uint32_t {
  Encoded = 1, // the four arrays of the format (compile-time constants)
  Dense = 2,   // an M x K memref, encoded at first use
  Csr = 3,     // CSR positions, coordinates and values, encoded at first use
};

/// Elements fingerprinted per call (besides the last one).
constexpr uint64_t WeightSamples = 256;

/// What identifies a cached weight. Data is the address of the first element
/// (of the values array for Encoded and Csr weights); Extent0/Extent1 are the
/// dense view's strides, or for CSR the number of nonzeros and 0.
struct WeightKey {
  const void *Data = nullptr;
  WeightForm Form = WeightForm::Dense;
  ElemType Type = ElemType::F16;
  uint32_t Rows = 0, Cols = 0;
  int64_t Extent0 = 0, Extent1 = 0;

  bool operator<(const WeightKey &O) const {
    return std::make_tuple(Data, uint32_t(Form), uint32_t(Type), Rows, Cols,
                           Extent0, Extent1) <
           std::make_tuple(O.Data, uint32_t(O.Form), uint32_t(O.Type), O.Rows,
                           O.Cols, O.Extent0, O.Extent1);
  }
};

namespace detail {

/// FNV-1a over 64-bit words.
inline uint64_t mix(uint64_t H, uint64_t V) {
  for (int I = 0; I < 8; ++I) {
    H ^= (V >> (8 * I)) & 0xFF;
    H *= 0x100000001b3ULL;
  }
  return H;
}

/// Calls F(I) for Samples indices spread evenly over [0, Total) and for
/// Total - 1; for every index when Samples is 0 or not less than Total.
template <typename Fn> void forSamples(uint64_t Total, uint64_t Samples, Fn F) {
  if (Total == 0)
    return;
  if (Samples == 0 || Samples >= Total) {
    for (uint64_t I = 0; I < Total; ++I)
      F(I);
    return;
  }
  const uint64_t Step = Total / Samples, Extra = Total % Samples;
  for (uint64_t S = 0; S < Samples; ++S)
    F(S * Step + (S < Extra ? S : Extra));
  F(Total - 1);
}

} // namespace detail

/// The element (R, C) of a 2-D memref view.
inline uint16_t denseAt(const MemRef<uint16_t, 2> &W, int64_t R, int64_t C) {
  return W.Aligned[W.Offset + R * W.Strides[0] + C * W.Strides[1]];
}

/// Why the dense weight view cannot be encoded, or "" when it can.
inline std::string checkDenseWeight(const MemRef<uint16_t, 2> &W) {
  if (W.Sizes[0] <= 0 || W.Sizes[1] <= 0 || W.Sizes[0] > int64_t(UINT32_MAX) ||
      W.Sizes[1] > int64_t(UINT32_MAX))
    return "the weight's shape is outside 1 .. 2^32-1 per dimension";
  if (W.Sizes[1] % 8 != 0)
    return "the weight's K (columns) is not a multiple of 8";
  if (!W.Aligned)
    return "the weight's buffer is null";
  return "";
}

/// The dense weight view as a row-major Rows x Cols matrix.
inline std::vector<uint16_t> gatherDense(const MemRef<uint16_t, 2> &W) {
  const int64_t Rows = W.Sizes[0], Cols = W.Sizes[1];
  std::vector<uint16_t> Out(size_t(Rows) * size_t(Cols));
  for (int64_t R = 0; R < Rows; ++R)
    for (int64_t C = 0; C < Cols; ++C)
      Out[size_t(R) * size_t(Cols) + size_t(C)] = denseAt(W, R, C);
  return Out;
}

/// A fingerprint of the dense view (Samples elements; 0: all of them).
inline uint64_t fingerprintDense(const MemRef<uint16_t, 2> &W,
                                 uint64_t Samples) {
  const uint64_t Cols = uint64_t(W.Sizes[1]);
  uint64_t H = 0xcbf29ce484222325ULL;
  detail::forSamples(uint64_t(W.Sizes[0]) * Cols, Samples, [&](uint64_t I) {
    H = detail::mix(H, (I << 16) |
                           denseAt(W, int64_t(I / Cols), int64_t(I % Cols)));
  });
  return H;
}

/// Builds the row-major Rows x Cols matrix of a CSR weight (positions of
/// Rows + 1 entries, coordinates and values of Positions[Rows] entries).
/// Returns "" or what is wrong with the arrays.
inline std::string csrToDense(const MemRef<int64_t, 1> &Positions,
                              const MemRef<int64_t, 1> &Coordinates,
                              const MemRef<uint16_t, 1> &Values, uint32_t Rows,
                              uint32_t Cols, std::vector<uint16_t> &Out) {
  auto Pos = [&](int64_t I) {
    return Positions.Aligned[Positions.Offset + I * Positions.Strides[0]];
  };
  if (Positions.Sizes[0] != int64_t(Rows) + 1)
    return "the CSR positions array has " + std::to_string(Positions.Sizes[0]) +
           " entries, not rows + 1 = " + std::to_string(uint64_t(Rows) + 1);
  const int64_t Nnz = Pos(Rows);
  if (Pos(0) != 0 || Nnz < 0 || Nnz > Coordinates.Sizes[0] ||
      Nnz > Values.Sizes[0])
    return "the CSR positions do not match the coordinates and values";
  Out.assign(size_t(Rows) * size_t(Cols), 0);
  for (uint32_t R = 0; R < Rows; ++R) {
    const int64_t Begin = Pos(R), End = Pos(R + 1);
    if (Begin > End || End > Nnz)
      return "the CSR positions are not non-decreasing (row " +
             std::to_string(R) + ")";
    for (int64_t J = Begin; J < End; ++J) {
      const int64_t C =
          Coordinates.Aligned[Coordinates.Offset + J * Coordinates.Strides[0]];
      if (C < 0 || C >= int64_t(Cols))
        return "a CSR coordinate is outside the weight's columns (row " +
               std::to_string(R) + ", column " + std::to_string(C) + ")";
      Out[size_t(R) * Cols + size_t(C)] =
          Values.Aligned[Values.Offset + J * Values.Strides[0]];
    }
  }
  return "";
}

/// A fingerprint of the CSR arrays (Samples nonzeros and rows; 0: all).
inline uint64_t fingerprintCsr(const MemRef<int64_t, 1> &Positions,
                               const MemRef<int64_t, 1> &Coordinates,
                               const MemRef<uint16_t, 1> &Values, uint64_t Nnz,
                               uint64_t Samples) {
  uint64_t H = 0xcbf29ce484222325ULL;
  detail::forSamples(uint64_t(Positions.Sizes[0]), Samples, [&](uint64_t I) {
    H = detail::mix(
        H, uint64_t(
               Positions.Aligned[Positions.Offset + I * Positions.Strides[0]]));
  });
  detail::forSamples(Nnz, Samples, [&](uint64_t I) {
    H = detail::mix(H,
                    uint64_t(Coordinates.Aligned[Coordinates.Offset +
                                                 I * Coordinates.Strides[0]]));
    H = detail::mix(H, Values.Aligned[Values.Offset + I * Values.Strides[0]]);
  });
  return H;
}

/// What every entry point needs of its weight, whatever its form: the cache
/// key, the fingerprint, and how to encode it. TlsMlirAbi.cu builds one per
/// call; so does the CPU stand-in of test/SparseLowering (run-cpu.mlir).
struct WeightRequest {
  WeightKey Key;
  uint64_t Fingerprint = 0;
  /// Encodes the weight into Out; returns "" or what is wrong with it.
  std::string (*EncodeFn)(const WeightRequest &, TlsMatrix &Out) = nullptr;
  /// The memrefs the weight came from (those of its form).
  const MemRef<uint16_t, 1> *Values = nullptr; // Encoded, Csr
  const MemRef<uint32_t, 1> *Bitmap = nullptr, *Offsets = nullptr; // Encoded
  const MemRef<uint16_t, 1> *Residual = nullptr;                   // Encoded
  const MemRef<uint16_t, 2> *Dense = nullptr;                      // Dense
  const MemRef<int64_t, 1> *Positions = nullptr, *Coordinates = nullptr; // Csr

  std::string encode(TlsMatrix &Out) const { return EncodeFn(*this, Out); }
};

namespace detail {

template <typename T> std::vector<T> elements(const MemRef<T, 1> &M) {
  std::vector<T> Out(static_cast<size_t>(M.Sizes[0]));
  for (int64_t I = 0; I < M.Sizes[0]; ++I)
    Out[size_t(I)] = M.Aligned[M.Offset + I * M.Strides[0]];
  return Out;
}

inline std::string encodeEncoded(const WeightRequest &R, TlsMatrix &W) {
  W = TlsMatrix();
  W.Rows = R.Key.Rows;
  W.Cols = R.Key.Cols;
  W.Type = R.Key.Type;
  W.Values = elements(*R.Values);
  W.Bitmap = elements(*R.Bitmap);
  W.ResidualOffsets = elements(*R.Offsets);
  W.Residual = elements(*R.Residual);
  if (W.Values.size() != W.numBlocks() * BlockSlots ||
      W.Bitmap.size() != W.numBlocks() * BlockBitmapWords ||
      W.ResidualOffsets.size() != W.numBlocks() + 1)
    return "the weight arrays do not match M x K";
  return verify(W);
}

inline std::string encodeDense(const WeightRequest &R, TlsMatrix &W) {
  std::vector<uint16_t> Dense = gatherDense(*R.Dense);
  W = cudaopt::sparse::encode(Dense.data(), R.Key.Rows, R.Key.Cols, R.Key.Type);
  return verify(W);
}

inline std::string encodeCsr(const WeightRequest &R, TlsMatrix &W) {
  std::vector<uint16_t> Dense;
  std::string Problem = csrToDense(*R.Positions, *R.Coordinates, *R.Values,
                                   R.Key.Rows, R.Key.Cols, Dense);
  if (!Problem.empty())
    return Problem;
  W = cudaopt::sparse::encode(Dense.data(), R.Key.Rows, R.Key.Cols, R.Key.Type);
  return verify(W);
}

/// Why M x K cannot be a weight, or "" when it can.
inline std::string sizesError(int32_t M, int32_t K) {
  if (M <= 0 || K <= 0 || K % 8)
    return "bad sizes: M and K must be positive and K a multiple of 8";
  return "";
}

} // namespace detail

/// A weight encoded at compile time: its four arrays (constants of the
/// module, so no fingerprint). Sets \p Error (else clears it) for bad sizes.
inline WeightRequest encodedWeight(const MemRef<uint16_t, 1> &Values,
                                   const MemRef<uint32_t, 1> &Bitmap,
                                   const MemRef<uint32_t, 1> &Offsets,
                                   const MemRef<uint16_t, 1> &Residual,
                                   int32_t M, int32_t K, ElemType Type,
                                   std::string &Error) {
  WeightRequest R;
  Error = detail::sizesError(M, K);
  if (!Error.empty())
    return R;
  R.Key.Data = Values.Aligned + Values.Offset;
  R.Key.Form = WeightForm::Encoded;
  R.Key.Type = Type;
  R.Key.Rows = uint32_t(M);
  R.Key.Cols = uint32_t(K);
  R.EncodeFn = detail::encodeEncoded;
  R.Values = &Values;
  R.Bitmap = &Bitmap;
  R.Offsets = &Offsets;
  R.Residual = &Residual;
  return R;
}

/// A dense M x K weight (any strides), fingerprinted with \p Samples
/// elements (0: all). Sets \p Error (else clears it) when it cannot be
/// encoded.
inline WeightRequest denseWeight(const MemRef<uint16_t, 2> &W, ElemType Type,
                                 uint64_t Samples, std::string &Error) {
  WeightRequest R;
  Error = checkDenseWeight(W);
  if (!Error.empty())
    return R;
  R.Key.Data = W.Aligned + W.Offset;
  R.Key.Form = WeightForm::Dense;
  R.Key.Type = Type;
  R.Key.Rows = uint32_t(W.Sizes[0]);
  R.Key.Cols = uint32_t(W.Sizes[1]);
  R.Key.Extent0 = W.Strides[0];
  R.Key.Extent1 = W.Strides[1];
  R.Fingerprint = fingerprintDense(W, Samples);
  R.EncodeFn = detail::encodeDense;
  R.Dense = &W;
  return R;
}

/// A CSR M x K weight, fingerprinted with \p Samples nonzeros (0: all).
/// Sets \p Error (else clears it) when the arrays do not fit together.
inline WeightRequest csrWeight(const MemRef<int64_t, 1> &Positions,
                               const MemRef<int64_t, 1> &Coordinates,
                               const MemRef<uint16_t, 1> &Values, int32_t M,
                               int32_t K, ElemType Type, uint64_t Samples,
                               std::string &Error) {
  WeightRequest R;
  Error = detail::sizesError(M, K);
  if (!Error.empty())
    return R;
  if (Positions.Sizes[0] != int64_t(M) + 1) {
    Error = "the CSR positions array does not have M + 1 entries";
    return R;
  }
  const int64_t Nnz =
      Positions.Aligned[Positions.Offset + int64_t(M) * Positions.Strides[0]];
  if (Nnz < 0 || Nnz > Values.Sizes[0] || Nnz > Coordinates.Sizes[0]) {
    Error = "the CSR positions do not match the coordinates and values";
    return R;
  }
  R.Key.Data = Values.Aligned + Values.Offset;
  R.Key.Form = WeightForm::Csr;
  R.Key.Type = Type;
  R.Key.Rows = uint32_t(M);
  R.Key.Cols = uint32_t(K);
  R.Key.Extent0 = Nnz;
  R.Fingerprint =
      fingerprintCsr(Positions, Coordinates, Values, uint64_t(Nnz), Samples);
  R.EncodeFn = detail::encodeCsr;
  R.Positions = &Positions;
  R.Coordinates = &Coordinates;
  R.Values = &Values;
  return R;
}

/// Weights by WeightKey, each with the fingerprint taken when it was built.
/// Payload is what the user keeps per weight (TlsMlirAbi.cu: the uploaded
/// TlsDeviceMatrix). Not synchronised.
template <typename Payload> class WeightCache {
public:
  /// Returns the payload for \p Key, calling Build(Payload &, std::string
  /// &Error) -> bool to make it on the first use. Returns nullptr with
  /// \p Error set when Build fails (nothing is cached) or when the entry's
  /// fingerprint differs from \p Fingerprint (the weight changed after its
  /// first use, or its buffer now holds another weight).
  template <typename BuildFn>
  Payload *get(const WeightKey &Key, uint64_t Fingerprint, BuildFn Build,
               std::string &Error) {
    auto It = Entries.find(Key);
    if (It != Entries.end()) {
      if (It->second.Fingerprint == Fingerprint)
        return &It->second.Value;
      Error = "the weight changed after its first use (a cached weight must "
              "not be modified, or its buffer reused, before "
              "cuda_opt_tls_forget_weight is called on it)";
      return nullptr;
    }
    Entry E;
    E.Fingerprint = Fingerprint;
    if (!Build(E.Value, Error))
      return nullptr;
    ++Builds;
    return &Entries.emplace(Key, std::move(E)).first->second.Value;
  }

  /// Drops every entry whose buffer starts at \p Data, passing each payload
  /// to Release(Payload &) first. Returns how many were dropped.
  template <typename ReleaseFn>
  size_t forget(const void *Data, ReleaseFn Release) {
    size_t N = 0;
    for (auto It = Entries.begin(); It != Entries.end();) {
      if (It->first.Data != Data) {
        ++It;
        continue;
      }
      Release(It->second.Value);
      It = Entries.erase(It);
      ++N;
    }
    return N;
  }

  size_t size() const { return Entries.size(); }
  /// How many times Build succeeded (encodings done), for tests.
  uint64_t builds() const { return Builds; }

private:
  struct Entry {
    Payload Value{};
    uint64_t Fingerprint = 0;
  };
  std::map<WeightKey, Entry> Entries;
  uint64_t Builds = 0;
};

} // namespace sparse
} // namespace cudaopt

#endif // CUDAOPT_SPARSE_TLSWEIGHTCACHE_H
