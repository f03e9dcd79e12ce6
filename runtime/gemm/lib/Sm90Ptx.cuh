//===- Sm90Ptx.cuh - Hopper PTX helpers for the GEMM kernels ---*- CUDA -*-===//
//
// Thin wrappers over the sm_90a instructions the warp-specialised GEMM uses:
// mbarriers, TMA tile loads, wgmma fences/commits/waits, setmaxnreg and the
// shared-memory matrix descriptor. Nothing here allocates or decides; the
// kernel in Sm90Gemm.cuh owns the protocol.
//
//===----------------------------------------------------------------------===//

#ifndef CUDAOPT_GEMM_SM90PTX_CUH
#define CUDAOPT_GEMM_SM90PTX_CUH

#include <cstdint>
#include <cuda.h>

namespace cudaopt::gemm {

__device__ __forceinline__ uint32_t smemAddr(const void *Ptr) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(Ptr));
}

__device__ __forceinline__ void mbarInit(uint64_t *Bar, unsigned Count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smemAddr(Bar)),
               "r"(Count));
}

/// Makes the mbarrier initialisation visible to the async (TMA) proxy.
__device__ __forceinline__ void fenceBarrierInit() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

__device__ __forceinline__ void mbarArriveExpectTx(uint64_t *Bar,
                                                   unsigned Bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
                   smemAddr(Bar)),
               "r"(Bytes)
               : "memory");
}

__device__ __forceinline__ void mbarArrive(uint64_t *Bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smemAddr(Bar))
               : "memory");
}

/// Spins until the phase with parity \p Parity of \p Bar has completed.
__device__ __forceinline__ void mbarWait(uint64_t *Bar, unsigned Parity) {
  asm volatile("{\n"
               ".reg .pred done;\n"
               "WAIT_%=:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT_%=;\n"
               "}\n" ::"r"(smemAddr(Bar)),
               "r"(Parity)
               : "memory");
}

/// 2-D TMA tile load of the box at (\p C0 inner, \p C1 outer) into \p Dst,
/// completing on \p Bar.
__device__ __forceinline__ void tmaLoad2d(void *Dst, const CUtensorMap *Map,
                                          int C0, int C1, uint64_t *Bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile"
      ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          smemAddr(Dst)),
      "l"(reinterpret_cast<uint64_t>(Map)), "r"(C0), "r"(C1), "r"(smemAddr(Bar))
      : "memory");
}

/// 2-D TMA tile load multicast to the CTAs of this cluster named in \p Mask:
/// the box lands at \p Dst in each of them and completes on the mbarrier at
/// \p Bar's offset in each of them.
__device__ __forceinline__ void
tmaLoad2dMulticast(void *Dst, const CUtensorMap *Map, int C0, int C1,
                   uint64_t *Bar, uint16_t Mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
               ".mbarrier::complete_tx::bytes.multicast::cluster"
               " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(smemAddr(Dst)),
               "l"(reinterpret_cast<uint64_t>(Map)), "r"(C0), "r"(C1),
               "r"(smemAddr(Bar)), "h"(Mask)
               : "memory");
}

/// Programmatic dependent launch: lets the next grid in the stream start
/// once every CTA of this one has executed it (or exited).
__device__ __forceinline__ void gridDepLaunchDependents() {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}

/// Waits until the grids this one depends on (programmatically) have
/// completed and their memory is visible; a no-op without such a launch.
__device__ __forceinline__ void gridDepWait() {
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
}

/// This CTA's rank in its cluster (0 without a cluster launch).
__device__ __forceinline__ unsigned clusterCtaRank() {
  unsigned R;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(R));
  return R;
}

/// Every thread of every CTA of the cluster: release this thread's prior
/// writes (shared memory included) at cluster scope, then wait for all.
__device__ __forceinline__ void clusterSync() {
  asm volatile("barrier.cluster.arrive.release;\n"
               "barrier.cluster.wait.acquire;\n" ::
                   : "memory");
}

