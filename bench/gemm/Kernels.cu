//===- Kernels.cu - input generation, reference and comparison ------------===//
//
// Inputs are counter-based random numbers (a splitmix64 hash of the index
// and the seed), so a set is reproducible without host copies. The
// reference accumulates in fp32 over the listed rows of C only, so large
// shapes are checked on a sample of rows while every element of C is still
// checked for having been written (C is poisoned with NaN before the run).
//
//===----------------------------------------------------------------------===//

#include "Bench.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>

namespace bench {
namespace {

__device__ __forceinline__ unsigned long long mix(unsigned long long X) {
  X += 0x9E3779B97F4A7C15ull;
  X = (X ^ (X >> 30)) * 0xBF58476D1CE4E5B9ull;
  X = (X ^ (X >> 27)) * 0x94D049BB133111EBull;
  return X ^ (X >> 31);
}

__device__ __forceinline__ float unit(unsigned long long Bits) {
  return (static_cast<float>(Bits >> 40) + 0.5f) * (1.0f / 16777216.0f);
}

template <typename T>
__global__ void fillNormalKernel(T *Ptr, size_t Count, unsigned long long Seed,
                                 float Mean, float Scale) {
  for (size_t I = blockIdx.x * size_t(blockDim.x) + threadIdx.x; I < Count;
       I += size_t(gridDim.x) * blockDim.x) {
    unsigned long long H = mix(Seed * 0x100000001B3ull ^ I);
    float U1 = unit(H), U2 = unit(mix(H));
    float Z = sqrtf(-2.0f * logf(U1)) * cospif(2.0f * U2);
    Ptr[I] = static_cast<T>(Mean + Scale * Z);
  }
}

template <typename T>
__global__ void fillUniformKernel(T *Ptr, size_t Count, unsigned long long Seed,
                                  float Lo, float Hi) {
  for (size_t I = blockIdx.x * size_t(blockDim.x) + threadIdx.x; I < Count;
       I += size_t(gridDim.x) * blockDim.x)
    Ptr[I] =
        static_cast<T>(Lo + (Hi - Lo) * unit(mix(Seed * 0x100000001B3ull ^ I)));
}

template <typename T>
__global__ void fillBinaryKernel(T *Ptr, size_t Count,
                                 unsigned long long Seed) {
  for (size_t I = blockIdx.x * size_t(blockDim.x) + threadIdx.x; I < Count;
       I += size_t(gridDim.x) * blockDim.x)
    Ptr[I] = static_cast<T>(
        static_cast<float>(mix(Seed * 0x100000001B3ull ^ I) >> 63));
}

template <typename T>
__global__ void referenceKernel(int N, int K, const T *A, long long Lda,
                                const T *B, long long Ldb, bool BRow,
                                const int *Rows, float *Out) {
  int Col = blockIdx.x * blockDim.x + threadIdx.x;
  int Row = Rows[blockIdx.y];
  if (Col >= N)
    return;
  const T *Ar = A + Row * Lda;
  float Acc = 0.0f;
  if (BRow) {
    for (int K1 = 0; K1 < K; ++K1)
      Acc += static_cast<float>(Ar[K1]) * static_cast<float>(B[K1 * Ldb + Col]);
  } else {
    const T *Bc = B + Col * Ldb;
    for (int K1 = 0; K1 < K; ++K1)
      Acc += static_cast<float>(Ar[K1]) * static_cast<float>(Bc[K1]);
  }
  Out[size_t(blockIdx.y) * N + Col] = Acc;
}

struct DevCompare {
  double ErrSq, RefSq;
  unsigned long long NonFinite, GuardBad;
};

template <typename T>
__global__ void compareKernel(int N, const T *C, long long Ldc, const int *Rows,
                              const float *Ref, float Alpha, float Beta,
                              const T *Cold, DevCompare *Res) {
  __shared__ double SErr[256], SRef[256];
  int Col = blockIdx.x * blockDim.x + threadIdx.x;
  double E = 0, R = 0;
  if (Col < N) {
    double Want = double(Alpha) * Ref[size_t(blockIdx.y) * N + Col];
    if (Cold)
      Want +=
          double(Beta) * static_cast<float>(Cold[Rows[blockIdx.y] * Ldc + Col]);
    double Got = static_cast<float>(C[Rows[blockIdx.y] * Ldc + Col]);
    E = (Got - Want) * (Got - Want);
    R = Want * Want;
    if (!isfinite(Got))
      E = INFINITY;
  }
  SErr[threadIdx.x] = E;
  SRef[threadIdx.x] = R;
  __syncthreads();
  for (int S = blockDim.x / 2; S > 0; S /= 2) {
    if (threadIdx.x < S) {
      SErr[threadIdx.x] += SErr[threadIdx.x + S];
      SRef[threadIdx.x] += SRef[threadIdx.x + S];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&Res->ErrSq, SErr[0]);
    atomicAdd(&Res->RefSq, SRef[0]);
  }
}

template <typename T>
__global__ void nonFiniteKernel(int M, int N, const T *C, long long Ldc,
                                DevCompare *Res) {
  unsigned long long Bad = 0;
  size_t Total = size_t(M) * N;
  for (size_t I = blockIdx.x * size_t(blockDim.x) + threadIdx.x; I < Total;
       I += size_t(gridDim.x) * blockDim.x) {
    float V = static_cast<float>(C[(I / N) * Ldc + I % N]);
    Bad += !isfinite(V);
  }
  if (Bad)
    atomicAdd(&Res->NonFinite, Bad);
}

__global__ void guardKernel(const unsigned char *Lo, const unsigned char *Hi,
                            size_t Bytes, DevCompare *Res) {
  unsigned long long Bad = 0;
  for (size_t I = blockIdx.x * size_t(blockDim.x) + threadIdx.x; I < Bytes;
       I += size_t(gridDim.x) * blockDim.x)
    Bad += (Lo[I] != 0xA5) + (Hi[I] != 0xA5);
  if (Bad)
    atomicAdd(&Res->GuardBad, Bad);
}

} // namespace

double CompareResult::relErr() const {
  if (NonFinite || GuardBad)
    return INFINITY;
  return RefSq > 0 ? std::sqrt(ErrSq / RefSq) : std::sqrt(ErrSq);
}

void fillNormal(void *Ptr, size_t Count, bool Bf16, unsigned long long Seed,
                float Mean, float Scale, cudaStream_t S) {
  if (Bf16)
    fillNormalKernel<<<1024, 256, 0, S>>>(static_cast<__nv_bfloat16 *>(Ptr),
                                          Count, Seed, Mean, Scale);
  else
    fillNormalKernel<<<1024, 256, 0, S>>>(static_cast<__half *>(Ptr), Count,
                                          Seed, Mean, Scale);
  BENCH_CHECK(cudaGetLastError());
}

void fillUniformF32(float *Ptr, size_t Count, unsigned long long Seed,
                    float Lo, float Hi, cudaStream_t S) {
  fillUniformKernel<<<1024, 256, 0, S>>>(Ptr, Count, Seed, Lo, Hi);
  BENCH_CHECK(cudaGetLastError());
}

void fillUniform(void *Ptr, size_t Count, bool Bf16, unsigned long long Seed,
                 float Lo, float Hi, cudaStream_t S) {
  if (Bf16)
    fillUniformKernel<<<1024, 256, 0, S>>>(static_cast<__nv_bfloat16 *>(Ptr),
                                           Count, Seed, Lo, Hi);
  else
    fillUniformKernel<<<1024, 256, 0, S>>>(static_cast<__half *>(Ptr), Count,
                                           Seed, Lo, Hi);
  BENCH_CHECK(cudaGetLastError());
}

void fillBinary(void *Ptr, size_t Count, bool Bf16, unsigned long long Seed,
                cudaStream_t S) {
  if (Bf16)
    fillBinaryKernel<<<1024, 256, 0, S>>>(static_cast<__nv_bfloat16 *>(Ptr),
                                          Count, Seed);
  else
    fillBinaryKernel<<<1024, 256, 0, S>>>(static_cast<__half *>(Ptr), Count,
                                          Seed);
  BENCH_CHECK(cudaGetLastError());
}

void referenceRows(const cudaoptGemmProblem &P, const int *Rows, int NumRows,
                   float *Out, cudaStream_t S) {
  dim3 Grid((P.N + 255) / 256, NumRows);
  bool Row = P.LayoutB == CUDAOPT_GEMM_B_ROW;
  if (P.Type == CUDAOPT_GEMM_BF16)
    referenceKernel<<<Grid, 256, 0, S>>>(
        P.N, P.K, static_cast<const __nv_bfloat16 *>(P.A), P.Lda,
        static_cast<const __nv_bfloat16 *>(P.B), P.Ldb, Row, Rows, Out);
  else
    referenceKernel<<<Grid, 256, 0, S>>>(
        P.N, P.K, static_cast<const __half *>(P.A), P.Lda,
        static_cast<const __half *>(P.B), P.Ldb, Row, Rows, Out);
  BENCH_CHECK(cudaGetLastError());
}

CompareResult compareRows(const cudaoptGemmProblem &P, const int *Rows,
                          int NumRows, const float *Ref, const void *Cold,
                          const void *GuardLo, const void *GuardHi,
                          size_t GuardBytes, cudaStream_t S) {
  static DevCompare *Res = nullptr;
  if (!Res)
    BENCH_CHECK(cudaMalloc(&Res, sizeof(DevCompare)));
  BENCH_CHECK(cudaMemsetAsync(Res, 0, sizeof(DevCompare), S));
  dim3 Grid((P.N + 255) / 256, NumRows);
  if (P.Type == CUDAOPT_GEMM_BF16) {
    auto *C = static_cast<const __nv_bfloat16 *>(P.C);
    compareKernel<<<Grid, 256, 0, S>>>(
        P.N, C, P.Ldc, Rows, Ref, P.Alpha, P.Beta,
        static_cast<const __nv_bfloat16 *>(Cold), Res);
    nonFiniteKernel<<<1024, 256, 0, S>>>(P.M, P.N, C, P.Ldc, Res);
  } else {
    auto *C = static_cast<const __half *>(P.C);
    compareKernel<<<Grid, 256, 0, S>>>(P.N, C, P.Ldc, Rows, Ref, P.Alpha,
                                       P.Beta,
                                       static_cast<const __half *>(Cold), Res);
    nonFiniteKernel<<<1024, 256, 0, S>>>(P.M, P.N, C, P.Ldc, Res);
  }
  if (GuardBytes)
    guardKernel<<<64, 256, 0, S>>>(static_cast<const unsigned char *>(GuardLo),
                                   static_cast<const unsigned char *>(GuardHi),
                                   GuardBytes, Res);
  BENCH_CHECK(cudaGetLastError());
  DevCompare Host;
  BENCH_CHECK(
      cudaMemcpyAsync(&Host, Res, sizeof(Host), cudaMemcpyDeviceToHost, S));
  BENCH_CHECK(cudaStreamSynchronize(S));
  CompareResult R;
  R.ErrSq = Host.ErrSq;
  R.RefSq = Host.RefSq;
  R.NonFinite = Host.NonFinite;
  R.GuardBad = Host.GuardBad;
  return R;
}

} // namespace bench
