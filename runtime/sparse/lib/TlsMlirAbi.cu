//===- TlsMlirAbi.cu - The host functions the MLIR lowering calls ---------===//
//
// `cuda-opt --lower-sparse-matmul` turns a linalg.matmul with a sparse weight
// into a call of one of the functions below (docs/sparse-lowering.md,
// "Runtime ABI"; prototypes in TlsMlirAbi.h). Bufferised and lowered to the
// LLVM dialect with llvm.emit_c_interface, the call reaches
// _mlir_ciface_<name> with memref descriptors of host memory:
//
//  - cuda_opt_tls_spmm[_bf16]: the weight's four arrays, encoded at compile
//    time (constants of the module), its sizes, and X^T;
//  - cuda_opt_tls_spmm_dense_weight[_bf16]: a dense M x K weight (a function
//    argument of the lowered module) and X^T;
//  - cuda_opt_tls_spmm_csr_weight[_bf16]: a CSR weight (a function argument
//    with a sparse_tensor encoding) and X^T.
//
// Each weight is encoded (the last two) and uploaded once, at its first use,
// and found again in a cache (TlsWeightCache.h) by its buffer's address,
// shape, layout and element type; the lifetime rule is there and in the
// docs: a cached weight must not change until cuda_opt_tls_forget_weight is
// called on it, which every call checks on a fingerprint of 256 elements
// (all of them with CUDA_OPT_TLS_VERIFY_WEIGHTS=1). Then X^T (N x K,
// row-major, possibly strided) is copied to the GPU, tlsSpmm runs with fp32
// accumulation on the default stream, and Y^T (N x M, row-major) is returned
// in a new malloc'ed buffer. Thread safety: every entry point holds one
// process-wide mutex for the whole call (cache, scratch buffers and the
// kernel), so calls from several threads are safe and run one at a time.
// There is no error channel in this ABI: a failure prints why and aborts, as
// MLIR's own runtime helpers do.
//
// Part of the cudaopt_spmm library (runtime/sparse/CMakeLists.txt, nvcc,
// sm_90a); see docs/sparse-lowering.md.
//
//===----------------------------------------------------------------------===//
#include "TlsMlirAbi.h"
#include "TlsSpmm.h"
#include "TlsWeightCache.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

using namespace cudaopt::sparse;