/// The shared::cluster address of \p Ptr's counterpart in CTA \p Rank.
__device__ __forceinline__ uint32_t mapaShared(const void *Ptr, unsigned Rank) {
  uint32_t R;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
               : "=r"(R)
               : "r"(smemAddr(Ptr)), "r"(Rank));
  return R;
}

/// Arrives on the mbarrier at \p Bar's offset in CTA \p Rank of the cluster
/// (this CTA included). Default (.release.cta) semantics: what it orders is
/// wgmma reads already retired by wgmma.wait_group, and an explicit
/// .release.cluster costs a GPU-wide MEMBAR per arrive.
__device__ __forceinline__ void mbarArriveCluster(uint64_t *Bar,
                                                  unsigned Rank) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(
                   mapaShared(Bar, Rank))
               : "memory");
}

/// 16-byte load from a shared::cluster address (distributed shared memory).
__device__ __forceinline__ float4 ldSharedCluster4(uint32_t Addr) {
  float4 V;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(V.x), "=f"(V.y), "=f"(V.z), "=f"(V.w)
               : "r"(Addr)
               : "memory");
  return V;
}

/// 2-D TMA tile store of the box at (\p C0 inner, \p C1 outer) from \p Src;
/// completes as a bulk group of the issuing thread.
__device__ __forceinline__ void tmaStore2d(const CUtensorMap *Map,
                                           const void *Src, int C0, int C1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"
      " [%0, {%2, %3}], [%1];\n" ::"l"(reinterpret_cast<uint64_t>(Map)),
      "r"(smemAddr(Src)), "r"(C0), "r"(C1)
      : "memory");
}

__device__ __forceinline__ void bulkCommit() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

/// Waits until at most \p Pending bulk groups still read shared memory.
template <int Pending> __device__ __forceinline__ void bulkWaitRead() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(Pending) : "memory");
}

template <int Pending> __device__ __forceinline__ void bulkWait() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(Pending) : "memory");
}

/// Orders this thread's generic-proxy shared-memory writes before later
/// async-proxy (TMA) reads.
__device__ __forceinline__ void fenceProxyAsync() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

__device__ __forceinline__ void prefetchTensorMap(const CUtensorMap *Map) {
  asm volatile(
      "prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(Map))
      : "memory");
}

__device__ __forceinline__ void wgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void wgmmaCommit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

template <int Pending> __device__ __forceinline__ void wgmmaWait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
}

/// Keeps the compiler from moving accumulator accesses across a wgmma wait.
__device__ __forceinline__ void fenceRegister(float &R) {
  asm volatile("" : "+f"(R)::"memory");
}

template <int Regs> __device__ __forceinline__ void setMaxNRegInc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Regs));
}

template <int Regs> __device__ __forceinline__ void setMaxNRegDec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Regs));
}

__device__ __forceinline__ void namedBarrierSync(int Id, int Threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(Id), "r"(Threads) : "memory");
}

/// Counts this warp's threads into named barrier \p Id without waiting
/// (the other side of a producer/consumer hand-off that waits with
/// namedBarrierSync on the same id and count).
__device__ __forceinline__ void namedBarrierArrive(int Id, int Threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(Id), "r"(Threads) : "memory");
}

/// wgmma shared-memory descriptor for a 128-byte-swizzled operand.
/// \p Lbo and \p Sbo are byte offsets (see the PTX ISA, "Matrix Descriptor
/// Format"); the tile base must be 1024-byte aligned so the base offset is 0.
__device__ __forceinline__ uint64_t makeSmemDesc(uint32_t Addr, uint32_t Lbo,
                                                 uint32_t Sbo) {
  uint64_t Desc = 0;
  Desc |= static_cast<uint64_t>((Addr & 0x3FFFF) >> 4);
  Desc |= static_cast<uint64_t>((Lbo & 0x3FFFF) >> 4) << 16;
  Desc |= static_cast<uint64_t>((Sbo & 0x3FFFF) >> 4) << 32;
  Desc |= static_cast<uint64_t>(1) << 62; // 128B swizzle
  return Desc;
}

} // namespace cudaopt::gemm

#endif // CUDAOPT_GEMM_SM90PTX_CUH
