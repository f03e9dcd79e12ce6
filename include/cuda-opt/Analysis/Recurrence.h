//===- Recurrence.h - Scalars a loop carries as reductions ------*- C++ -*-===//
//
// Part of cuda-opt. A loop may carry a scalar from one iteration to the next
// only in ways that can be split between workers and combined afterwards:
//
//   s += e;  s -= e;  s = s + e;  ++s;           sum
//   p *= e;  p = p * e;                          product
//   m = fmaxf(m, e);  m = max(m, e);  m = e > m ? e : m;  if (e > m) m = e;
//                                                 min / max
//   if (v > best) { best = v; idx = j; }         argmax (argmin with <),
//                                                 the first index wins ties
//
// analyzeRecurrences finds every scalar declared outside a loop and written
// inside it, and describes each as one of these recurrences, or says which
// one is not (a running value that the loop also reads, e.g. a prefix sum).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_RECURRENCE_H
#define CUDA_OPT_ANALYSIS_RECURRENCE_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include <string>

namespace cuda_opt {

enum class RecurrenceKind { Sum, Product, Min, Max, ArgMin, ArgMax };

/// How two partial results of a min/max recurrence are combined: with the
/// function the loop calls (fmaxf/fmax/fminf/fmin, which skip NaNs) or with a
/// comparison (`e > m ? e : m`, `if (e > m) m = e;`, max/min on integers).
enum class MinMaxForm { Function, Compare };

/// One scalar (two for argmin/argmax) that a loop carries.
struct Recurrence {
  RecurrenceKind Kind = RecurrenceKind::Sum;
  /// The accumulator: the sum, product, extremum, or the best value of an
  /// argmin/argmax.
  const clang::VarDecl *Var = nullptr;
  /// argmin/argmax: the position of the best value (`idx = j`).
  const clang::VarDecl *Index = nullptr;
  /// min/max only.
  MinMaxForm Form = MinMaxForm::Compare;
  /// The statements or expressions that update the recurrence.
  llvm::SmallVector<const clang::Stmt *, 2> Updates;
  /// An inclusive prefix sum (only with AllowScans): one `v += e;` statement
  /// at the top of the loop body, and the statements after it read v, so
  /// each iteration sees the sum up to and including its own term.
  bool Scan = false;
  /// Scan only: the term `e` added in each iteration.
  const clang::Expr *ScanTerm = nullptr;

  bool isArg() const {
    return Kind == RecurrenceKind::ArgMin || Kind == RecurrenceKind::ArgMax;
  }
  /// Combining a partial with itself gives it back (min, max, arg*), so
  /// every worker may start from the loop's initial value.
  bool isIdempotent() const {
    return Kind != RecurrenceKind::Sum && Kind != RecurrenceKind::Product;
  }
};

/// "sum", "product", "min", "max", "argmin", "argmax".
llvm::StringRef recurrenceKindName(RecurrenceKind K);

/// The scalars \p Loop carries from one iteration to the next (locals
/// declared outside the loop and written inside it, other than its
/// induction variable \p Induction), each as a recurrence; or the reason one
/// of them is not a recognised recurrence, phrased for the user. With
/// \p AllowScans a sum read after its update is an inclusive scan.
llvm::Expected<llvm::SmallVector<Recurrence, 4>>
analyzeRecurrences(clang::ASTContext &Ctx, const clang::ForStmt *Loop,
                   const clang::VarDecl *Induction,
                   bool AllowScans = false);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_RECURRENCE_H
