//===- Transform.h - The source-to-source transform interface ---*- C++ -*-===//
//
// Part of cuda-opt. A transform rewrites one kernel (and, where it must, the
// host code that launches it). It declares typed parameters and makes one
// typed decision per kernel: plan() checks legality and returns either the
// reason it refuses or a plan holding everything the rewrite needs, and
// apply() turns that plan into clang::tooling::Replacements against the
// current text of the file. Refusals and notes are values; library code
// never prints them.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_PASS_TRANSFORM_H
#define CUDA_OPT_PASS_TRANSFORM_H

#include "cuda-opt/Analysis/DamagedCode.h"
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Support/FpModel.h"
#include "cuda-opt/Support/Refusal.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
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

/// What a transform decided for one kernel with one set of parameters:
/// everything apply() needs, computed once by the legality check. Each
/// transform derives its own plan type (see TransformWithPlan); a plan refers
/// into the ASTContext it was made from and is only valid with it.
struct TransformPlan {
  TransformPlan() = default;
  TransformPlan(TransformPlan &&) = default;
  TransformPlan(const TransformPlan &) = default;
  TransformPlan &operator=(TransformPlan &&) = default;
  TransformPlan &operator=(const TransformPlan &) = default;
  virtual ~TransformPlan();

  /// Remarks for the user on a legal step ("restrict-const: kernel 'k': added
  /// const only; ..."); the pipeline copies them into its StepRecord.
  std::vector<std::string> Notes;
};

/// Base class of every transform. Derive from TransformWithPlan rather than
/// from this class directly.
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

  /// With \p Plan (what plan() returned for \p Target) and the kernel's
  /// integer arguments at the launch the tuner measures (by parameter
  /// name), why the rewrite's new code would not run there
  /// (the condition of its specialised path is false: cooperative-rows'
  /// cache for rows longer than it holds), so that a simpler setting
  /// measures the same code; nothing when it would run or cannot tell. The
  /// tuner records such candidates as `inert` instead of measuring them.
  virtual std::optional<std::string>
  inertAt(const KernelTarget &Target, const TransformPlan &Plan,
          const llvm::StringMap<int64_t> &IntArgs) const {
    return std::nullopt;
  }

  /// True when the rewrite changes a host region's launches as a whole
  /// (fuse-launches): one kernel's replay cannot measure it, so tune
  /// measures it in its region phase, not among the kernel's candidates.
  virtual bool rewritesHostRegion() const { return false; }
  /// True when the rewrite and its legality look only at the kernel's body,
  /// never at its launch sites (unroll). Only such passes run on a kernel
  /// that is also launched from device code (KernelInfo::DeviceLaunches).
  virtual bool isKernelLocal() const { return false; }
  /// True when, for a kernel not launched in the file, the rewrite is legal
  /// only because \p Params assert something about those unseen launches
  /// (launch-bounds' explicit threads=N: a larger block then fails to
  /// launch). A user may make that assertion; a prediction made for them
  /// (tune without a GPU) must not.
  virtual bool assumesUnseenLaunches(const ParamValues &Params) const {
    return false;
  }

  /// What the rewrite does to the kernel's floating-point results
  /// (Support/FpModel.h). The pipeline refuses a step whose effect the
  /// fp-model in force does not allow, before plan() is asked.
  virtual FpEffect fpEffect(const ParamValues &Params) const {
    return FpEffect::Preserves;
  }

  /// Libraries the rewritten file must be linked with ("-lcusparse"), for
  /// the output's header and the tune report; none for most rewrites.
  virtual std::vector<std::string> linkFlags(const ParamValues &Params) const {
    return {};
  }

  /// The effect on one kernel, for rewrites whose effect depends on what the
  /// kernel computes (a reduction over integers stays exact, one over floats
  /// is reordered). The pipeline asks this one; the default is
  /// fpEffect(Params), which must be the worst case over all kernels.
  virtual FpEffect fpEffectOn(const KernelTarget &Target,
                              const ParamValues &Params) const {
    return fpEffect(Params);
  }

  /// The plan for rewriting this kernel with these parameters, if the
  /// transform may; otherwise an error whose message is the reason, phrased
  /// for the user ("kernel 'k' has no counted loop to unroll").
  virtual llvm::Expected<std::unique_ptr<TransformPlan>>
  plan(const KernelTarget &Target, const ParamValues &Params) const = 0;

  /// The edits for a plan that plan() returned for the same \p Target. Edits
  /// may touch the kernel and its launch sites, never unrelated code.
  virtual llvm::Expected<clang::tooling::Replacements>
  apply(const KernelTarget &Target, const TransformPlan &Plan) const = 0;

  /// Only the verdict of plan(): success if the transform may rewrite this
  /// kernel with these parameters, otherwise the reason.
  llvm::Error checkLegality(const KernelTarget &Target,
                            const ParamValues &Params) const {
    return plan(Target, Params).takeError();
  }
};

/// The base of a transform whose decision is a \p PlanT (derived from
/// TransformPlan): it implements makePlan() and applyPlan() on its own plan
/// type, and this class does the boxing and the downcast.
template <typename PlanT> class TransformWithPlan : public Transform {
  static_assert(std::is_base_of_v<TransformPlan, PlanT>,
                "a plan type derives from TransformPlan");

public:
  llvm::Expected<std::unique_ptr<TransformPlan>>
  plan(const KernelTarget &Target, const ParamValues &Params) const final {
    // Code clang rejected and nvcc compiles (Analysis/DamagedCode.h) is
    // never rewritten, whatever the transform.
    if (std::optional<std::string> Why = damagedCodeRefusal(
            Target.Ctx, Target.Kernel, isKernelLocal(), rewritesHostRegion()))
      return refuse(*Why);
    llvm::Expected<PlanT> P = makePlan(Target, Params);
    if (!P)
      return P.takeError();
    return std::make_unique<PlanT>(std::move(*P));
  }

  llvm::Expected<clang::tooling::Replacements>
  apply(const KernelTarget &Target, const TransformPlan &Plan) const final {
    // plan() made it, so it is a PlanT.
    return applyPlan(Target, static_cast<const PlanT &>(Plan));
  }

protected:
  /// The legality check: the plan, or the reason the transform refuses.
  virtual llvm::Expected<PlanT> makePlan(const KernelTarget &Target,
                                         const ParamValues &Params) const = 0;
  /// The edits that carry out \p Plan.
  virtual llvm::Expected<clang::tooling::Replacements>
  applyPlan(const KernelTarget &Target, const PlanT &Plan) const = 0;
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
