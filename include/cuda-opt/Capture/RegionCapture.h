//===- RegionCapture.h - Capture and replay a whole host region -*- C++ -*-===//
//
// Part of cuda-opt. Program mode measures a host region (Analysis/
// HostRegions.h: a run of launches, memsets, device copies and checks,
// possibly a time loop) as one unit, so rewrites that change the number of
// launches can be timed and verified:
//
//  1. Outline: the region's statements move into a host function whose
//     parameters are references to the variables the region uses and
//     declares elsewhere,
//
//       static void cudaopt_region(float *&x, float *&tmp, int &n) { ... }
//
//     and the region becomes a call of it. A variant's region (a fused
//     launch, say) is outlined with the same parameters.
//  2. Capture: the original program runs once with that call routed
//     through cuda_opt_capture::call, which records each variable's value
//     and before/after snapshots of the allocations its pointers point
//     into (the same record as a kernel launch: Capture.h).
//  3. Replay: each outlined file is built by nvcc into a shared library
//     with an `extern "C" int cudaopt_region_entry(void **args, void *stream)`
//     that unpacks the worker's arguments (kernel-parameter style) and calls
//     the region on the legacy default stream, ordered after and before the
//     worker's stream; the worker (runtime/measure, library kind
//     `cudaopt_region`) verifies and times it like a kernel.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_CAPTURE_REGIONCAPTURE_H
#define CUDA_OPT_CAPTURE_REGIONCAPTURE_H

#include "cuda-opt/Analysis/HostRegions.h"
#include "cuda-opt/Capture/Capture.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace cuda_opt {

/// A variable the region uses and declares elsewhere: a parameter of the
/// outlined function (by reference).
struct RegionVariable {
  const clang::VarDecl *Var = nullptr;
  std::string Name;
  /// `float *&x`, `int &n`: the outlined function's parameter.
  std::string ParamText;
  /// `float *a0`: a local of the entry point holding the argument.
  std::string LocalText;
  /// Index into HostRegion::Buffers, or -1.
  int Buffer = -1;
  bool Pointer = false;
};

/// Where a region sits in a file, and what it uses.
struct RegionSignature {
  std::vector<RegionVariable> Vars;
  unsigned Begin = 0, End = 0; ///< File offsets of the region's text.
  unsigned FunctionBegin = 0;  ///< Where the outlined function goes.
  std::string Where;           ///< "host_fn at file:line".
  /// The host function's return type ("" for void): the outlined function
  /// returns it too, for the check macros that `return 1;`.
  std::string ReturnType;
};

/// The signature of \p R, or why it cannot be outlined (a variable it
/// declares is used after it, a variable of array or reference type, a
/// region in a template or a lambda, text in macros).
llvm::Expected<RegionSignature>
regionSignature(clang::ASTContext &Ctx, const HostRegion &R);

/// \p Text with the region text [Begin, End) (offsets into \p Text) moved
/// into `static void cudaopt_region(...)`, defined at \p FunctionBegin, and
/// called in its place. With \p ForCapture, the call goes through
/// cuda_opt_capture::call and the capture header is included first.
std::string outlineRegion(llvm::StringRef Text, const RegionSignature &Sig,
                          unsigned Begin, unsigned End, bool ForCapture);

/// The `extern "C"` entry the worker calls, to append to an outlined file.
std::string regionEntryText(const RegionSignature &Sig);

/// The worker's arguments for a captured region call: a buffer per pointer
/// variable (shared allocations as same_as), raw bytes per other variable.
/// A buffer the region writes is an output if it is live after the region,
/// else scratch (its contents are not compared).
llvm::Expected<llvm::json::Array>
regionReplayArgs(const CapturedLaunch &L, clang::ASTContext &Ctx,
                 const HostRegion &R, const RegionSignature &Sig);

} // namespace cuda_opt

#endif // CUDA_OPT_CAPTURE_REGIONCAPTURE_H
