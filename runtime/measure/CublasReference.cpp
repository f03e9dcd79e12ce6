//===- CublasReference.cpp - cuBLAS GEMM timed beside the variants --------===//
//
// Part of cuda-opt's runtime.
//
//===----------------------------------------------------------------------===//
#include "CublasReference.h"

#include <dlfcn.h>

#include <cstdint>

namespace co_runtime {

namespace {
// The few cuBLAS entry points used, declared here so the worker builds
// without cuBLAS headers and runs without the library.
using Status = int;
using CreateFn = Status (*)(void **);
using DestroyFn = Status (*)(void *);
using SetStreamFn = Status (*)(void *, CUstream);
using GemmExFn = Status (*)(void *, int, int, int, int, int, const void *,
                            const void *, int, int, const void *, int, int,
                            const void *, void *, int, int, int, int);
using GemmBatchedFn = Status (*)(void *, int, int, int, int, int, const void *,
                                 const void *, int, int, long long,
                                 const void *, int, int, long long,
                                 const void *, void *, int, int, long long,
                                 int, int, int);
const int OpN = 0;
const int ComputeF32 = 68; // CUBLAS_COMPUTE_32F: fp32 accumulation, no TF32.
const int AlgoDefault = -1;

int cudaDataType(DType T) {
  switch (T) {
  case DType::F32:
    return 0; // CUDA_R_32F
  case DType::F16:
    return 2; // CUDA_R_16F
  case DType::BF16:
    return 14; // CUDA_R_16BF
  default:
    return -1;
  }
}

GemmExFn GemmEx = nullptr;
GemmBatchedFn GemmBatched = nullptr;
DestroyFn Destroy = nullptr;
CUstream RefStream = nullptr;

uint32_t next(uint32_t &S) {
  S ^= S << 13;
  S ^= S >> 17;
  S ^= S << 5;
  return S;
}
} // namespace

void GemmReference::setUp(CUstream Stream) {
  RefStream = Stream;
  if (cudaDataType(Type) < 0) {
    Error = "no cuBLAS GEMM for this dtype";
    return;
  }
  for (const char *Name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
    if ((Lib = dlopen(Name, RTLD_NOW | RTLD_LOCAL)))
      break;
  if (!Lib) {
    Error = "cuBLAS not found (dlopen libcublas.so)";
    return;
  }
  auto Create = reinterpret_cast<CreateFn>(dlsym(Lib, "cublasCreate_v2"));
  auto SetStream =
      reinterpret_cast<SetStreamFn>(dlsym(Lib, "cublasSetStream_v2"));
  Destroy = reinterpret_cast<DestroyFn>(dlsym(Lib, "cublasDestroy_v2"));
  GemmEx = reinterpret_cast<GemmExFn>(dlsym(Lib, "cublasGemmEx"));
  GemmBatched = reinterpret_cast<GemmBatchedFn>(
      dlsym(Lib, "cublasGemmStridedBatchedEx"));
  if (!Create || !SetStream || !GemmEx || !GemmBatched) {
    Error = "cuBLAS lacks cublasGemmEx/cublasGemmStridedBatchedEx";
    return;
  }
  if (Create(&Handle) != 0 || SetStream(Handle, Stream) != 0) {
    Error = "cublasCreate failed";
    return;
  }
  size_t E = dtypeSize(Type);
  size_t Sizes[3] = {size_t(Batch * M * K), size_t(Batch * K * N),
                     size_t(Batch * M * N)};
  CUdeviceptr *Ptrs[3] = {&A, &B, &C};
  uint32_t Seed = 12345;
  for (int I = 0; I < 3; ++I) {
    if (cuMemAlloc(Ptrs[I], Sizes[I] * E) != CUDA_SUCCESS) {
      Error = "cannot allocate the cuBLAS problem";
      return;
    }
    std::vector<unsigned char> Host(Sizes[I] * E);
    for (size_t J = 0; J < Sizes[I]; ++J)
      storeFromDouble(Host.data(), J, Type, next(Seed) / 2147483648.0 - 1.0);
    if (cuMemcpyHtoD(*Ptrs[I], Host.data(), Host.size()) != CUDA_SUCCESS) {
      Error = "cannot upload the cuBLAS problem";
      return;
    }
  }
  Ok = true;
}

bool GemmReference::run() {
  // Row-major C[M,N] = A[M,K] B[K,N] is column-major C^T = B^T A^T.
  const float Alpha = 1, Beta = 0;
  int T = cudaDataType(Type);
  Status S;
  if (Batch == 1)
    S = GemmEx(Handle, OpN, OpN, int(N), int(M), int(K), &Alpha,
               reinterpret_cast<void *>(B), T, int(N),
               reinterpret_cast<void *>(A), T, int(K), &Beta,
               reinterpret_cast<void *>(C), T, int(N), ComputeF32, AlgoDefault);
  else
    S = GemmBatched(Handle, OpN, OpN, int(N), int(M), int(K), &Alpha,
                    reinterpret_cast<void *>(B), T, int(N), K * N,
                    reinterpret_cast<void *>(A), T, int(K), M * K, &Beta,
                    reinterpret_cast<void *>(C), T, int(N), M * N, int(Batch),
                    ComputeF32, AlgoDefault);
  if (S != 0) {
    Ok = false;
    Error = "cuBLAS GEMM returned status " + std::to_string(S);
  }
  return Ok;
}

GemmReference::~GemmReference() {
  if (Handle && Destroy)
    Destroy(Handle);
  for (CUdeviceptr P : {A, B, C})
    if (P)
      cuMemFree(P);
}

} // namespace co_runtime
