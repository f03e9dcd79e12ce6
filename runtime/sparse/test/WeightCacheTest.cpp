//===- WeightCacheTest.cpp - CPU checks of the run-time weight cache ------===//
//
// The CUDA-free part of the MLIR ABI's run-time weights
// (lib/TlsWeightCache.h), as TlsMlirAbi.cu uses it:
//   1. a dense weight read through a strided (here: transposed) memref view
//      encodes to the same arrays as the contiguous matrix;
//   2. a CSR weight (positions, coordinates, values) too; malformed CSR
//      arrays are rejected with a reason;
//   3. the cache encodes a weight once, keeps weights of another shape,
//      layout or element type at the same address apart, stops a call whose
//      weight changed after its first use (a sampled element; with a full
//      fingerprint any element), and forgets a weight on request;
//   4. the requests the entry points build (encodedWeight, denseWeight,
//      csrWeight): keys, fingerprints, encoders, size errors.
// Prints "ok ..." per check, then PASS, or FAIL lines.
// Run by test/SparseLowering/runtime-weight-cache.test.
//
//===----------------------------------------------------------------------===//

#include "TlsWeightCache.h"

#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace cudaopt::sparse;

namespace {

int Failures = 0;

void expect(bool Ok, const std::string &What) {
  std::printf("%s %s\n", Ok ? "ok" : "FAIL:", What.c_str());
  Failures += !Ok;
}

bool sameArrays(const TlsMatrix &A, const TlsMatrix &B) {
  return A.Rows == B.Rows && A.Cols == B.Cols && A.Type == B.Type &&
         A.Values == B.Values && A.Bitmap == B.Bitmap &&
         A.ResidualOffsets == B.ResidualOffsets && A.Residual == B.Residual;
}

/// A Rows x Cols matrix of random 16-bit patterns at about 50 % sparsity.
std::vector<uint16_t> randomWeight(uint32_t Rows, uint32_t Cols,
                                   uint64_t Seed) {
  std::mt19937_64 Rng(Seed);
  std::vector<uint16_t> W(size_t(Rows) * Cols);
  for (auto &V : W)
    V = (Rng() & 1) ? uint16_t(0x3C00 | (Rng() & 0x3FF)) : 0;
  return W;
}

template <typename T> MemRef<T, 1> view1(std::vector<T> &V) {
  return {V.data(), V.data(), 0, {int64_t(V.size())}, {1}};
}

} // namespace

