//===- AccessAnalysis.h - Memory accesses and synchronisation ---*- C++ -*-===//
//
// Part of cuda-opt. One walk over a kernel body that records every global,
// shared and constant memory access (base, read/write, index as text and as
// an IndexExpr, coalescing class), every barrier, atomic and warp shuffle,
// every accumulation `acc += x * y`, and a static count of floating-point
// operations and global bytes weighted by the loops' trip counts.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_ACCESSANALYSIS_H
#define CUDA_OPT_ANALYSIS_ACCESSANALYSIS_H

#include "cuda-opt/Analysis/IndexExprBuilder.h"
#include "cuda-opt/Analysis/LoopAnalysis.h"
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

enum class MemorySpace { Global, Shared, Constant, Unknown };
enum class AccessKind { Read, Write, ReadWrite, Atomic };

/// How the addresses of one access vary across the threads of a warp
/// (consecutive threadIdx.x).
enum class AccessPattern {
  Coalesced, ///< unit stride in threadIdx.x
  Strided,   ///< a stride other than 1 (constant or symbolic)
  Broadcast, ///< independent of threadIdx.x
  Irregular, ///< data dependent or not affine in threadIdx.x
};

llvm::StringRef spaceName(MemorySpace S);
llvm::StringRef accessKindName(AccessKind K);
llvm::StringRef patternName(AccessPattern P);

struct MemoryAccess {
  const clang::Expr *E = nullptr;
  std::string Location;
  /// The access as written, e.g. "tile[ty][tx]".
  std::string Text;
  /// The parameter, __shared__ array or global variable accessed.
  const clang::ValueDecl *BaseDecl = nullptr;
  std::string Base;
  MemorySpace Space = MemorySpace::Unknown;
  AccessKind Kind = AccessKind::Read;
  /// The index as written ("[ty][tx]" for a 2-D array) and as a flattened
  /// polynomial in elements from the start of the base.
  std::string IndexText;
  IndexExpr Index;
  /// No data-dependent or non-linear part in the thread/loop indices.
  bool Affine = true;
  AccessPattern Pattern = AccessPattern::Broadcast;
  /// Stride in elements between consecutive threadIdx.x, when constant.
  std::optional<int64_t> Stride;
  /// The stride as text (also for a symbolic stride).
  std::string StrideText;
  /// Why the access is irregular.
  std::string Reason;
  std::string ElementType;
  std::optional<uint64_t> ElementBytes;
  /// Innermost enclosing loop, or -1.
  int Loop = -1;
};

struct BarrierInfo {
  /// "__syncthreads", "__syncwarp", "grid.sync()", ...
  std::string Kind;
  /// "block", "warp", "grid" or "group".
  std::string Scope;
  std::string Location;
  int Loop = -1;
  /// Under an `if` whose condition depends on threadIdx, or after a
  /// thread-dependent early `return`: not every thread of the block may reach
  /// it.
  bool Divergent = false;
};

struct AtomicInfo {
  std::string Op;
  std::string Location;
  /// The target's entry in the access list, or -1 when not resolved.
  int Access = -1;
  int Loop = -1;
};

struct ShuffleInfo {
  std::string Op;
  std::string Location;
  int Loop = -1;
};

/// `acc += x * y`, `acc = fma(x, y, acc)`, `acc += x`.
struct Accumulation {
  std::string Location;
  std::string Target;
  /// Access entry of the target when it is memory (C[i] += ...), else -1.
  int TargetAccess = -1;
  /// Access entries of the factors (x, y) when they are loads, else -1.
  int LHS = -1;
  int RHS = -1;
  bool Product = false;
  int Loop = -1;
};

struct BodySummary {
  std::vector<MemoryAccess> Accesses;
  std::vector<BarrierInfo> Barriers;
  std::vector<AtomicInfo> Atomics;
  std::vector<ShuffleInfo> Shuffles;
  std::vector<Accumulation> Accumulations;
  /// Functions called from the body that are not CUDA builtins (their
  /// bodies are not analysed).
  std::vector<std::string> Calls;
  /// Floating-point operations and global-memory bytes, weighted by the trip
  /// counts of the enclosing loops.
  IndexExpr Flops;
  IndexExpr GlobalBytes;
  /// Some floating-point arithmetic has a template-dependent type.
  bool DependentArithmetic = false;
};

/// Walk the body of \p Kernel. Marks loops that contain barriers.
BodySummary analyzeBody(const clang::FunctionDecl *Kernel,
                        IndexExprBuilder &Builder,
                        std::vector<LoopInfo> &Loops);

/// Classify an index by its dependence on threadIdx.x and fill the pattern,
/// stride and reason of \p A.
void classifyAccess(MemoryAccess &A, const SymbolTable &Symbols);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_ACCESSANALYSIS_H
