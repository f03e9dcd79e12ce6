//===- Transform.h - The source-to-source transform interface ---*- C++ -*-===//
//
// Part of cuda-opt. A transform rewrites one kernel (and, where it must, the
// host code that launches it). It declares typed parameters, checks its own
// legality and says why when it refuses, and expresses its rewrite as
// clang::tooling::Replacements against the current text of the file.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_PASS_TRANSFORM_H
#define CUDA_OPT_PASS_TRANSFORM_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Support/Refusal.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cuda_opt {

/// One parameter of a transform: an integer with its inclusive range, or
/// (IsText) a string such as a file name, which the tuner never varies.
struct ParamSpec {
  std::string Name;
  int64_t Default;
  int64_t Min;
  int64_t Max;
  std::string Help;
  /// Value must be a power of two (unroll factors, vector widths, ...).
  bool PowerOfTwo = false;
  /// The values the tuner tries; empty = every power of two in range (for
  /// PowerOfTwo parameters) or just the default.
  std::vector<int64_t> TuneValues = {};
  /// A text parameter (`file=w.tls`); Default/Min/Max are unused.
  bool IsText = false;
};

/// Parameter values after validation against the specs (defaults filled in).
class ParamValues {
public:
  int64_t get(llvm::StringRef Name) const;
  void set(llvm::StringRef Name, int64_t V) { Values[Name] = V; }
  /// Text parameters ("" when not given).
  std::string getText(llvm::StringRef Name) const {
    return Texts.lookup(Name);
  }
  void setText(llvm::StringRef Name, llvm::StringRef V) {
    Texts[Name] = V.str();
  }
  bool has(llvm::StringRef Name) const { return Values.count(Name); }
  /// "a=1,b=2" in spec order, for reports.
  std::string str(llvm::ArrayRef<ParamSpec> Specs) const;

private:
  llvm::StringMap<int64_t> Values;
  llvm::StringMap<std::string> Texts;
};

/// What a transform sees: the parsed file and the kernel to rewrite.
struct KernelTarget {
  clang::ASTContext &Ctx;
  const KernelInfo &Kernel;
  clang::SourceManager &getSourceManager() const {
    return Ctx.getSourceManager();
  }
};

/// Base class of every transform.
class Transform {
public:
  virtual ~Transform();
  /// The name used in --passes, e.g. "unroll".
  virtual llvm::StringRef getName() const = 0;
  /// One line for --list-passes.
  virtual llvm::StringRef getSummary() const = 0;
  virtual llvm::ArrayRef<ParamSpec> getParams() const { return {}; }

  /// True when the rewrite edits the kernel's launch configuration (grid or
  /// block) at its launch sites. Spec mode launches every variant with the
  /// spec's configuration, so such variants can only be measured in a mode
  /// that runs the rewritten host code.
  virtual bool changesLaunchConfig(const ParamValues &Params) const {
    return false;
  }

  /// True when the rewrite replaces the kernel's launch with a library call
  /// (gemm-specialize, sparse-weights). The tuner's worker replays kernel
  /// symbols, so it cannot measure such a variant yet and lists it as
  /// "library-call" instead of mis-measuring it.
  virtual bool replacesLaunch(const ParamValues &Params) const {
    return false;
  }

  /// True when the rewrite and its legality look only at the kernel's body,
  /// never at its launch sites (unroll). Only such passes run on a kernel
  /// that is also launched from device code (KernelInfo::DeviceLaunches).
  virtual bool isKernelLocal() const { return false; }

  /// Success if the transform may rewrite this kernel with these parameters;
  /// otherwise an error whose message is the reason, phrased for the user
  /// ("kernel 'k' has no counted loop to unroll").
  virtual llvm::Error checkLegality(const KernelTarget &Target,
                                    const ParamValues &Params) const = 0;

  /// The edits. Only called after checkLegality succeeded. Edits may touch
  /// the kernel and its launch sites, never unrelated code.
  virtual llvm::Expected<clang::tooling::Replacements>
  rewrite(const KernelTarget &Target, const ParamValues &Params) const = 0;
};

/// The list of transforms the tools know. Filled by
/// registerAllTransforms() (cuda-opt/Transforms/InitAllTransforms.h) from
/// Transforms.def; the pipeline parser and the tuner read it.
class TransformRegistry {
public:
  using Factory = std::function<std::unique_ptr<Transform>()>;
  static void add(Factory F);
  /// All transforms, sorted by name.
  static std::vector<std::unique_ptr<Transform>> createAll();
  static std::unique_ptr<Transform> create(llvm::StringRef Name);
};

} // namespace cuda_opt

#endif // CUDA_OPT_PASS_TRANSFORM_H
