//===- TlsSpmm.h - SpMM with a three-layer sparse weight (CUDA) -----------===//
//
// Y = W * X with W (M x K) in the three-layer format, X (K x N) and Y (M x N)
// dense fp16, fp32 accumulation. X and Y are column-major: column n of X is
// X + n * Ldx (the K activations of token n), column n of Y is Y + n * Ldy.
// In LLM terms X is the [N, K] activation matrix and Y the [N, M] output.
//
// One persistent stream-K kernel: mma.sp (m16n8k32, f16 or bf16 in, f32
// accumulate) for layer 1, a second mma.sp for the slot-filled layer 2 and
// the residual layer 3 whose values the CUDA cores of each lane gather on
// chip; cp.async copies completing on mbarriers, several stages deep; split
// output tiles reduced in fp32 in the workspace by the last contributor.
// Needs the .tls format version 2 layout (lib/TlsLayout.h). Library:
// cudaopt_spmm (runtime/sparse/CMakeLists.txt), sm_90a.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_OPT_RUNTIME_SPARSE_TLSSPMM_H
#define CUDA_OPT_RUNTIME_SPARSE_TLSSPMM_H

#include "TlsFormat.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <vector>

namespace cudaopt {
namespace sparse {

/// A TlsMatrix in device memory (tlsUpload allocates it, tlsFree frees it).
struct TlsDeviceMatrix {
  uint32_t Rows = 0, Cols = 0;
  ElemType Type = ElemType::F16; // X and Y have the same element type
  uint64_t NumBlocks = 0;
  uint32_t MaxBlockResidual = 0;
  const uint16_t *Values = nullptr;
  const uint32_t *Bitmap = nullptr;
  const uint32_t *ResidualOffsets = nullptr;
  const uint16_t *Residual = nullptr; // padded by 8 values
};

cudaError_t tlsUpload(const TlsMatrix &M, TlsDeviceMatrix &D);
void tlsFree(TlsDeviceMatrix &D);

/// Tuning knobs; zero means "choose".
struct TlsSpmmOptions {
  int NTile = 0;       // 8, 16, 32, 64 or 128 columns of X per output tile
  int Warps = 0;       // warps (16-row tiles) per CTA: 4 ... 24
  int Stages = 0;      // pipeline depth (shared-memory stages; pipeline 2:
                       // W stages per warp)
  int SplitK = 0;      // CTAs per output tile (grid = tiles * SplitK);
                       // 0: one wave of persistent CTAs (stream-K)
  int WavesTarget = 0; // with SplitK = 0: this many CTAs per resident slot
  int Pipeline = 0;    // 1: stages shared by the CTA's warps; 2: each warp
                       // refills its own W stages, only X is shared (fewer
                       // stages per warp, up to 32 warps per SM); 3:
                       // pipeline 1's stages filled by one producer warp
                       // with bulk copies (sm_90); 0: the
                       // measured faster one, 3 for n-tiles up to 32, 2 from
                       // n-tile 64
  int MaxNTile = 0;    // the largest n-tile the planner picks when NTile is
                       // 0: 128 (0 or 128; N > 64 decodes each half block
                       // once per 128 columns of X) or 64
  int Decode = -1;     // the decode: -1 the planner's choice (3 for the
                       // bulk-copy pipeline, n-tiles 8 to 32: 6-17 %
                       // faster than the tables on the H200, A/Bs of
                       // 2026-12-05 in bench/JOURNAL.md; 0 otherwise);
                       // 0 masks and layer-1 metadata through
                       // shared-memory tables (every variant);
                       // 1 bit-sliced with LOP3/PRMT, no tables; 2 as 1 and
                       // the gather as a tighter rank-matching loop; 3 as 2
                       // with gatherRankedMin (no slot/residual select) and
                       // a leaner item loop (ignores TLS_SPMM_ABLATE); 4 as 3
                       // with the gather unrolled by four and the item loop
                       // by the stages (1-4: pipeline 3, n-tiles 8-32 only)
};

/// Every kernel variant built (NTile, Warps, Stages, Pipeline, Decode set), for tests
/// and tuning; the same set exists for fp16 and bf16.
std::vector<TlsSpmmOptions> tlsSpmmVariants();

/// Bytes of workspace tlsSpmm needs for this shape and these options.
/// The workspace must be zeroed once after allocation (cudaMemset); every
/// call leaves its counters at zero again, so one workspace (sized for the
/// largest use) serves any sequence of calls on one stream.
size_t tlsSpmmWorkspaceBytes(const TlsDeviceMatrix &W, int N,
                             const TlsSpmmOptions &Opts = {});

/// Launches the SpMM on Stream. X needs Ldx % 8 == 0 and 16-byte alignment.
/// The element type of X and Y must be W's (cudaErrorInvalidValue if not).
cudaError_t tlsSpmm(const TlsDeviceMatrix &W, const __half *X, int Ldx, int N,
                    __half *Y, int Ldy, void *Workspace, size_t WorkspaceBytes,
                    cudaStream_t Stream, const TlsSpmmOptions &Opts = {});
cudaError_t tlsSpmm(const TlsDeviceMatrix &W, const __nv_bfloat16 *X, int Ldx,
                    int N, __nv_bfloat16 *Y, int Ldy, void *Workspace,
                    size_t WorkspaceBytes, cudaStream_t Stream,
                    const TlsSpmmOptions &Opts = {});

/// What tlsSpmm would launch (for reports).
/// SplitK: CTAs per output tile (rounded up); MaxWin: items (half blocks of
/// 128 columns) per CTA. Stages is 0 when no variant fits.
struct TlsSpmmPlan {
  int NTile, Warps, Stages, Pipeline, SplitK, NChunks, MBlocks, ResidualCap,
      MaxWin;
  size_t SharedBytes;
  int Ctas;
};
TlsSpmmPlan tlsSpmmPlan(const TlsDeviceMatrix &W, int N,
                        const TlsSpmmOptions &Opts = {});

} // namespace sparse
} // namespace cudaopt

#endif // CUDA_OPT_RUNTIME_SPARSE_TLSSPMM_H
