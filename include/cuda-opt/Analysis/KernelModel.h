//===- KernelModel.h - What cuda-opt knows about one kernel -----*- C++ -*-===//
//
// Part of cuda-opt. The kernel model used by --analyze, by transform
// legality checks, and as the policy's features: parameters, thread-index
// variables, loop nests, memory accesses and their coalescing, barriers,
// atomics, shared memory, an arithmetic-intensity estimate and the idiom.
// The JSON output of --analyze is a rendering of KernelModel.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_KERNELMODEL_H
#define CUDA_OPT_ANALYSIS_KERNELMODEL_H

#include "cuda-opt/Analysis/AccessAnalysis.h"
#include "cuda-opt/Analysis/IdiomClassifier.h"
#include "cuda-opt/Analysis/IndexExpr.h"
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/LoopAnalysis.h"
#include "llvm/Support/JSON.h"
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

struct ParamInfo {
  const clang::ParmVarDecl *Decl = nullptr;
  std::string Name;
  std::string Type;
  bool Pointer = false;
  /// For a pointer: the pointee is const; for a scalar: the parameter is.
  bool Const = false;
  /// A __restrict__ pointer.
  bool Restrict = false;
  /// The pointee type of a pointer, the type itself for a scalar.
  std::string ElementType;
  std::optional<uint64_t> ElementBytes;
  /// Memory accesses through this parameter, by kind.
  unsigned Reads = 0;
  unsigned Writes = 0;
  unsigned Atomics = 0;
};

/// A local variable computed from the CUDA builtins, e.g.
/// `int i = blockIdx.x * blockDim.x + threadIdx.x`.
struct ThreadIndexVar {
  const clang::VarDecl *Decl = nullptr;
  std::string Name;
  std::string Text;
  IndexExpr Form;
  /// "global linear index x", "thread index y", "lane index", "warp index",
  /// "grid stride x", or "thread-dependent value".
  std::string Role;
};

struct SharedArray {
  const clang::VarDecl *Decl = nullptr;
  std::string Name;
  std::string Type;
  std::optional<uint64_t> Bytes;
  /// `extern __shared__ T s[]`: sized at launch.
  bool Dynamic = false;
};

struct SharedMemoryInfo {
  std::vector<SharedArray> Arrays;
  /// Sum of the static arrays; std::nullopt when one has a size that depends
  /// on a template parameter.
  std::optional<uint64_t> StaticBytes;
  bool UsesDynamic = false;
};

/// Flops per byte of global memory traffic, from a static count.
struct IntensityInfo {
  /// Both as polynomials in the unknown trip counts.
  IndexExpr Flops;
  IndexExpr GlobalBytes;
  /// flops / bytes when both are constant ("exact"), or the ratio of the
  /// leading terms when they grow alike ("asymptotic").
  std::optional<double> FlopsPerByte;
  /// "exact", "asymptotic", or "unknown".
  std::string Status = "unknown";
  std::string Note;
};

/// Everything the analysis knows about one kernel. The body facts
/// (accesses, barriers, atomics, ...) are the BodySummary it derives from.
struct KernelModel : BodySummary {
  std::string Name;
  std::string Location;
  bool IsTemplate = false;
  SymbolTable Symbols;
  std::vector<ParamInfo> Params;
  std::vector<ThreadIndexVar> ThreadIndices;
  std::vector<LoopInfo> Loops;
  SharedMemoryInfo Shared;
  IntensityInfo Intensity;
  IdiomInfo Idiom;

  /// The deepest loop nesting (0 without loops).
  unsigned maxLoopDepth() const;
  /// Accesses counted by pattern over one memory space.
  unsigned countAccesses(MemorySpace Space, AccessPattern Pattern) const;
  /// The accesses through a parameter, __shared__ array or global variable.
  std::vector<const MemoryAccess *>
  accessesOf(const clang::ValueDecl *Base) const;
  /// True when some barrier may not be reached by every thread of its scope.
  bool hasDivergentBarrier() const;

  /// A flat numeric summary for a learned policy, in a fixed order: counts,
  /// sizes, intensity and a one-hot of the idiom. Unknown values are -1.
  std::vector<std::pair<std::string, double>> features() const;

  /// The model as JSON (without the launch inventory).
  llvm::json::Object toJSON() const;
};

/// Build the model of \p K.
KernelModel buildKernelModel(clang::ASTContext &Ctx, const KernelInfo &K);

/// The full kernel model of \p K as JSON (the --analyze output): the
/// inventory of KernelFinder plus KernelModel::toJSON.
llvm::json::Value analyzeKernelToJSON(clang::ASTContext &Ctx,
                                      const KernelInfo &K);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_KERNELMODEL_H
