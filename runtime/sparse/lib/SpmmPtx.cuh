//===- SpmmPtx.cuh - PTX helpers of the SpMM kernels -----------*- CUDA -*-===//
//
// Thin wrappers over the instructions the SpMM kernels use: cp.async,
// mbarriers (sm_80 fallbacks), vector reductions, ldmatrix, 16-bit shared
// loads and stores, mma.sp. Nothing here decides; the kernels own the
// protocol. Part of TlsSpmm.cu's single translation unit (see there).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAOPT_SPARSE_SPMMPTX_CUH
#define CUDAOPT_SPARSE_SPMMPTX_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>

namespace cudaopt {
namespace sparse {
namespace {

/// Phase markers for bench/spmm/sass-count.py: with TLS_SASS_MARKERS
/// defined (only in that script's build) each becomes one NANOSLEEP with
/// the phase number, so the per-item loop's SASS can be cut into phases;
/// otherwise nothing.
#ifdef TLS_SASS_MARKERS
#define TLS_SASS_MARK(N) asm volatile("nanosleep.u32 " #N ";\n" ::: "memory")
#else
#define TLS_SASS_MARK(N)
#endif

__device__ __forceinline__ uint32_t smemAddr(const void *P) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(P));
}

/// 16-byte cp.async; SrcBytes < 16 zero-fills the rest.
__device__ __forceinline__ void cpAsync16(uint32_t Dst, const void *Src,
                                          int SrcBytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(Dst),
               "l"(Src), "r"(SrcBytes)
               : "memory");
}
__device__ __forceinline__ void cpAsync16(uint32_t Dst, const void *Src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(Dst),
               "l"(Src)
               : "memory");
}

// mbarriers (shared::cta). The full barrier of a stage expects one arrival
// per thread, made by cp.async.mbarrier.arrive.noinc once the thread's
// copies have landed; the empty barrier one arrival per thread once it has
// read the stage.
// (sm_80 has the same barriers but no try_wait: it polls with test_wait.)
__device__ __forceinline__ void mbarInit(uint32_t Bar, unsigned Count) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(Bar), "r"(Count)
               : "memory");
}
__device__ __forceinline__ void mbarArriveCpAsync(uint32_t Bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(Bar)
               : "memory");
}
__device__ __forceinline__ void mbarArrive(uint32_t Bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(Bar)
               : "memory");
#else
  asm volatile("{\n .reg .b64 st;\n mbarrier.arrive.shared.b64 st, [%0];\n}\n" ::"r"(
                   Bar)
               : "memory");
#endif
}
__device__ __forceinline__ void mbarWait(uint32_t Bar, uint32_t Parity) {
#if __CUDA_ARCH__ >= 900
  asm volatile("{\n"
               " .reg .pred p;\n"
               "TLS_WAIT:\n"
               " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
               " @!p bra TLS_WAIT;\n"
               "}\n" ::"r"(Bar),
               "r"(Parity)
               : "memory");
#else
  asm volatile("{\n"
               " .reg .pred p;\n"
               "TLS_WAIT:\n"
               " mbarrier.test_wait.parity.shared.b64 p, [%0], %1;\n"
               " @!p bra TLS_WAIT;\n"
               "}\n" ::"r"(Bar),
               "r"(Parity)
               : "memory");
#endif
}

// The bulk-copy (TMA) pipeline, sm_90. A stage's full barrier counts the
// producer's arrivals plus the bytes its bulk copies deliver (the
// transaction count may run below zero while copies land before their
// expect_tx; the phase completes only when every arrival is in and the
// count is back at zero).
__device__ __forceinline__ void mbarArriveExpectTx(uint32_t Bar,
                                                   uint32_t Bytes) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(Bar),
      "r"(Bytes)
      : "memory");
#else
  __trap();
#endif
}
/// One bulk copy global -> shared (16-byte aligned ends, a multiple of 16
/// bytes) that completes Bytes transactions on Bar.
__device__ __forceinline__ void bulkCopy(uint32_t Dst, const void *Src,
                                         uint32_t Bytes, uint32_t Bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
               "bytes [%0], [%1], %2, [%3];\n" ::"r"(Dst),
               "l"(Src), "r"(Bytes), "r"(Bar)
               : "memory");
#else
  __trap();
#endif
}
/// Orders this thread's generic-proxy shared-memory accesses before later
/// async-proxy (bulk copy) writes to the same buffers.
__device__ __forceinline__ void fenceProxyAsync() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

/// Adds two floats at an 8-byte aligned address (a vector red on sm_90).
__device__ __forceinline__ void redAdd2(float *P, float A, float B) {
#if __CUDA_ARCH__ >= 900
  atomicAdd(reinterpret_cast<float2 *>(P), make_float2(A, B));
#else
  atomicAdd(P, A);
  atomicAdd(P + 1, B);
#endif
}

