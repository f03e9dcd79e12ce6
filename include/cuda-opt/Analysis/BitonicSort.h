//===- BitonicSort.h - Loop nests sorting by a bitonic network -*- C++ -*-===//
//
// Part of cuda-opt. Recognises the textbook global-memory bitonic sort: a
// host loop nest that launches one compare-exchange kernel per stage of
// Batcher's bitonic network,
//
//   for (k = 2; k <= n; k <<= 1)          // k *= 2, k = k * 2 too
//     for (j = k >> 1; j > 0; j >>= 1)    // k / 2, j /= 2 too
//       step<<<grid, block>>>(d, j, k);   // error checks may follow
//
//   __global__ void step(T *d, int j, int k) {
//     unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
//     unsigned ixj = i ^ j;
//     if (ixj > i) {
//       if ((i & k) == 0) { if (d[i] > d[ixj]) swap d[i], d[ixj] }
//       else              { if (d[i] < d[ixj]) swap d[i], d[ixj] }
//     }                   // `if ((i & k) != 0)` in place of `else` too
//   }
//
// A fourth parameter may guard the threads: `if (i >= n) return;` first, or
// `i < n` (or `ixj < n`) beside the partner test.
//
// For each pair (i, i ^ j) with i < i ^ j the kernel leaves the smaller key
// first where bit k of i is clear and last where it is set; with j running
// over k/2, ..., 1 for k = 2, 4, ..., n these are exactly the comparators of
// the bitonic sorting network on n = 2^m keys (Batcher 1968; Knuth, TAOCP
// vol. 3, 5.3.4), so when one thread runs per key (grid.x * block.x == n,
// one-dimensional; at least one with the guard, passed n) the nest leaves
// d[0, n) sorted ascending (descending
// when both comparisons are the other way round). Keys of a type whose `<`
// is a total order (integers) then have one sorted arrangement, so any
// sort gives the same bits; floating-point keys do not (NaN compares false
// with everything, -0 equals +0).
//
// n's power of two and the coverage are facts about run-time values: the
// cub-sort rewrite (Transforms) tests them where the nest was and keeps the
// nest as the path taken when they do not hold. Host regions
// (HostRegions.h) treat such a nest as one step that reads and writes d.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_BITONICSORT_H
#define CUDA_OPT_ANALYSIS_BITONICSORT_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "clang/AST/Stmt.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace cuda_opt {

struct BitonicSort {
  /// The loop over k (the whole nest) and the function it is in.
  const clang::ForStmt *Nest = nullptr;
  const clang::FunctionDecl *Host = nullptr;
  /// The compare-exchange kernel (index into findKernels') and its launch.
  int Kernel = -1;
  const clang::CUDAKernelCallExpr *Launch = nullptr;
  /// The launch's argument that is the keys' pointer, and its variable.
  unsigned KeysArg = 0;
  const clang::VarDecl *Keys = nullptr;
  /// The key type (the kernel's pointee, unqualified).
  clang::QualType Element;
  bool Descending = false;
  /// n, as the loop over k bounds it (`k <= n`), and the launch's grid and
  /// block dimensions (ints or dim3s).
  const clang::Expr *Count = nullptr, *Grid = nullptr, *Block = nullptr;
  /// The loops call cudaDeviceSynchronize after each stage: the caller may
  /// rely on the keys being ready when the nest ends.
  bool Synchronizes = false;
  /// The launch's argument for the kernel's guard count (`if (i >= n)
  /// return;`), or null: with it the network sorts when it equals n and
  /// the grid has at least n threads.
  const clang::Expr *Guard = nullptr;
};

/// Whether the loop \p Outer of host function \p Host is such a nest, or why
/// not. \p Kernels is findKernels'.
llvm::Expected<BitonicSort>
matchBitonicSort(clang::ASTContext &Ctx, const clang::ForStmt *Outer,
                 const clang::FunctionDecl *Host,
                 const std::vector<KernelInfo> &Kernels);

/// The nests of the main file's host functions that launch kernel \p Kernel
/// (an index into \p Kernels), in source order; \p FirstRefusal gets why
/// the first loop around one of its launches is not one, when any is not.
std::vector<BitonicSort>
findBitonicSortsOf(clang::ASTContext &Ctx, int Kernel,
                   const std::vector<KernelInfo> &Kernels,
                   std::string &FirstRefusal);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_BITONICSORT_H
