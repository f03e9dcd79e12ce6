//===- LoopAnalysis.h - Loop nests of a kernel ------------------*- C++ -*-===//
//
// Part of cuda-opt. Finds the loops of a kernel body, recognises their
// induction variable, bounds and step, computes constant trip counts, spots
// grid-stride and block-stride loops, and binds each affine induction
// variable to its closed form `init + step * iteration` in the
// IndexExprBuilder so that accesses inside the loop are expressed in terms of
// the thread indices.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_LOOPANALYSIS_H
#define CUDA_OPT_ANALYSIS_LOOPANALYSIS_H

#include "cuda-opt/Analysis/IndexExprBuilder.h"
#include "clang/AST/Stmt.h"
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

/// How the induction variable changes per iteration.
enum class StepKind {
  Unknown,   ///< no induction variable recognised
  Additive,  ///< i += step (step may be symbolic)
  Geometric, ///< s *= 2, s <<= 1, s >>= 1, s /= 2
};

struct LoopInfo {
  const clang::Stmt *S = nullptr;
  /// "for", "while" or "do".
  std::string Kind;
  std::string Location;
  /// Index of the enclosing loop in the kernel's loop list, or -1.
  int Parent = -1;
  /// 1 for an outermost loop.
  unsigned Depth = 1;

  const clang::VarDecl *Var = nullptr;
  std::string VarName;
  /// Source text of the initial value, the bound, and the step.
  std::string InitText, BoundText, StepText;
  /// The comparison with the induction variable on the left ("<", "<=",
  /// ">", ">=", "!="), empty when not recognised.
  std::string Compare;

  StepKind Step = StepKind::Unknown;
  IndexExpr Init;
  IndexExpr Bound;
  /// Additive: the increment per iteration.
  IndexExpr Stride;
  /// Geometric: the factor (2 for `s *= 2` and `s >>= 1`) and direction.
  int64_t Factor = 0;
  bool Growing = false;

  std::optional<int64_t> TripCount;
  /// A symbolic trip count ("K", "ceil((n - i) / (blockDim.x*gridDim.x))"),
  /// or "unknown".
  std::string TripCountText = "unknown";
  /// How many times the body runs, as a polynomial for cost estimates: the
  /// constant trip count, the symbolic one when it is a polynomial, else a
  /// TripCount symbol.
  IndexExpr Weight;

  /// i starts from a global thread index and steps by blockDim*gridDim.
  bool GridStride = false;
  /// i starts from threadIdx and steps by blockDim.
  bool BlockStride = false;
  /// Filled in by the body walk.
  bool ContainsBarrier = false;
};

/// The loops of \p Kernel in source (pre-)order; binds induction variables
/// in \p Builder.
std::vector<LoopInfo> analyzeLoops(const clang::FunctionDecl *Kernel,
                                   IndexExprBuilder &Builder);

/// True when \p Inner is \p Outer or one of its descendants.
bool containsStmt(const clang::Stmt *Outer, const clang::Stmt *Inner);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_LOOPANALYSIS_H
