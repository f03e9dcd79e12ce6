//===- FpModel.h - What a rewrite may do to floating-point results -*- C++ -*-===//
//
// Part of cuda-opt. `--fp-model=strict|reassoc|fast` bounds what a rewrite
// may change in the floating-point results of a kernel (docs/fp-model.md):
//
//   strict   every output keeps its sequence of operations: bitwise equal
//            to the original's (NaN == NaN, -0 == +0);
//   reassoc  also reorders +/* reductions and scans, changes FMA contraction
//            and calls libraries with their own order; a variant is verified
//            against an fp64 shadow of the original (the default of tune);
//   fast     also lower precision and approximate math; only with --rtol.
//
// Each transform declares the FpEffect of its rewrite; the pipeline refuses
// a step whose effect the model (or the kernel's own
// `#pragma cuda_opt fp_model(...)`) does not allow.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SUPPORT_FPMODEL_H
#define CUDA_OPT_SUPPORT_FPMODEL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include <optional>
#include <string>

namespace cuda_opt {

enum class FpModel { Strict, Reassoc, Fast };

/// What a rewrite does to the floating-point operations of each output.
enum class FpEffect {
  Preserves,    ///< Same operations in the same order.
  Reassociates, ///< Reorders sums/products, changes contraction, libraries.
  Approximates, ///< Lower precision or approximate math.
};

inline llvm::StringRef fpModelName(FpModel M) {
  switch (M) {
  case FpModel::Strict: return "strict";
  case FpModel::Reassoc: return "reassoc";
  case FpModel::Fast: return "fast";
  }
  return "reassoc";
}

inline std::optional<FpModel> parseFpModel(llvm::StringRef S) {
  if (S == "strict") return FpModel::Strict;
  if (S == "reassoc") return FpModel::Reassoc;
  if (S == "fast") return FpModel::Fast;
  return std::nullopt;
}

/// The weakest model that allows \p E.
inline FpModel modelRequiredFor(FpEffect E) {
  switch (E) {
  case FpEffect::Preserves: return FpModel::Strict;
  case FpEffect::Reassociates: return FpModel::Reassoc;
  case FpEffect::Approximates: return FpModel::Fast;
  }
  return FpModel::Fast;
}

inline bool fpModelAllows(FpModel M, FpEffect E) {
  return static_cast<int>(modelRequiredFor(E)) <= static_cast<int>(M);
}

/// "reorders floating-point sums" etc., for refusals.
inline llvm::StringRef describeFpEffect(FpEffect E) {
  switch (E) {
  case FpEffect::Preserves: return "keeps every floating-point operation";
  case FpEffect::Reassociates:
    return "reorders floating-point reductions";
  case FpEffect::Approximates:
    return "uses lower precision or approximate math";
  }
  return "";
}

/// One line for output headers and reports.
inline llvm::StringRef describeFpModel(FpModel M) {
  switch (M) {
  case FpModel::Strict:
    return "strict: every output bitwise equal to the original's";
  case FpModel::Reassoc:
    return "reassoc: sums may be reordered; variants verified against an "
           "fp64 reference of the original";
  case FpModel::Fast:
    return "fast: lower precision and approximate math allowed within --rtol";
  }
  return "";
}

/// Why a rewrite with effect \p E is refused for kernel \p Kernel under
/// model \p M (the pipeline's and candidate generation's one message).
inline std::string fpModelRefusal(FpEffect E, FpModel M,
                                  llvm::StringRef Kernel) {
  return ("the rewrite " + describeFpEffect(E) + ", which --fp-model=" +
          fpModelName(M) + " does not allow for kernel '" + Kernel +
          "' (needs --fp-model=" + fpModelName(modelRequiredFor(E)) + ")")
      .str();
}

} // namespace cuda_opt

#endif // CUDA_OPT_SUPPORT_FPMODEL_H
