//===- ScanRoutine.h - Host functions that compute a device-wide scan -*- C++ -*-===//
//
// Part of cuda-opt. Recognises the textbook scan-then-propagate prefix sum
// (GPU Gems 3, ch. 39) written as a recursive host function:
//
//   int scan(T *out, const T *in, int n) {
//     const int chunk = 1024;
//     int blocks = (n + chunk - 1) / chunk;
//     T *sums;  cudaMalloc(&sums, ...);
//     block_scan<<<blocks, chunk>>>(out, sums, in, n);   // (1)
//     if (blocks > 1) {
//       T *scanned;  cudaMalloc(&scanned, ...);
//       scan(scanned, sums, blocks);                       // (2)
//       add_offsets<<<(n + 255) / 256, 256>>>(out, scanned, chunk, n);  // (3)
//       cudaFree(scanned);
//     }
//     cudaFree(sums);
//     return 0;
//   }
//
// (1) is proven to be a per-block inclusive prefix sum over a __shared__
// array (Analysis/SharedScan.h) that loads `i < n ? in[i] : 0`, stores
// `out[i]` for i < n and the block's total `sums[blockIdx.x]` from its last
// thread; (3) is proven to add `scanned[i / chunk - 1]` to `out[i]` for
// chunk <= i < n over a grid that covers n; (2) passes the totals and their
// count. By induction on n, such a function leaves out[0, n) = the inclusive
// prefix sum of in[0, n) and changes no other memory the caller can see
// (its temporaries are its own). Everything else in the function must be
// error checks, allocations and frees of its temporaries, a final
// synchronisation and a constant return.
//
// cub-scan (Transforms) replaces such a function's body with one call to
// CUB's device-wide scan; host regions (HostRegions.h) treat a call to it as
// one step that reads `in` and writes `out`.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_SCANROUTINE_H
#define CUDA_OPT_ANALYSIS_SCANROUTINE_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "clang/AST/Decl.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace cuda_opt {

struct ScanRoutine {
  const clang::FunctionDecl *Function = nullptr;
  /// The function's parameters: the output, the input and the count.
  unsigned Out = 0, In = 0, Count = 0;
  /// The element type (the same for the input, the output and the shared
  /// array), unqualified.
  clang::QualType Element;
  /// Indices into the kernels findKernels returned: the per-block scan and
  /// the kernel that adds the scanned block totals.
  int BlockKernel = -1, OffsetKernel = -1;
  /// Elements per block of the per-block scan.
  int64_t Chunk = 0;
  /// The macro the function wraps its CUDA calls in (`CK` for
  /// `CK(cudaMalloc(...))`), or empty when it calls them bare.
  std::string CheckMacro;
  /// The text of the function's last top-level synchronisation statement
  /// (`CK(cudaDeviceSynchronize());`), or empty.
  std::string FinalSync;
  /// The text of the value its final `return` gives (empty for void).
  std::string SuccessValue;
};

/// Whether \p F is such a function, or why not. \p Kernels is findKernels'.
llvm::Expected<ScanRoutine>
matchScanRoutine(clang::ASTContext &Ctx, const clang::FunctionDecl *F,
                 const std::vector<KernelInfo> &Kernels);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_SCANROUTINE_H
