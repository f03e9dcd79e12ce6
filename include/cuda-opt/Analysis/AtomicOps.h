//===- AtomicOps.h - What an atomic update does, and to where ---*- C++ -*-===//
//
// Part of cuda-opt. The facts block-reduce and privatize-atomics rest on:
//
//  - which combining operation an atomic update applies (`atomicAdd` is a
//    sum, `atomicMax` a maximum, a __device__ helper with a compare-and-swap
//    loop that stores `v` while `old < v` is a maximum, ...), so that several
//    updates can be folded into one;
//  - whether an address is the same for every thread of every block;
//  - the range of values an integer index can take (an 8-bit load, `x % K`,
//    `x & M`, a dominating `if (b < K)`), so that a small array of counters
//    can live in shared memory.
//
// Every fact is proven from the code; names of kernels and variables are
// never consulted (CUDA's own atomic functions are recognised by name, as a
// compiler recognises its builtins).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_ATOMICOPS_H
#define CUDA_OPT_ANALYSIS_ATOMICOPS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>

namespace cuda_opt {

/// An associative, commutative combining operation.
enum class CombineOp { Sum, Product, Max, Min, And, Or, Xor };

/// "sum", "maximum", ... for messages and comments.
llvm::StringRef combineOpName(CombineOp Op);

/// True when the operation gives the same result in any order on values of
/// \p T: integer sums/products (modular), min/max and the bitwise operations.
/// Floating-point sums and products are not: reordering them reassociates.
bool isExactInAnyOrder(CombineOp Op, clang::QualType T);

/// One atomic read-modify-write whose old value is not used:
/// `atomicAdd(addr, v)`, `atomicMax(addr, v)`, or a call of a __device__
/// helper that performs such an update with a compare-and-swap loop.
struct AtomicUpdate {
  const clang::CallExpr *Call = nullptr;
  CombineOp Op = CombineOp::Sum;
  /// The address updated and the value combined into it.
  const clang::Expr *Address = nullptr;
  const clang::Expr *Value = nullptr;
  /// The type of the updated object (`float` for `atomicAdd(float *, ...)`).
  clang::QualType ElementType;
  /// The CAS-loop helper when the update is one; null for CUDA's atomics.
  const clang::FunctionDecl *Helper = nullptr;
  /// `atomicSub`: the value is subtracted (a sum of negated values).
  bool Subtracts = false;
  /// `atomicInc(addr, ~0u)`: adds one.
  bool IncrementsByOne = false;
};

/// The atomic update \p Call performs, or the reason it is not one this
/// analysis understands (atomicCAS/atomicExch, atomicInc with a wrap-around
/// limit, a helper that is not a CAS loop, ...). Sets \p IsAtomic when the
/// call is an atomic operation at all (so callers can refuse with the
/// reason instead of treating it as an ordinary call).
llvm::Expected<AtomicUpdate> matchAtomicUpdate(clang::ASTContext &Ctx,
                                               const clang::CallExpr *Call,
                                               bool &IsAtomic);

/// True when the value \p Call returns is discarded: the call is a
/// statement of its own (possibly cast to void).
bool isResultUnused(clang::ASTContext &Ctx, const clang::CallExpr *Call);

/// The combining operation a __device__ helper `void f(T *addr, T v)`
/// performs with a compare-and-swap loop, or the reason it is not one:
///
///   int old = *p;                           |  do {
///   while (__int_as_float(old) < v) {       |    assumed = old;
///     int assumed = old;                    |    old = atomicCAS(p, assumed,
///     old = atomicCAS(p, assumed,           |      __float_as_int(
///               __float_as_int(v));         |        v + __int_as_float(assumed)));
///     if (old == assumed) break;            |  } while (assumed != old);
///   }                                       |
///
/// The stored value is `v` under a loop condition `old < v` (maximum) or
/// `old > v` (minimum), or `v OP old` / `fmaxf(v, old)` / ... unconditionally.
llvm::Expected<CombineOp> summarizeCasHelper(clang::ASTContext &Ctx,
                                             const clang::FunctionDecl *FD);

/// True when \p Address has the same value in every thread of every block
/// of \p Kernel: built from kernel parameters the kernel never reassigns,
/// constants, and locals initialised from those, with `&`, `[]`, `+`, `-`,
/// casts. Otherwise false and \p Why says what varies ("reads blockIdx",
/// "reads memory", ...).
bool isGridUniform(clang::ASTContext &Ctx, const clang::Expr *Address,
                   const clang::FunctionDecl *Kernel, std::string &Why);

/// The identity of \p Op on \p T as source text ("0.0f", "-INFINITY"-like
/// bit patterns, "(-2147483647 - 1)", ...), or std::nullopt for types this
/// analysis does not handle.
std::optional<std::string> identityText(clang::ASTContext &Ctx, CombineOp Op,
                                        clang::QualType T);

/// The text of `Combine(A, B)` for \p Op on \p T: `A + B`, `fmaxf(A, B)`,
/// `max(A, B)`, `A | B`, ...
std::string combineText(clang::ASTContext &Ctx, CombineOp Op, clang::QualType T,
                        llvm::StringRef A, llvm::StringRef B);

/// True when \p T is a type warp shuffles and CUDA atomics handle: int,
/// unsigned, (unsigned) long long, float, double.
bool isShuffleType(clang::ASTContext &Ctx, clang::QualType T);

/// An inclusive integer range.
struct ValueRange {
  int64_t Lo = 0;
  int64_t Hi = 0;
};

/// The values integer expression \p E can take at its position inside
/// \p Scope (a kernel body), or std::nullopt when no bound is proven. Bounds
/// come from the type (an unsigned 8-bit load is [0, 255]), `x % K` and
/// `x & M` with constants, `x >> s`, min/max with constants, locals
/// initialised once, and the conditions of enclosing `if`s (`if (b < 64)`).
std::optional<ValueRange> valueRangeOf(clang::ASTContext &Ctx,
                                       const clang::Expr *E,
                                       const clang::Stmt *Scope);

/// An upper bound that is a kernel parameter rather than a constant:
/// `if (v >= 0 && v < nbins) atomicAdd(&bins[v], 1)` bounds v by 'nbins'.
struct ParamBound {
  /// The integer parameter, never modified by the kernel; values are < it.
  const clang::ParmVarDecl *Param = nullptr;
  /// The proven lower bound (from the type or a constant guard); INT64_MIN
  /// when none is proven.
  int64_t Lo = INT64_MIN;
};

/// The parameter bound of \p E inside \p Scope (a kernel body): E is a
/// variable under an enclosing `if (E < P)` (or `P > E`) whose P is an
/// unmodified integer parameter.
std::optional<ParamBound> paramBoundOf(clang::ASTContext &Ctx,
                                       const clang::Expr *E,
                                       const clang::Stmt *Scope);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_ATOMICOPS_H