__device__ __forceinline__ void ldmatrixX4At(uint32_t (&B)[4], uint32_t A) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
      : "=r"(B[0]), "=r"(B[1]), "=r"(B[2]), "=r"(B[3])
      : "r"(A));
}
__device__ __forceinline__ void ldmatrixX4(uint32_t (&B)[4], const void *P) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
      : "=r"(B[0]), "=r"(B[1]), "=r"(B[2]), "=r"(B[3])
      : "r"(smemAddr(P)));
}

/// 16-byte shared-memory load and store at a shared-memory address.
__device__ __forceinline__ uint4 lds128(uint32_t A) {
  uint4 V;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(V.x), "=r"(V.y), "=r"(V.z), "=r"(V.w)
               : "r"(A)
               : "memory");
  return V;
}
__device__ __forceinline__ uint2 lds64(uint32_t A) {
  uint2 V;
  asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];\n"
               : "=r"(V.x), "=r"(V.y)
               : "r"(A)
               : "memory");
  return V;
}
__device__ __forceinline__ void sts128Zero(uint32_t A) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};\n" ::"r"(A), "r"(0)
               : "memory");
}

/// 16-bit shared-memory load into (and store from) a 32-bit register: no
/// 16-bit register moves in the gather loop.
__device__ __forceinline__ uint32_t lds16(uint32_t A) {
  uint32_t V;
  asm volatile("ld.shared.u16 %0, [%1];\n" : "=r"(V) : "r"(A) : "memory");
  return V;
}
/// Stores the low 16 bits of V at A when P is nonzero (a predicated STS).
__device__ __forceinline__ void sts16If(uint32_t A, uint32_t V, uint32_t P) {
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n"
               " @p st.shared.u16 [%0], %1;\n}\n" ::"r"(A),
               "r"(V), "r"(P)
               : "memory");
}
__device__ __forceinline__ void sts16(uint32_t A, uint32_t V) {
  asm volatile("st.shared.u16 [%0], %1;\n" ::"r"(A), "r"(V) : "memory");
}

/// V plus the value of V in lane - O when that lane exists (one step of an
/// inclusive warp scan): the shuffle's own in-range predicate guards the
/// add, so a step is one SHFL and one predicated IADD.
__device__ __forceinline__ int scanStepUp(int V, int O) {
  int R;
  asm("{\n .reg .pred p;\n .reg .b32 t;\n"
      " shfl.sync.up.b32 t|p, %1, %2, 0, -1;\n"
      " mov.b32 %0, %1;\n"
      " @p add.s32 %0, %1, t;\n}\n"
      : "=r"(R)
      : "r"(V), "r"(O));
  return R;
}

/// X of lane + 2 (lanes 30, 31: their own), all lanes converged. Volatile,
/// so that the compiler neither drops nor moves it into a branch.
__device__ __forceinline__ uint32_t shflDown2(uint32_t X) {
  uint32_t R;
  asm volatile("shfl.sync.down.b32 %0, %1, 2, 31, -1;" : "=r"(R) : "r"(X));
  return R;
}

/// 1 << S for S in 0..31, 0 for S >= 32 (PTX clamps the shift amount; the
/// C++ operator would be undefined for the -1 that FLO gives for zero).
__device__ __forceinline__ uint32_t bitAt(int S) {
  uint32_t R;
  asm("shl.b32 %0, 1, %1;" : "=r"(R) : "r"(S));
  return R;
}

/// One mma.sp m16n8k32 with f32 accumulation; A holds the fragment as
/// stored, {a0, a1, a2, a3}.
template <bool BF16>
__device__ __forceinline__ void mmaSp(float (&C)[4], const uint4 &A,
                                      const uint32_t (&B)[4], uint32_t Meta) {
  if constexpr (BF16)
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32."
                 "bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, "
                 "{%0, %1, %2, %3}, %12, 0x0;\n"
                 : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
                 : "r"(A.x), "r"(A.y), "r"(A.z), "r"(A.w), "r"(B[0]),
                   "r"(B[1]), "r"(B[2]), "r"(B[3]), "r"(Meta));
  else
    asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32."
                 "f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, "
                 "{%0, %1, %2, %3}, %12, 0x0;\n"
                 : "+f"(C[0]), "+f"(C[1]), "+f"(C[2]), "+f"(C[3])
                 : "r"(A.x), "r"(A.y), "r"(A.z), "r"(A.w), "r"(B[0]),
                   "r"(B[1]), "r"(B[2]), "r"(B[3]), "r"(Meta));
}

template <bool BF16> __device__ __forceinline__ uint16_t toBits(float F) {
  if constexpr (BF16)
    return __bfloat16_as_ushort(__float2bfloat16_rn(F));
  else
    return __half_as_ushort(__float2half_rn(F));
}

} // namespace
} // namespace sparse
} // namespace cudaopt

#endif // CUDAOPT_SPARSE_SPMMPTX_CUH