int main() {
  const uint32_t M = 40, K = 264; // two tiles' worth of rows, K % 256 != 0
  std::vector<uint16_t> W = randomWeight(M, K, 1);
  const TlsMatrix Ref = encode(W.data(), M, K, ElemType::F16);

  // 1. Dense views: contiguous, and the same matrix stored transposed
  //    (column-major) behind an offset.
  MemRef<uint16_t, 2> Contig{W.data(), W.data(), 0, {M, K}, {K, 1}};
  expect(checkDenseWeight(Contig).empty(), "contiguous view accepted");
  TlsMatrix FromContig =
      encode(gatherDense(Contig).data(), M, K, ElemType::F16);
  expect(sameArrays(FromContig, Ref), "contiguous view encodes like W");
  std::vector<uint16_t> Tr(5 + size_t(M) * K);
  for (uint32_t R = 0; R < M; ++R)
    for (uint32_t C = 0; C < K; ++C)
      Tr[5 + size_t(C) * M + R] = W[size_t(R) * K + C];
  MemRef<uint16_t, 2> Strided{Tr.data(), Tr.data(), 5, {M, K}, {1, M}};
  TlsMatrix FromStrided =
      encode(gatherDense(Strided).data(), M, K, ElemType::F16);
  expect(sameArrays(FromStrided, Ref),
         "strided (transposed) view encodes like W");
  MemRef<uint16_t, 2> BadK{W.data(), W.data(), 0, {M, 12}, {K, 1}};
  expect(!checkDenseWeight(BadK).empty(),
         "K = 12 rejected: " + checkDenseWeight(BadK));

  // 2. CSR.
  std::vector<int64_t> Pos(M + 1, 0), Crd;
  std::vector<uint16_t> Vals;
  for (uint32_t R = 0; R < M; ++R) {
    for (uint32_t C = 0; C < K; ++C)
      if (W[size_t(R) * K + C]) {
        Crd.push_back(C);
        Vals.push_back(W[size_t(R) * K + C]);
      }
    Pos[R + 1] = int64_t(Crd.size());
  }
  auto PosRef = view1(Pos), CrdRef = view1(Crd);
  auto ValRef = view1(Vals);
  std::vector<uint16_t> FromCsr;
  std::string Problem = csrToDense(PosRef, CrdRef, ValRef, M, K, FromCsr);
  expect(Problem.empty() && FromCsr == W,
         "CSR arrays give W" + (Problem.empty() ? "" : ": " + Problem));
  std::vector<int64_t> BadCrd = Crd;
  BadCrd[3] = K;
  auto BadCrdRef = view1(BadCrd);
  Problem = csrToDense(PosRef, BadCrdRef, ValRef, M, K, FromCsr);
  expect(Problem.find("outside the weight's columns") != std::string::npos,
         "CSR coordinate out of range rejected: " + Problem);
  std::vector<int64_t> BadPos = Pos;
  std::swap(BadPos[3], BadPos[4]);
  auto BadPosRef = view1(BadPos);
  Problem = csrToDense(BadPosRef, CrdRef, ValRef, M, K, FromCsr);
  expect(Problem.find("not non-decreasing") != std::string::npos,
         "CSR positions out of order rejected: " + Problem);
  MemRef<int64_t, 1> ShortPos{Pos.data(), Pos.data(), 0, {M}, {1}};
  Problem = csrToDense(ShortPos, CrdRef, ValRef, M, K, FromCsr);
  expect(Problem.find("not rows + 1") != std::string::npos,
         "CSR positions of the wrong length rejected: " + Problem);

  // 3. The cache, with the encoded matrix as payload.
  WeightCache<TlsMatrix> Cache;
  std::string Error;
  // Requests as TlsMlirAbi.cu makes them (denseWeight: key, fingerprint,
  // encoder).
  auto Request = [&](const MemRef<uint16_t, 2> &V, ElemType T,
                     uint64_t Samples) {
    std::string RequestError;
    WeightRequest R = denseWeight(V, T, Samples, RequestError);
    if (!RequestError.empty())
      expect(false, "denseWeight: " + RequestError);
    return R;
  };
  auto GetFrom = [&](WeightCache<TlsMatrix> &C, const WeightRequest &R) {
    Error.clear();
    return C.get(
        R.Key, R.Fingerprint,
        [&](TlsMatrix &Out, std::string &E) {
          E = R.encode(Out);
          return E.empty();
        },
        Error);
  };
  auto Get = [&](const MemRef<uint16_t, 2> &V, ElemType T, uint64_t Samples) {
    return GetFrom(Cache, Request(V, T, Samples));
  };
  TlsMatrix *First = Get(Contig, ElemType::F16, WeightSamples);
  expect(First && sameArrays(*First, Ref) && Cache.builds() == 1,
         "first use encodes");
  TlsMatrix *Again = Get(Contig, ElemType::F16, WeightSamples);
  expect(Again == First && Cache.builds() == 1, "second use hits the cache");
  // The top 16 x 264 rows at the same address: another weight.
  MemRef<uint16_t, 2> Top{W.data(), W.data(), 0, {16, K}, {K, 1}};
  TlsMatrix *TopW = Get(Top, ElemType::F16, WeightSamples);
  expect(TopW && TopW != First && TopW->Rows == 16 && Cache.builds() == 2,
         "same address, other shape: encoded apart");
  TlsMatrix *AsBf16 = Get(Contig, ElemType::BF16, WeightSamples);
  expect(AsBf16 && AsBf16 != First && AsBf16->Type == ElemType::BF16 &&
             Cache.builds() == 3,
         "same address, other element type: encoded apart");
  expect(Cache.size() == 3, "three entries");

  // A changed element the sample covers (the first) is caught.
  const uint16_t Saved = W[0];
  W[0] ^= 0x0101;
  const bool Stopped = Get(Contig, ElemType::F16, WeightSamples) == nullptr;
  expect(Stopped &&
             Error.find("changed after its first use") != std::string::npos,
         "a changed weight is detected: " + Error);
  W[0] = Saved;
  // An element between two samples: missed by the sampled fingerprint,
  // caught by the full one (CUDA_OPT_TLS_VERIFY_WEIGHTS=1).
  const uint64_t Total = uint64_t(M) * K, Step = Total / WeightSamples;
  const size_t Between = size_t(Step / 2 ? Step / 2 : 1);
  expect(Step >= 2, "the sample leaves elements between samples");
  WeightCache<TlsMatrix> Full;
  auto GetFull = [&]() {
    return GetFrom(Full, Request(Contig, ElemType::F16, 0));
  };
  expect(GetFull() != nullptr, "full fingerprint: first use");
  W[Between] ^= 0x0001;
  expect(Get(Contig, ElemType::F16, WeightSamples) != nullptr,
         "an unsampled change is not seen by the sampled fingerprint");
  expect(GetFull() == nullptr, "an unsampled change is seen by the full one");
  W[Between] ^= 0x0001;

  // Forgetting drops every entry at the address; the next use re-encodes.
  int Released = 0;
  size_t Dropped = Cache.forget(W.data(), [&](TlsMatrix &) { ++Released; });
  expect(Dropped == 3 && Released == 3 && Cache.size() == 0,
         "forget drops all three entries at the address");
  W[0] ^= 0x0101; // now allowed: the weight was forgotten
  TlsMatrix *Changed = Get(Contig, ElemType::F16, WeightSamples);
  TlsMatrix Expect = encode(W.data(), M, K, ElemType::F16);
  expect(Changed && sameArrays(*Changed, Expect) && Cache.builds() == 4,
         "after forget, the changed weight is encoded anew");
  W[0] = Saved;

  // A failing build caches nothing.
  Error.clear();
  TlsMatrix *Failed = Cache.get(
      Request(Strided, ElemType::F16, WeightSamples).Key, 1,
      [](TlsMatrix &, std::string &E) {
        E = "no";
        return false;
      },
      Error);
  expect(!Failed && Error == "no" && Cache.size() == 1,
         "a failed encoding is not cached");

  // The other two requests: the compile-time arrays and CSR.
  TlsMatrix Bf = encode(W.data(), M, K, ElemType::BF16);
  auto VRef = view1(Bf.Values);
  auto BRef = view1(Bf.Bitmap);
  auto ORef = view1(Bf.ResidualOffsets);
  auto RRef = view1(Bf.Residual);
  std::string RequestError;
  WeightRequest Enc = encodedWeight(VRef, BRef, ORef, RRef, int32_t(M),
                                    int32_t(K), ElemType::BF16, RequestError);
  TlsMatrix FromArrays;
  std::string EncProblem = RequestError.empty() ? Enc.encode(FromArrays) : "";
  expect(RequestError.empty() && EncProblem.empty() &&
             sameArrays(FromArrays, Bf) && Enc.Key.Form == WeightForm::Encoded,
         "encodedWeight rebuilds the compile-time arrays" +
             (EncProblem.empty() ? "" : ": " + EncProblem));
  encodedWeight(VRef, BRef, ORef, RRef, int32_t(M), 12, ElemType::BF16,
                RequestError);
  expect(!RequestError.empty(),
         "encodedWeight rejects K = 12: " + RequestError);
  WeightRequest Csr = csrWeight(PosRef, CrdRef, ValRef, int32_t(M), int32_t(K),
                                ElemType::F16, WeightSamples, RequestError);
  TlsMatrix FromCsrReq;
  std::string CsrProblem = RequestError.empty() ? Csr.encode(FromCsrReq) : "";
  expect(RequestError.empty() && CsrProblem.empty() &&
             sameArrays(FromCsrReq, Ref) &&
             Csr.Key.Extent0 == int64_t(Vals.size()),
         "csrWeight encodes like W, keyed on its nonzeros");
  csrWeight(ShortPos, CrdRef, ValRef, int32_t(M), int32_t(K), ElemType::F16,
            WeightSamples, RequestError);
  expect(RequestError.find("M + 1 entries") != std::string::npos,
         "csrWeight rejects short positions: " + RequestError);

  // CSR fingerprints see a changed value.
  uint64_t P0 = fingerprintCsr(PosRef, CrdRef, ValRef, Vals.size(), 0);
  Vals.back() ^= 1;
  uint64_t P1 = fingerprintCsr(PosRef, CrdRef, ValRef, Vals.size(), 0);
  Vals.back() ^= 1;
  expect(P0 != P1, "CSR fingerprint changes with a value");

  if (Failures) {
    std::printf("%d FAILED\n", Failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
