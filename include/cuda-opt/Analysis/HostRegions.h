//===- HostRegions.h - Straight-line launch sequences in host code -*- C++ -*-===//
//
// Part of cuda-opt. A host region is a run of consecutive statements of one
// host function that only launch kernels and move device memory:
//
//   scale<<<g, b>>>(tmp, x, n);        // launch steps
//   CK(cudaGetLastError());            // check steps (no effect on buffers)
//   shift<<<g, b>>>(y, tmp, n);
//
// optionally the whole body of a counted host loop (a time loop, with
// pointer swaps between sweeps):
//
//   for (int t = 0; t < 10; ++t) {
//     stencil<<<g, b>>>(next, cur, n);
//     std::swap(cur, next);            // swap steps
//   }
//
// It is the unit the region-level rewrites (fuse-launches today;
// time-loop blocking and library routing later) replace, and that tune
// measures as a whole (Capture/RegionCapture.h). For each
// region the analysis gives its steps, the device buffers the launches
// pass (pointer variables), whether the region reads and writes each one
// (from the kernels' bodies), and whether its value is needed after the
// region (live-out) or comes from before it (live-in). A statement that
// ends a region says why in the notes (a host read, a call cuda-opt does
// not model, a launch on a stream).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_HOSTREGIONS_H
#define CUDA_OPT_ANALYSIS_HOSTREGIONS_H

#include "cuda-opt/Analysis/BitonicSort.h"
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/ScanRoutine.h"
#include "llvm/Support/JSON.h"
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

struct RegionStep {
  enum StepKind {
    Launch,  ///< kernel<<<...>>>(...)
    Memset,  ///< cudaMemset(p, v, bytes) (and ...Async on stream 0)
    CopyD2D, ///< cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice)
    Swap,    ///< std::swap(a, b) or t = a; a = b; b = t; of buffer pointers
    Check,   ///< cudaGetLastError, cudaDeviceSynchronize and checks of them
    Call,    ///< a call of a host function whose effect is known: a device-
             ///< wide scan (Analysis/ScanRoutine.h), `if (scan(o, i, n))
             ///< return 1;` included
    Sort,    ///< a host loop nest that sorts with a bitonic network
             ///< (Analysis/BitonicSort.h); reads and writes the keys
  };
  StepKind Kind = Launch;
  const clang::Stmt *S = nullptr;
  /// The statements of the step (three for `t = a; a = b; b = t;`).
  clang::SourceRange Span;
  /// Launch: the kernel (index into the analysed kernels).
  int Kernel = -1;
  /// Call: what the called function computes.
  std::optional<ScanRoutine> Routine;
  /// Sort: the nest (its kernel is Kernel).
  std::optional<BitonicSort> SortNest;
  /// Launch: the pass that routes the kernel's computation to a library
  /// (cub-histogram: Analysis/HistogramKernel.h, cub-segmented-reduce:
  /// Analysis/SegmentedReduction.h) and what it computes; empty when none.
  std::string Routes, Computes;
  /// Per argument of a launch or a call (or the pointer operands of a
  /// memory step):
  /// index into HostRegion::Buffers, or -1 for a scalar.
  std::vector<int> Args;
};

struct RegionBuffer {
  /// The pointer variable passed (a local or a parameter of the host
  /// function, or a global).
  const clang::VarDecl *Var = nullptr;
  bool Read = false, Written = false;
  /// Its contents are needed after the region: a later statement of the
  /// function names it (other than cudaFree), or it outlives the function
  /// (a parameter, a global).
  bool LiveOut = false;
  /// The region reads it before (or without) writing all of it: its
  /// contents come from before the region.
  bool LiveIn = false;
};

struct HostRegion {
  const clang::FunctionDecl *Host = nullptr;
  /// The counted loop whose body is the region, if any, and its trip count
  /// when constant.
  const clang::ForStmt *TimeLoop = nullptr;
  /// The time loop's counter when it counts up by one,
  /// `for (T v = Start; v < Bound; ++v)` (or `v++`, `v += 1`), else null.
  const clang::VarDecl *Counter = nullptr;
  const clang::Expr *Start = nullptr, *Bound = nullptr;
  std::optional<int64_t> Trips;
  std::vector<RegionStep> Steps;
  std::vector<RegionBuffer> Buffers;
  /// Source range of the region's statements (the loop for a time loop).
  clang::SourceRange Range;
  unsigned launches() const;
  /// Call steps.
  unsigned calls() const;
  /// Sort steps.
  unsigned sorts() const;
  /// Launch steps a library can compute (RegionStep::Routes).
  unsigned routed() const;
  /// Why the statements around it ended the region.
  std::vector<std::string> Notes;
};

/// The regions of the main file's host functions that have at least two
/// launches, a call of a function with a known effect, a sorting loop nest,
/// a launch a library can compute, or one launch in a counted loop. \p Kernels is findKernels'.
std::vector<HostRegion> findHostRegions(clang::ASTContext &Ctx,
                                        const std::vector<KernelInfo> &Kernels);

llvm::json::Value hostRegionToJSON(clang::ASTContext &Ctx,
                                   const std::vector<KernelInfo> &Kernels,
                                   const HostRegion &R);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_HOSTREGIONS_H
