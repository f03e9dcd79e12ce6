//===- TlsSpmm.cu - SpMM for the three-layer sparse format ----------------===//
//
// A persistent, stream-K kernel. The work is the list of "items" (M block,
// n-chunk, half block): an M block is WARPS 16-row tiles (one per warp), an
// n-chunk NT columns of X, a half block 128 columns of K (one relocation
// chain of format version 2). The grid is one wave of CTAs; CTA c walks the
// contiguous item range [c * T / G, (c + 1) * T / G), so every CTA streams
// the same number of bytes and its copy pipeline runs on across the
// boundaries between output tiles.
//
// Pipeline: STAGES shared-memory stages, each holding the X half-tile (shared
// by the CTA's warps) and, per warp, its tile's half block: the chain's
// values (2 KB, each lane's four 16-byte fragments XOR-swizzled so the
// per-k-step fragment loads are conflict-free), its bitmap words (256 B) and
// the block's residual values (their offsets are loaded 32 items ahead). Every
// thread copies its share with cp.async and signals the stage's "full" mbarrier
// with cp.async.mbarrier.arrive.noinc; a thread that has consumed a stage
// arrives on its "empty" mbarrier, and the stage is refilled (by all threads)
// one item later, so warps may drift one item apart and no CTA-wide barrier
// sits in the loop.
//
// Per item a warp decodes its chain on chip, as in format version 2
// (docs/sparse-format.md): empty/need masks from the bitmap through a byte
// table, the layer-1 metadata through a second table and one shuffle, the
// residual start through a shuffle scan, the layer-2 gather (one
// FLO per value) into a zeroed per-warp buffer; then per k-step two 16-byte
// fragment loads, one ldmatrix.x4 per n8 tile of X and two mma.sp.
//
// Output: a warp that covered a whole output tile writes Y directly; one
// that covered part of it adds its fp32 partial sums into a workspace with
// vector atomics (red.global.add.v2.f32), then counts the halves it covered
// on a per-tile counter; the warp that completes the count converts the
// tile to fp16/bf16, writes Y and zeroes the workspace tile and counter.
//
// Pipeline 2 (tlsSpmmRingKernel, TlsSpmmOptions::Pipeline = 2) keeps the
// per-item work and the output path but gives each warp its own ring of W
// stages, refilled by the warp alone; only the X half-tiles are shared.
// Fewer bytes per warp let 24-32 warps share an SM.
//
// Pipeline 3 (tlsSpmmBulkKernel, SpmmBulkKernel.cuh) keeps pipeline 1's
// stages and per-item work but fills the stages from one producer warp with
// bulk copies, so the consumer warps only wait, decode and multiply. The
// default plan: pipeline 3 up to n-tile 32, pipeline 2 above.
//
// The values are stored in device memory in the shared-memory (swizzled)
// order (tlsUpload), so every pipeline copies a chain as it is.
//
// The device code is in the .cuh files beside this one (SpmmLayout: sizes,
// parameters, shared-memory layout; SpmmPtx: instruction wrappers;
// SpmmCopy, SpmmDecode, SpmmEpilogue: the steps of an item; SpmmKernels:
// the two kernels), all part of this one translation unit. This file holds
// the host side: the kernel variants, the planner, the launch and the
// weight's upload.
//
//===----------------------------------------------------------------------===//

#include "SpmmBulkKernel.cuh"
#include "SpmmKernels.cuh"
#include "TlsLayout.h"
#include "TlsSpmm.h"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

