//===- TuneSpec.h - Spec mode: how to run a kernel without its program ----===//
//
// Part of cuda-opt. A tuning spec (JSON) names a kernel, its problem sizes,
// its launch shape and how to fill each argument, so library kernels with no
// driver program can be measured:
//
//   {"kernel": "saxpy", "sizes": {"n": 16777216},
//    "grid": ["(n + 255) / 256"], "block": [256],
//    "args": {"y": {"count": "n"}, "x": {"count": "n", "lo": -2, "hi": 2},
//             "a": 2.0, "n": "n"}}
//
// Counts, grid, block and integer scalars are integer expressions over the
// sizes. Buffer element types come from the kernel's parameter types; a
// buffer behind a non-const pointer is compared after each run (an output).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_CAPTURE_TUNESPEC_H
#define CUDA_OPT_CAPTURE_TUNESPEC_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <array>
#include <string>
#include <vector>

namespace cuda_opt {

/// Evaluate an integer expression (+ - * / % << >> parentheses, decimal and
/// hex literals, names from \p Vars).
llvm::Expected<int64_t> evalSizeExpr(llvm::StringRef Expr,
                                     const llvm::StringMap<int64_t> &Vars);

struct SpecArg {
  std::string Name;
  bool IsBuffer = false;
  std::string DType; ///< Runtime dtype name: f32, f16, i32, ...
  // Buffers.
  int64_t Count = 0;
  bool Output = false, Input = true;
  std::string Init = "uniform";
  double Lo = -1, Hi = 1;
  // Scalars.
  double Value = 0;
};

struct TuneSpec {
  std::string Kernel;
  std::array<int64_t, 3> Grid{1, 1, 1}, Block{1, 1, 1};
  int64_t Shmem = 0;
  std::vector<SpecArg> Args; ///< In kernel parameter order.
  double RelTol = -1;        ///< <0: per-dtype default.
  /// Fewest bytes the kernel must move: each input read once, each output
  /// written once (an in-out buffer counts twice).
  int64_t MinBytes = 0;
  /// Floating-point operations, from the spec's optional "flops" expression.
  int64_t Flops = 0;
  int64_t Runs = 20;

  /// Parse \p Text against the kernel's signature. Errors name the field.
  static llvm::Expected<TuneSpec> parse(llvm::StringRef Text,
                                        clang::ASTContext &Ctx,
                                        const std::vector<KernelInfo> &Kernels);
  /// The arguments part of a measurement job (runtime/measure format).
  llvm::json::Array argsToJob() const;
};

/// The runtime dtype name of a C++ type ("float" -> f32), or "" if the
/// measurement runtime has no such type.
std::string runtimeDTypeOf(clang::QualType T, clang::ASTContext &Ctx);

} // namespace cuda_opt

#endif // CUDA_OPT_CAPTURE_TUNESPEC_H