namespace {

[[noreturn]] void die(const char *Entry, const char *What, const char *Detail) {
  std::fprintf(stderr, "%s: %s%s%s\n", Entry, What, Detail ? ": " : "",
               Detail ? Detail : "");
  std::abort();
}

void check(const char *Entry, cudaError_t E, const char *What) {
  if (E != cudaSuccess)
    die(Entry, What, cudaGetErrorString(E));
}

/// Guards everything below; held for the whole of every call.
std::mutex Lock;
/// Weights on the device.
WeightCache<TlsDeviceMatrix> Cache;

/// Fingerprint every element, not a sample (CUDA_OPT_TLS_VERIFY_WEIGHTS=1).
uint64_t samples() {
  static const bool All = [] {
    const char *V = std::getenv("CUDA_OPT_TLS_VERIFY_WEIGHTS");
    return V && *V && std::strcmp(V, "0") != 0;
  }();
  return All ? 0 : WeightSamples;
}

/// Device scratch reused across calls: X, Y and the split-K workspace.
struct Scratch {
  void *Ptr = nullptr;
  size_t Bytes = 0;
  void *get(const char *Entry, size_t Need, bool Zero) {
    if (Need <= Bytes)
      return Ptr;
    if (Ptr)
      cudaFree(Ptr);
    check(Entry, cudaMalloc(&Ptr, Need), "cudaMalloc");
    Bytes = Need;
    if (Zero)
      check(Entry, cudaMemset(Ptr, 0, Need), "cudaMemset");
    return Ptr;
  }
};
Scratch XBuf, YBuf, Workspace;

/// Returns the device copy of the weight \p R describes, encoding and
/// uploading it on its first use. Stops the program on any problem.
const TlsDeviceMatrix &cached(const char *Entry, const WeightRequest &R,
                              const std::string &RequestError) {
  if (!RequestError.empty())
    die(Entry, RequestError.c_str(), nullptr);
  std::string Error;
  TlsDeviceMatrix *D = Cache.get(
      R.Key, R.Fingerprint,
      [&](TlsDeviceMatrix &Out, std::string &Err) {
        TlsMatrix W;
        Err = R.encode(W);
        if (!Err.empty())
          return false;
        cudaError_t E = tlsUpload(W, Out);
        if (E != cudaSuccess) {
          Err = std::string("tlsUpload: ") + cudaGetErrorString(E);
          return false;
        }
        return true;
      },
      Error);
  if (!D)
    die(Entry, Error.c_str(), nullptr);
  return *D;
}

/// Y^T = (W X)^T for X^T of N x K: runs tlsSpmm and fills Result.
void runSpmm(const char *Entry, const TlsDeviceMatrix &D,
             MemRef<uint16_t, 2> *Result, const MemRef<uint16_t, 2> *Xt) {
  const int M = static_cast<int>(D.Rows), K = static_cast<int>(D.Cols);
  if (Xt->Sizes[1] != K)
    die(Entry, "X^T has the wrong number of columns (not the weight's K)",
        nullptr);
  const int N = static_cast<int>(Xt->Sizes[0]);

  // X^T row n is X's column n: pack it with Ldx = K (16-byte rows).
  std::vector<uint16_t> X(static_cast<size_t>(N) * K);
  for (int64_t Nn = 0; Nn < N; ++Nn)
    for (int64_t Kk = 0; Kk < K; ++Kk)
      X[Nn * K + Kk] =
          Xt->Aligned[Xt->Offset + Nn * Xt->Strides[0] + Kk * Xt->Strides[1]];
  const size_t XBytes = X.size() * sizeof(uint16_t);
  const size_t YBytes = static_cast<size_t>(N) * M * sizeof(uint16_t);
  uint16_t *Y = static_cast<uint16_t *>(std::malloc(YBytes ? YBytes : 1));
  if (!Y)
    die(Entry, "out of host memory", nullptr);
  if (N > 0) {
    void *DX = XBuf.get(Entry, XBytes, false);
    void *DY = YBuf.get(Entry, YBytes, false);
    size_t WsBytes = tlsSpmmWorkspaceBytes(D, N);
    void *Ws = WsBytes ? Workspace.get(Entry, WsBytes, /*Zero=*/true) : nullptr;
    check(Entry, cudaMemcpy(DX, X.data(), XBytes, cudaMemcpyHostToDevice),
          "upload X");
    cudaError_t E =
        D.Type == ElemType::BF16
            ? tlsSpmm(D, static_cast<const __nv_bfloat16 *>(DX), K, N,
                      static_cast<__nv_bfloat16 *>(DY), M, Ws, WsBytes, nullptr)
            : tlsSpmm(D, static_cast<const __half *>(DX), K, N,
                      static_cast<__half *>(DY), M, Ws, WsBytes, nullptr);
    check(Entry, E, "tlsSpmm");
    check(Entry, cudaMemcpy(Y, DY, YBytes, cudaMemcpyDeviceToHost),
          "download Y");
  }
  Result->Allocated = Y;
  Result->Aligned = Y;
  Result->Offset = 0;
  Result->Sizes[0] = N;
  Result->Sizes[1] = M;
  Result->Strides[0] = M;
  Result->Strides[1] = 1;
}

void spmmEncoded(const char *Entry, ElemType Type, MemRef<uint16_t, 2> *Result,
                 MemRef<uint16_t, 1> *Values, MemRef<uint32_t, 1> *Bitmap,
                 MemRef<uint32_t, 1> *Offsets, MemRef<uint16_t, 1> *Residual,
                 int32_t M, int32_t K, int32_t MaxBlockResidual,
                 MemRef<uint16_t, 2> *Xt) {
  std::lock_guard<std::mutex> L(Lock);
  std::string Error;
  WeightRequest R =
      encodedWeight(*Values, *Bitmap, *Offsets, *Residual, M, K, Type, Error);
  const TlsDeviceMatrix &D = cached(Entry, R, Error);
  if (D.MaxBlockResidual != static_cast<uint32_t>(MaxBlockResidual))
    die(Entry, "the max block residual operand does not match the arrays",
        nullptr);
  runSpmm(Entry, D, Result, Xt);
}

void spmmDense(const char *Entry, ElemType Type, MemRef<uint16_t, 2> *Result,
               MemRef<uint16_t, 2> *W, MemRef<uint16_t, 2> *Xt) {
  std::lock_guard<std::mutex> L(Lock);
  std::string Error;
  WeightRequest R = denseWeight(*W, Type, samples(), Error);
  runSpmm(Entry, cached(Entry, R, Error), Result, Xt);
}

void spmmCsr(const char *Entry, ElemType Type, MemRef<uint16_t, 2> *Result,
             MemRef<int64_t, 1> *Positions, MemRef<int64_t, 1> *Coordinates,
             MemRef<uint16_t, 1> *Values, int32_t M, int32_t K,
             MemRef<uint16_t, 2> *Xt) {
  std::lock_guard<std::mutex> L(Lock);
  std::string Error;
  WeightRequest R = csrWeight(*Positions, *Coordinates, *Values, M, K, Type,
                              samples(), Error);
  runSpmm(Entry, cached(Entry, R, Error), Result, Xt);
}

} // namespace