namespace cudaopt {
namespace sparse {

namespace {

struct Variant {
  int NT, Warps, Stages;
  int Pipeline; // 1: stages shared by the CTA; 2: per-warp W rings;
                // 3: pipeline 1's stages filled by a bulk-copy producer warp
  bool Bf16;
  void (*Kernel)(Params);
  int Decode = 0; // TlsSpmmOptions::Decode: 0 tables, 1 bit-sliced, 2 also
                  // the ranked gather, 3 the min gather and lean item loop,
                  // 4 that unrolled (gather by four, item loop by stages)
  int threads() const { return (Warps + (Pipeline == 3)) * 32; }
};

template <int NT, int WARPS, int STAGES, bool BF16> Variant variant() {
  return {NT, WARPS, STAGES, 1, BF16, tlsSpmmKernel<NT, WARPS, STAGES, BF16>};
}
template <int NT, int WARPS, int WST, bool BF16> Variant ringVariant() {
  return {NT, WARPS, WST, 2, BF16, tlsSpmmRingKernel<NT, WARPS, WST, BF16>};
}
template <int NT, int WARPS, int STAGES, bool BF16> Variant bulkVariant() {
  return {NT,   WARPS, STAGES, 3,
          BF16, tlsSpmmBulkKernel<NT, WARPS, STAGES, BF16>};
}
/// Pipeline 3 with the bit-sliced mask and metadata decode (DECODE =
/// DecodeBits, TlsSpmmOptions::Decode 1) and also the ranked gather
/// (DecodeBitsRanked, Decode 2) or the min gather with the lean item loop
/// (DecodeBitsMin, Decode 3), or that unrolled (DecodeBitsMin4, Decode 4).
template <int NT, int WARPS, int STAGES, bool BF16, int DECODE>
Variant bulkBitsVariant() {
  return {NT,   WARPS,
          STAGES, 3,
          BF16, tlsSpmmBulkKernel<NT, WARPS, STAGES, BF16, DECODE>,
          DECODE};
}

// Per n-tile in order of preference: the planner takes the first that fits
// in shared memory (many residual values per block, at low sparsity, need
// smaller variants).
#define TLS_VARIANTS_SMALL(NT, B)                                              \
  variant<NT, 16, 4, B>(), variant<NT, 16, 3, B>(), variant<NT, 12, 4, B>(),   \
      variant<NT, 8, 4, B>(), variant<NT, 4, 3, B>()
#define TLS_VARIANTS_32(B)                                                     \
  variant<32, 16, 3, B>(), variant<32, 12, 4, B>(), variant<32, 8, 4, B>(),    \
      variant<32, 4, 3, B>()
#define TLS_VARIANTS_64(B)                                                     \
  variant<64, 12, 4, B>(), variant<64, 12, 3, B>(), variant<64, 8, 4, B>(),    \
      variant<64, 4, 3, B>()
// n-tile 128 (one decode per half block for N <= 128), chosen only when
// TlsSpmmOptions::MaxNTile allows it.
#define TLS_VARIANTS_128(B) variant<128, 8, 3, B>(), variant<128, 4, 3, B>()
// Pipeline 2 (TlsSpmmOptions::Pipeline = 2): more warps per SM. Two W
// stages per warp give the lookahead of three shared stages. 32 warps of
// n-tile 8 fit only at >= 60 % sparsity (blocks with few residual values);
// 28 warps leave warps idle on M not a multiple of 448 rows, so they come
// after 24 and are taken on request (Warps = 28).
#define TLS_RING_VARIANTS(B)                                                   \
  ringVariant<8, 32, 2, B>(), ringVariant<8, 24, 2, B>(),                      \
      ringVariant<8, 28, 2, B>(), ringVariant<8, 20, 2, B>(),                  \
      ringVariant<8, 16, 3, B>(), ringVariant<8, 16, 2, B>(),                  \
      ringVariant<16, 24, 2, B>(), ringVariant<16, 28, 2, B>(),                \
      ringVariant<16, 16, 2, B>(), ringVariant<32, 20, 2, B>(),                \
      ringVariant<32, 16, 2, B>(), ringVariant<64, 16, 2, B>(),                \
      ringVariant<64, 12, 2, B>(), ringVariant<128, 8, 2, B>()

// Pipeline 3 (TlsSpmmOptions::Pipeline = 3): pipeline 1's stages, one more
// warp (the producer) per CTA. 8 consumer warps and 3 stages first: two or
// three CTAs share an SM, so a slow copy holds up fewer warps (H200,
// 2026-12-04 A/B in bench/JOURNAL.md: x1.07 over pipeline 1 at N = 8).
#define TLS_BULK_VARIANTS(B)                                                   \
  bulkVariant<8, 8, 3, B>(), bulkVariant<8, 8, 2, B>(),                        \
      bulkVariant<8, 8, 4, B>(), bulkVariant<8, 12, 2, B>(),                   \
      bulkVariant<8, 6, 3, B>(), bulkVariant<8, 16, 4, B>(),                   \
      bulkVariant<16, 8, 3, B>(), bulkVariant<16, 8, 2, B>(),                  \
      bulkVariant<16, 8, 4, B>(), bulkVariant<16, 12, 2, B>(),                 \
      bulkVariant<16, 16, 3, B>(), bulkVariant<32, 8, 3, B>(),                 \
      bulkVariant<32, 8, 2, B>(), bulkVariant<32, 12, 2, B>(),                 \
      bulkVariant<32, 16, 3, B>(), bulkVariant<64, 8, 3, B>(),                 \
      bulkVariant<64, 12, 2, B>(), bulkVariant<128, 8, 3, B>()

// Pipeline 3 with the bit-sliced (LOP3/PRMT) mask and metadata decode
// (TlsSpmmOptions::Decode = 1), and with the ranked gather as well
// (Decode = 2), and with gatherRankedMin and the lean item loop (Decode =
// 3; issue 15 item 1), and with both unrolled (Decode = 4: the gather by
// four, the item loop by the stages): the default's shapes up to n-tile 32,
// their 2-stage fallbacks and 12 warps x 2 stages. Checked on the CPU
// (tls-bit-decode-test) and by SASS counts (bench/spmm/sass-count.py). For
// Decodes 3 and 4 the 2-stage ones put more consumer warps on an SM (8 x 2:
// three CTAs, 24 warps; 12 x 2: two CTAs, 24 warps; bulkMinCtasPerSm),
// which only a GPU A/B can rank against 8 x 3 (two CTAs, 16 warps).
#define TLS_BULK_BITS_VARIANTS(B, D)                                           \
  bulkBitsVariant<8, 8, 3, B, D>(), bulkBitsVariant<8, 8, 2, B, D>(),          \
      bulkBitsVariant<8, 12, 2, B, D>(), bulkBitsVariant<16, 8, 3, B, D>(),    \
      bulkBitsVariant<16, 8, 2, B, D>(), bulkBitsVariant<16, 12, 2, B, D>(),   \
      bulkBitsVariant<32, 8, 3, B, D>(), bulkBitsVariant<32, 8, 2, B, D>(),    \
      bulkBitsVariant<32, 12, 2, B, D>()

const std::vector<Variant> &allVariants() {
  static const std::vector<Variant> All = {
      TLS_VARIANTS_SMALL(8, false), TLS_VARIANTS_SMALL(16, false),
      TLS_VARIANTS_32(false),       TLS_VARIANTS_64(false),
      TLS_VARIANTS_128(false),      TLS_RING_VARIANTS(false),
      TLS_BULK_VARIANTS(false),     TLS_BULK_BITS_VARIANTS(false, 1),
      TLS_BULK_BITS_VARIANTS(false, 2), TLS_BULK_BITS_VARIANTS(false, 3),
      TLS_BULK_BITS_VARIANTS(false, 4),
      TLS_VARIANTS_SMALL(8, true),
      TLS_VARIANTS_SMALL(16, true), TLS_VARIANTS_32(true),
      TLS_VARIANTS_64(true),        TLS_VARIANTS_128(true),
      TLS_RING_VARIANTS(true),      TLS_BULK_VARIANTS(true),
      TLS_BULK_BITS_VARIANTS(true, 1), TLS_BULK_BITS_VARIANTS(true, 2),
      TLS_BULK_BITS_VARIANTS(true, 3), TLS_BULK_BITS_VARIANTS(true, 4)};
  return All;
}

int deviceSms() {
  static int Sms = [] {
    int Dev = 0, N = 0;
    cudaGetDevice(&Dev);
    cudaDeviceGetAttribute(&N, cudaDevAttrMultiProcessorCount, Dev);
    return N > 0 ? N : 1;
  }();
  return Sms;
}

int maxSharedOptin() {
  static int Max = [] {
    int Dev = 0, N = 0;
    cudaGetDevice(&Dev);
    cudaDeviceGetAttribute(&N, cudaDevAttrMaxSharedMemoryPerBlockOptin, Dev);
    return N > 0 ? N : 48 * 1024;
  }();
  return Max;
}

void allowMaxShared(const Variant &V) {
  static std::vector<char> Done(allVariants().size(), 0);
  size_t I = size_t(&V - allVariants().data());
  if (Done[I])
    return;
  cudaFuncSetAttribute(V.Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       maxSharedOptin());
  Done[I] = 1;
}

/// CTAs of variant V with SharedBytes of dynamic shared memory that fit on
/// an SM (at least 1). Every launch plans, so the occupancy query is made
/// once per (variant, shared bytes).
int residentCtas(const Variant &V, size_t SharedBytes) {
  static std::mutex Lock;
  static std::map<std::pair<const Variant *, size_t>, int> Known;
  std::lock_guard<std::mutex> Guard(Lock);
  auto [It, New] = Known.try_emplace({&V, SharedBytes}, 0);
  if (New) {
    int PerSm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&PerSm, V.Kernel,
                                                  V.threads(), SharedBytes);
    It->second = std::max(PerSm, 1);
  }
  return It->second;
}

int residualCap(const TlsDeviceMatrix &W) {
  // Every residual value of a block is staged (plus the misalignment of its
  // start): the gather reads them from shared memory only.
  return int(W.MaxBlockResidual + 7 + 7) / 8 * 8;
}

/// Shared memory of variant V for a matrix whose blocks need RCap residual
/// slots.
int sharedBytes(const Variant &V, int RCap) {
  return V.Pipeline == 2 ? ringSharedBytes(V.NT, V.Warps, V.Stages, RCap)
                         : totalSharedBytes(V.NT, V.Warps, V.Stages, RCap,
                                            a2LaneBytes(V.Decode));
}

/// The pipeline the planner prefers for n-tile NT: the one asked for, else
/// the faster one measured for that n-tile (H200, A/B in bench/JOURNAL.md):
/// the bulk-copy producer up to n-tile 32 (2026-12-04: x1.03-1.07 over
/// shared stages), warp rings from n-tile 64 (2026-11-30: 4-11 % faster
/// than shared stages).
int preferredPipeline(const TlsSpmmOptions &Opts, int NT) {
  if (Opts.Pipeline)
    return Opts.Pipeline;
  return NT >= 64 ? 2 : 3;
}

/// The first variant of one pipeline, in the table's order of preference,
/// that matches the options and fits in shared memory.
const Variant *firstFitting(const TlsDeviceMatrix &W, int NT, int Pipeline,
                            const TlsSpmmOptions &Opts) {
  if (Opts.Decode < 0) {
    // The planner's decode (TlsSpmmOptions::Decode), else the tables, which
    // every variant has.
    TlsSpmmOptions Chosen = Opts;
    // Decode 3 on every pipeline-3 n-tile (8-32): at n-tile 32 it was
    // 6 % faster than the tables once its registers allowed two CTAs per
    // SM (session 25 A/B, 4 of 4 shapes).
    Chosen.Decode = Pipeline == 3 && NT <= 32 ? 3 : 0;
    if (const Variant *V = firstFitting(W, NT, Pipeline, Chosen))
      return V;
    Chosen.Decode = 0;
    return firstFitting(W, NT, Pipeline, Chosen);
  }
  const bool Bf16 = W.Type == ElemType::BF16;
  const int RCap = residualCap(W);
  for (const Variant &V : allVariants()) {
    if (V.Bf16 != Bf16 || V.NT != NT || V.Pipeline != Pipeline ||
        V.Decode != Opts.Decode ||
        (Opts.Warps && V.Warps != Opts.Warps) ||
        (Opts.Stages && V.Stages != Opts.Stages))
      continue;
    if (sharedBytes(V, RCap) <= maxSharedOptin())
      return &V;
  }
  return nullptr;
}

const Variant *chooseVariant(const TlsDeviceMatrix &W, int NT,
                             const TlsSpmmOptions &Opts) {
  const int Pipeline = preferredPipeline(Opts, NT);
  if (const Variant *V = firstFitting(W, NT, Pipeline, Opts))
    return V;
  // Left to the planner, the other pipelines are the fallback: a matrix
  // with many residual values per block (low sparsity) may fit only a small
  // pipeline-1 variant.
  if (Opts.Pipeline)
    return nullptr;
  for (int Other : {1, 2})
    if (Other != Pipeline)
      if (const Variant *V = firstFitting(W, NT, Other, Opts))
        return V;
  return nullptr;
}

} // namespace

std::vector<TlsSpmmOptions> tlsSpmmVariants() {
  std::vector<TlsSpmmOptions> Out;
  for (const Variant &V : allVariants())
    if (!V.Bf16) {
      TlsSpmmOptions O;
      O.NTile = V.NT;
      O.Warps = V.Warps;
      O.Stages = V.Stages;
      O.Pipeline = V.Pipeline;
      O.Decode = V.Decode;
      Out.push_back(O);
    }
  return Out;
}

TlsSpmmPlan tlsSpmmPlan(const TlsDeviceMatrix &W, int N,
                        const TlsSpmmOptions &Opts) {
  TlsSpmmPlan Plan{};
  // n-tile 128 for N > 64 unless capped: one decode of each half block per
  // 128 columns of X was 4-21 % faster than two at N = 128 and 256.
  const int MaxNTile = Opts.MaxNTile == 0 || Opts.MaxNTile >= 128 ? 128 : 64;
  Plan.NTile = Opts.NTile ? Opts.NTile
               : N <= 8   ? 8
               : N <= 16  ? 16
               : N <= 32  ? 32
               : N <= 64  ? 64
                          : MaxNTile;
  const Variant *V = chooseVariant(W, Plan.NTile, Opts);
  if (!V && !Opts.NTile && Plan.NTile == 128) {
    // n-tile 128 has only 8- and 4-warp variants; blocks with many residual
    // values may fit only n-tile 64.
    Plan.NTile = 64;
    V = chooseVariant(W, Plan.NTile, Opts);
  }
  if (!V || N <= 0)
    return Plan;
  const int RCap = residualCap(W);
  const int Tiles = int((W.Rows + 15) / 16);
  const int BlockColumns = int((W.Cols + 255) / 256);
  Plan.Warps = V->Warps;
  Plan.Stages = V->Stages;
  Plan.Pipeline = V->Pipeline;
  Plan.MBlocks = (Tiles + Plan.Warps - 1) / Plan.Warps;
  Plan.NChunks = (N + Plan.NTile - 1) / Plan.NTile;
  Plan.ResidualCap = RCap;
  Plan.SharedBytes = size_t(sharedBytes(*V, RCap));
  const long long Units = (long long)Plan.MBlocks * Plan.NChunks;
  const long long Items = Units * 2 * BlockColumns;
  // The occupancy query answers 0 for more than the kernel's current
  // dynamic shared-memory limit (48 KB until raised), so raise it first.
  allowMaxShared(*V);
  const int PerSm = residentCtas(*V, Plan.SharedBytes);
  long long Ctas = (long long)PerSm * deviceSms() *
                   std::max(1, Opts.WavesTarget);
  if (Opts.SplitK > 0)
    Ctas = Units * Opts.SplitK;
  Ctas = std::max(1LL, std::min(Ctas, Items));
  Plan.Ctas = int(Ctas);
  Plan.SplitK = int((Ctas + Units - 1) / Units);
  Plan.MaxWin = int((Items + Ctas - 1) / Ctas); // items per CTA (at most)
  return Plan;
}

namespace {
size_t counterBytes(const TlsSpmmPlan &P, const TlsDeviceMatrix &W) {
  size_t Tiles = (W.Rows + 15) / 16;
  return (Tiles * P.NChunks * sizeof(unsigned) + 255) / 256 * 256;
}
size_t accBytes(const TlsSpmmPlan &P, const TlsDeviceMatrix &W) {
  size_t Tiles = (W.Rows + 15) / 16;
  return Tiles * TileRows * size_t(P.NChunks) * P.NTile * sizeof(float);
}
size_t workspaceBytesFor(const TlsSpmmPlan &P, const TlsDeviceMatrix &W) {
  return P.Stages ? counterBytes(P, W) + accBytes(P, W) : 0;
}

cudaError_t launch(const TlsDeviceMatrix &W, const void *X, int Ldx, int N,
                   void *Y, int Ldy, void *Workspace, size_t WorkspaceBytes,
                   cudaStream_t Stream, const TlsSpmmOptions &Opts) {
  if (N <= 0 || Ldx % 8 || Ldx < int(W.Cols) || Ldy < int(W.Rows) ||
      reinterpret_cast<uintptr_t>(X) % 16)
    return cudaErrorInvalidValue;
  TlsSpmmPlan Plan = tlsSpmmPlan(W, N, Opts);
  const Variant *V =
      Plan.Stages ? chooseVariant(W, Plan.NTile, Opts) : nullptr;
  if (!V || WorkspaceBytes < workspaceBytesFor(Plan, W))
    return cudaErrorInvalidValue;
  Params P{};
  P.Values = W.Values;
  P.Bitmap = W.Bitmap;
  P.ResOff = W.ResidualOffsets;
  P.Residual = W.Residual;
  P.X = static_cast<const uint16_t *>(X);
  P.Y = static_cast<uint16_t *>(Y);
  P.Counters = static_cast<unsigned *>(Workspace);
  P.Acc32 = reinterpret_cast<float *>(static_cast<char *>(Workspace) +
                                      counterBytes(Plan, W));
  P.Ldx = Ldx;
  P.Ldy = Ldy;
  P.M = int(W.Rows);
  P.K = int(W.Cols);
  P.N = N;
  P.Tiles = int((W.Rows + 15) / 16);
  P.BlockColumns = int((W.Cols + 255) / 256);
  P.NChunks = Plan.NChunks;
  P.Np = Plan.NChunks * Plan.NTile;
  P.Hpu = 2 * P.BlockColumns;
  P.Items = (long long)Plan.MBlocks * Plan.NChunks * P.Hpu;
  P.RCap = Plan.ResidualCap;
  static const int Ablate = [] {
    const char *E = std::getenv("TLS_SPMM_ABLATE");
    return E ? std::atoi(E) : 0;
  }();
  P.Ablate = Ablate;
  allowMaxShared(*V);
  V->Kernel<<<Plan.Ctas, V->threads(), Plan.SharedBytes, Stream>>>(P);
  return cudaGetLastError();
}
} // namespace

size_t tlsSpmmWorkspaceBytes(const TlsDeviceMatrix &W, int N,
                             const TlsSpmmOptions &Opts) {
  return workspaceBytesFor(tlsSpmmPlan(W, N, Opts), W);
}

cudaError_t tlsSpmm(const TlsDeviceMatrix &W, const __half *X, int Ldx, int N,
                    __half *Y, int Ldy, void *Workspace, size_t WorkspaceBytes,
                    cudaStream_t Stream, const TlsSpmmOptions &Opts) {
  if (W.Type != ElemType::F16)
    return cudaErrorInvalidValue;
  return launch(W, X, Ldx, N, Y, Ldy, Workspace, WorkspaceBytes, Stream, Opts);
}

cudaError_t tlsSpmm(const TlsDeviceMatrix &W, const __nv_bfloat16 *X, int Ldx,
                    int N, __nv_bfloat16 *Y, int Ldy, void *Workspace,
                    size_t WorkspaceBytes, cudaStream_t Stream,
                    const TlsSpmmOptions &Opts) {
  if (W.Type != ElemType::BF16)
    return cudaErrorInvalidValue;
  return launch(W, X, Ldx, N, Y, Ldy, Workspace, WorkspaceBytes, Stream, Opts);
}

namespace {
/// The values as the kernels stage them: in each chain (2 KB), lane L's
/// 64 bytes hold its k-step fragment K at 16-byte chunk K ^ ((L >> 1) & 3),
/// so that a quarter warp's fragment loads hit eight different bank quads
/// (LaneInfo::Sw). Stored that way in device memory, a chain is copied into
/// shared memory as it is (one bulk copy in pipeline 3).
std::vector<uint16_t> swizzledValues(const TlsMatrix &M) {
  std::vector<uint16_t> Out(M.Values.size());
  constexpr size_t ChainHalves = 1024, LaneHalves = 32, ChunkHalves = 8;
  for (size_t Chain = 0; Chain < Out.size() / ChainHalves; ++Chain)
    for (size_t L = 0; L < 32; ++L)
      for (size_t K = 0; K < 4; ++K) {
        const size_t Base = Chain * ChainHalves + L * LaneHalves;
        const size_t To = Base + (K ^ ((L >> 1) & 3)) * ChunkHalves;
        std::copy_n(M.Values.begin() + Base + K * ChunkHalves, ChunkHalves,
                    Out.begin() + To);
      }
  return Out;
}
} // namespace

cudaError_t tlsUpload(const TlsMatrix &M, TlsDeviceMatrix &D) {
  D = TlsDeviceMatrix();
  D.Rows = M.Rows;
  D.Cols = M.Cols;
  D.Type = M.Type;
  D.NumBlocks = M.numBlocks();
  TlsStats S = computeStats(M);
  D.MaxBlockResidual = S.MaxBlockResidual;
  void *Values, *Bitmap, *Offsets, *Residual;
  size_t ResBytes = (M.Residual.size() + 8) * 2;
  cudaError_t Err;
  if ((Err = cudaMalloc(&Values, M.Values.size() * 2)) != cudaSuccess)
    return Err;
  D.Values = static_cast<uint16_t *>(Values);
  if ((Err = cudaMalloc(&Bitmap, M.Bitmap.size() * 4)) != cudaSuccess)
    return Err;
  D.Bitmap = static_cast<uint32_t *>(Bitmap);
  if ((Err = cudaMalloc(&Offsets, M.ResidualOffsets.size() * 4)) != cudaSuccess)
    return Err;
  D.ResidualOffsets = static_cast<uint32_t *>(Offsets);
  if ((Err = cudaMalloc(&Residual, ResBytes)) != cudaSuccess)
    return Err;
  D.Residual = static_cast<uint16_t *>(Residual);
  cudaMemset(Residual, 0, ResBytes);
  const std::vector<uint16_t> Swizzled = swizzledValues(M);
  cudaMemcpy(Values, Swizzled.data(), Swizzled.size() * 2,
             cudaMemcpyHostToDevice);
  cudaMemcpy(Bitmap, M.Bitmap.data(), M.Bitmap.size() * 4,
             cudaMemcpyHostToDevice);
  cudaMemcpy(Offsets, M.ResidualOffsets.data(), M.ResidualOffsets.size() * 4,
             cudaMemcpyHostToDevice);
  return cudaMemcpy(Residual, M.Residual.data(), M.Residual.size() * 2,
                    cudaMemcpyHostToDevice);
}

void tlsFree(TlsDeviceMatrix &D) {
  cudaFree(const_cast<uint16_t *>(D.Values));
  cudaFree(const_cast<uint32_t *>(D.Bitmap));
  cudaFree(const_cast<uint32_t *>(D.ResidualOffsets));
  cudaFree(const_cast<uint16_t *>(D.Residual));
  D = TlsDeviceMatrix();
}

} // namespace sparse
} // namespace cudaopt
