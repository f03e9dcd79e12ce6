//===- TensorMap.cpp - TMA descriptors and device queries -----------------===//
//
// cuTensorMapEncodeTiled is reached through the runtime's driver entry point
// so users of the library need not link libcuda themselves.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cstdint>
#include <cstdlib>

namespace cudaopt::gemm {
namespace {

using EncodeFn = CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t,
                              void *, const cuuint64_t *, const cuuint64_t *,
                              const cuuint32_t *, const cuuint32_t *,
                              CUtensorMapInterleave, CUtensorMapSwizzle,
                              CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

EncodeFn getEncode() {
  static EncodeFn Fn = [] {
    void *Ptr = nullptr;
    cudaDriverEntryPointQueryResult Status;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &Ptr, 12000,
                                         cudaEnableDefault,
                                         &Status) != cudaSuccess ||
        Status != cudaDriverEntryPointSuccess)
      return EncodeFn(nullptr);
    return reinterpret_cast<EncodeFn>(Ptr);
  }();
  return Fn;
}

} // namespace

cudaError_t encodeTileMap(CUtensorMap *Map, const void *Base, bool Bf16,
                          long long Inner, long long Outer, long long Ld,
                          int BoxInner, int BoxOuter) {
  EncodeFn Encode = getEncode();
  if (!Encode)
    return cudaErrorNotSupported;
  cuuint64_t Dims[2] = {static_cast<cuuint64_t>(Inner),
                        static_cast<cuuint64_t>(Outer)};
  cuuint64_t Strides[1] = {static_cast<cuuint64_t>(Ld) * 2};
  cuuint32_t Box[2] = {static_cast<cuuint32_t>(BoxInner),
                       static_cast<cuuint32_t>(BoxOuter)};
  cuuint32_t ElemStrides[2] = {1, 1};
  CUresult R = Encode(
      Map,
      Bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
      2, const_cast<void *>(Base), Dims, Strides, Box, ElemStrides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return R == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

bool pdlEnabled() {
  static const bool On = [] {
    const char *V = std::getenv("CUDAOPT_GEMM_PDL");
    return !(V && V[0] == '0');
  }();
  return On;
}

cudaError_t multiProcessorCount(int *Count) {
  static int Cached[64] = {};
  int Dev = 0;
  cudaError_t Err = cudaGetDevice(&Dev);
  if (Err != cudaSuccess)
    return Err;
  if (Dev < 64 && Cached[Dev] > 0) {
    *Count = Cached[Dev];
    return cudaSuccess;
  }
  Err = cudaDeviceGetAttribute(Count, cudaDevAttrMultiProcessorCount, Dev);
  if (Err == cudaSuccess && Dev < 64)
    Cached[Dev] = *Count;
  return Err;
}

static bool isHopper() {
  static int Cached[64] = {};
  int Dev = 0;
  if (cudaGetDevice(&Dev) != cudaSuccess || Dev >= 64)
    return false;
  if (Cached[Dev] == 0) {
    int Major = 0, Minor = 0;
    cudaDeviceGetAttribute(&Major, cudaDevAttrComputeCapabilityMajor, Dev);
    cudaDeviceGetAttribute(&Minor, cudaDevAttrComputeCapabilityMinor, Dev);
    Cached[Dev] = (Major == 9 && Minor == 0) ? 1 : 2;
  }
  return Cached[Dev] == 1;
}

bool sm90Supports(const cudaoptGemmProblem &P) {
  auto Aligned = [](const void *Ptr, uintptr_t Bytes) {
    return reinterpret_cast<uintptr_t>(Ptr) % Bytes == 0;
  };
  if (P.M < 1 || P.N < 1 || P.K < 1 || P.Type == CUDAOPT_GEMM_F32)
    return false;
  if (!Aligned(P.A, 16) || !Aligned(P.B, 16) || !Aligned(P.C, 4))
    return false;
  // TMA: row strides a multiple of 16 bytes; paired 4-byte output stores.
  if (P.Lda % 8 != 0 || P.Ldb % 8 != 0 || P.Ldc % 2 != 0)
    return false;
  if (P.Lda < P.K || P.Ldc < P.N)
    return false;
  if (P.Ldb < (P.LayoutB == CUDAOPT_GEMM_B_ROW ? P.N : P.K))
    return false;
  return isHopper();
}

size_t splitWorkspaceBytes(int M, int N, int /*Splits*/) {
  return SplitCounterBytes + static_cast<size_t>(M) * N * 4;
}

} // namespace cudaopt::gemm