extern "C" void _mlir_ciface_cuda_opt_tls_spmm(
    MemRef<uint16_t, 2> *Result, MemRef<uint16_t, 1> *Values,
    MemRef<uint32_t, 1> *Bitmap, MemRef<uint32_t, 1> *Offsets,
    MemRef<uint16_t, 1> *Residual, int32_t M, int32_t K,
    int32_t MaxBlockResidual, MemRef<uint16_t, 2> *Xt) {
  spmmEncoded("cuda_opt_tls_spmm", ElemType::F16, Result, Values, Bitmap,
              Offsets, Residual, M, K, MaxBlockResidual, Xt);
}

extern "C" void _mlir_ciface_cuda_opt_tls_spmm_bf16(
    MemRef<uint16_t, 2> *Result, MemRef<uint16_t, 1> *Values,
    MemRef<uint32_t, 1> *Bitmap, MemRef<uint32_t, 1> *Offsets,
    MemRef<uint16_t, 1> *Residual, int32_t M, int32_t K,
    int32_t MaxBlockResidual, MemRef<uint16_t, 2> *Xt) {
  spmmEncoded("cuda_opt_tls_spmm_bf16", ElemType::BF16, Result, Values, Bitmap,
              Offsets, Residual, M, K, MaxBlockResidual, Xt);
}

extern "C" void
_mlir_ciface_cuda_opt_tls_spmm_dense_weight(MemRef<uint16_t, 2> *Result,
                                            MemRef<uint16_t, 2> *W,
                                            MemRef<uint16_t, 2> *Xt) {
  spmmDense("cuda_opt_tls_spmm_dense_weight", ElemType::F16, Result, W, Xt);
}

extern "C" void
_mlir_ciface_cuda_opt_tls_spmm_dense_weight_bf16(MemRef<uint16_t, 2> *Result,
                                                 MemRef<uint16_t, 2> *W,
                                                 MemRef<uint16_t, 2> *Xt) {
  spmmDense("cuda_opt_tls_spmm_dense_weight_bf16", ElemType::BF16, Result, W,
            Xt);
}

extern "C" void _mlir_ciface_cuda_opt_tls_spmm_csr_weight(
    MemRef<uint16_t, 2> *Result, MemRef<int64_t, 1> *Positions,
    MemRef<int64_t, 1> *Coordinates, MemRef<uint16_t, 1> *Values, int32_t M,
    int32_t K, MemRef<uint16_t, 2> *Xt) {
  spmmCsr("cuda_opt_tls_spmm_csr_weight", ElemType::F16, Result, Positions,
          Coordinates, Values, M, K, Xt);
}

extern "C" void _mlir_ciface_cuda_opt_tls_spmm_csr_weight_bf16(
    MemRef<uint16_t, 2> *Result, MemRef<int64_t, 1> *Positions,
    MemRef<int64_t, 1> *Coordinates, MemRef<uint16_t, 1> *Values, int32_t M,
    int32_t K, MemRef<uint16_t, 2> *Xt) {
  spmmCsr("cuda_opt_tls_spmm_csr_weight_bf16", ElemType::BF16, Result,
          Positions, Coordinates, Values, M, K, Xt);
}

extern "C" int cuda_opt_tls_forget_weight(const void *Data) {
  std::lock_guard<std::mutex> L(Lock);
  return static_cast<int>(Cache.forget(Data, [](TlsDeviceMatrix &D) {
    // Work queued on the default stream may still read the weight.
    cudaDeviceSynchronize();
    tlsFree(D);
  }));
}
