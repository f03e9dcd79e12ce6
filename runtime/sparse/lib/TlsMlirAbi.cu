//===- TlsMlirAbi.cu - The host function the MLIR lowering calls ----------===//
//
// `cuda-opt --lower-sparse-matmul` turns a linalg.matmul with a sparse weight
// into a call of @cuda_opt_tls_spmm (docs/sparse-lowering.md, "Runtime ABI").
// Bufferised and lowered to the LLVM dialect with llvm.emit_c_interface, the
// call reaches _mlir_ciface_cuda_opt_tls_spmm below with memref descriptors
// of host memory: the weight's four arrays (constants of the module), the
// sizes, and X^T (N x K, row-major, possibly strided). The function uploads
// the weight once per address (the arrays are constants), copies X^T to the
// GPU, runs tlsSpmm with fp32 accumulation, and returns Y^T (N x M,
// row-major) in a new malloc'ed buffer. There is no error channel in this
// ABI: a failure prints why and aborts, as MLIR's own runtime helpers do.
//
// Part of the cudaopt_spmm library (runtime/sparse/CMakeLists.txt, nvcc,
// sm_90a); see docs/sparse-lowering.md.
//
//===----------------------------------------------------------------------===//
#include "MlirMemRef.h"
#include "TlsLayout.h"
#include "TlsSpmm.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace {

[[noreturn]] void die(const char *What, const char *Detail) {
  std::fprintf(stderr, "cuda_opt_tls_spmm: %s%s%s\n", What, Detail ? ": " : "",
               Detail ? Detail : "");
  std::abort();
}

void check(cudaError_t E, const char *What) {
  if (E != cudaSuccess)
    die(What, cudaGetErrorString(E));
}

/// The elements of a 1-D memref, contiguous or not.
template <typename T> std::vector<T> elements(const MemRef<T, 1> &M) {
  std::vector<T> Out(static_cast<size_t>(M.Sizes[0]));
  for (int64_t I = 0; I < M.Sizes[0]; ++I)
    Out[I] = M.Aligned[M.Offset + I * M.Strides[0]];
  return Out;
}

/// Weights already on the device, by the address of their values array.
struct Uploaded {
  cudaopt::sparse::TlsDeviceMatrix Device;
};
std::mutex CacheLock;
std::map<const void *, Uploaded> Cache;

/// Device scratch reused across calls: X, Y and the split-K workspace.
struct Scratch {
  void *Ptr = nullptr;
  size_t Bytes = 0;
  void *get(size_t Need, bool Zero) {
    if (Need <= Bytes)
      return Ptr;
    if (Ptr)
      cudaFree(Ptr);
    check(cudaMalloc(&Ptr, Need), "cudaMalloc");
    Bytes = Need;
    if (Zero)
      check(cudaMemset(Ptr, 0, Need), "cudaMemset");
    return Ptr;
  }
};
Scratch XBuf, YBuf, Workspace;

} // namespace

extern "C" void _mlir_ciface_cuda_opt_tls_spmm(
    MemRef<uint16_t, 2> *Result, MemRef<uint16_t, 1> *Values,
    MemRef<uint32_t, 1> *Bitmap, MemRef<uint32_t, 1> *Offsets,
    MemRef<uint16_t, 1> *Residual, int32_t M, int32_t K,
    int32_t MaxBlockResidual, MemRef<uint16_t, 2> *Xt) {
  using namespace cudaopt::sparse;
  std::lock_guard<std::mutex> L(CacheLock);
  if (M <= 0 || K <= 0 || K % 8 != 0)
    die("bad sizes", "M and K must be positive and K a multiple of 8");
  if (Xt->Sizes[1] != K)
    die("X^T has the wrong number of columns", nullptr);
  const int N = static_cast<int>(Xt->Sizes[0]);

  const void *Key = Values->Aligned + Values->Offset;
  auto It = Cache.find(Key);
  if (It == Cache.end()) {
    TlsMatrix W;
    W.Rows = static_cast<uint32_t>(M);
    W.Cols = static_cast<uint32_t>(K);
    W.Type = ElemType::F16;
    W.Values = elements(*Values);
    W.Bitmap = elements(*Bitmap);
    W.ResidualOffsets = elements(*Offsets);
    W.Residual = elements(*Residual);
    if (W.Values.size() != W.numBlocks() * BlockSlots ||
        W.ResidualOffsets.size() != W.numBlocks() + 1)
      die("the weight arrays do not match M x K", nullptr);
    Uploaded U;
    check(tlsUpload(W, U.Device), "tlsUpload");
    U.Device.MaxBlockResidual = static_cast<uint32_t>(MaxBlockResidual);
    It = Cache.emplace(Key, U).first;
  }
  const TlsDeviceMatrix &D = It->second.Device;

  // X^T row n is X's column n: pack it with Ldx = K (16-byte rows).
  std::vector<uint16_t> X(static_cast<size_t>(N) * K);
  for (int64_t Nn = 0; Nn < N; ++Nn)
    for (int64_t Kk = 0; Kk < K; ++Kk)
      X[Nn * K + Kk] = Xt->Aligned[Xt->Offset + Nn * Xt->Strides[0] +
                                   Kk * Xt->Strides[1]];
  const size_t XBytes = X.size() * sizeof(uint16_t);
  const size_t YBytes = static_cast<size_t>(N) * M * sizeof(uint16_t);
  void *DX = XBuf.get(XBytes, false), *DY = YBuf.get(YBytes, false);
  size_t WsBytes = tlsSpmmWorkspaceBytes(D, N);
  void *Ws = WsBytes ? Workspace.get(WsBytes, /*Zero=*/true) : nullptr;
  check(cudaMemcpy(DX, X.data(), XBytes, cudaMemcpyHostToDevice), "upload X");
  check(tlsSpmm(D, static_cast<const __half *>(DX), K, N,
                static_cast<__half *>(DY), M, Ws, WsBytes, nullptr),
        "tlsSpmm");
  uint16_t *Y = static_cast<uint16_t *>(std::malloc(YBytes ? YBytes : 1));
  if (!Y)
    die("out of host memory", nullptr);
  check(cudaMemcpy(Y, DY, YBytes, cudaMemcpyDeviceToHost), "download Y");

  Result->Allocated = Y;
  Result->Aligned = Y;
  Result->Offset = 0;
  Result->Sizes[0] = N;
  Result->Sizes[1] = M;
  Result->Strides[0] = M;
  Result->Strides[1] = 1;
}
