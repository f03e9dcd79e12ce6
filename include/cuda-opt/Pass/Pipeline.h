//===- Pipeline.h - Parse and run a pipeline of transforms ------*- C++ -*-===//
//
// Part of cuda-opt. `--passes='restrict-const,unroll{factor=4}'` becomes a
// list of PassInvocations; runPipeline applies them kernel by kernel,
// re-parsing between steps, formats the edited ranges, and re-checks that the
// result compiles on both the host and the device side.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_PASS_PIPELINE_H
#define CUDA_OPT_PASS_PIPELINE_H

#include "cuda-opt/Frontend/ParsePreamble.h"
#include "cuda-opt/Frontend/SourceParser.h"
#include "cuda-opt/Pass/Transform.h"
#include "llvm/Support/JSON.h"
#include <functional>

namespace cuda_opt {

/// One element of a pipeline: a transform and its validated parameters.
struct PassInvocation {
  std::shared_ptr<Transform> Pass;
  ParamValues Params;
  std::string str() const; ///< "unroll{factor=4}"
};

/// Parse "p1,p2{a=1,b=2}" (parameters separated by ',' or ' '). Unknown
/// passes, unknown parameters and out-of-range values are errors that list
/// what is valid.
llvm::Expected<std::vector<PassInvocation>>
parsePipeline(llvm::StringRef Spec);

/// The weakest fp-model that allows every step of \p Steps on \p Target
/// (Transform::fpEffectOn), judged on the original kernel: whether its
/// reductions are over floats does not change along the pipeline.
FpModel modelNeededFor(const KernelTarget &Target,
                       llvm::ArrayRef<PassInvocation> Steps);

/// Appends the link flags (Transform::linkFlags) of \p PI to \p Flags,
/// those not there yet, in first-use order; true if \p PI needs any.
bool appendLinkFlags(const PassInvocation &PI, std::vector<std::string> &Flags);
/// The same for every step of \p Pipeline ("restrict-const,cusparse-spmv{
/// alg=1}"; a region's "region #N: ..." label too); false for a pipeline
/// that does not parse.
bool appendLinkFlags(llvm::StringRef Pipeline, std::vector<std::string> &Flags);

/// The output's header line naming the libraries to link ("// cuda-opt:
/// link with -lcusparse (cusparse-spmv).\n"), or "" for no flags.
/// \p Passes names the rewrites that need them.
std::string linkFlagsHeader(llvm::ArrayRef<std::string> Flags,
                            llvm::ArrayRef<std::string> Passes);

/// What happened to one (pass, kernel) pair.
struct StepRecord {
  std::string Pass;   ///< "unroll{factor=4}"
  std::string Kernel;
  bool Applied = false;
  std::string Reason; ///< Why it was not applied.
  unsigned Edits = 0;
  /// What the applied rewrite does to floating-point results.
  FpEffect Effect = FpEffect::Preserves;
  /// The transform's remarks on an applied step (TransformPlan::Notes), for
  /// the tool to show; the library never prints them.
  std::vector<std::string> Notes;
};

struct PipelineResult {
  std::string Text; ///< The rewritten file.
  std::vector<StepRecord> Steps;
  llvm::json::Value toJSON() const;
};

struct PipelineOptions {
  /// Only this kernel; empty means every kernel in the file.
  std::string KernelName;
  /// Run clang-format on the edited ranges.
  bool Format = true;
  /// What the passes may do to floating-point results (Support/FpModel.h);
  /// a kernel's `#pragma cuda_opt fp_model(...)` overrides it for that kernel.
  FpModel Model = FpModel::Reassoc;
  /// Best effort: a pass that is legal for no kernel is recorded as skipped
  /// instead of failing the run (used by the default pipeline).
  bool SkipIllegal = false;
  /// Re-parse the final text (host and device side) to prove it compiles.
  /// The tuner turns this off: it compiles every variant with nvcc anyway
  /// and keeps only variants that compiled and verified, so the extra two
  /// parses per candidate (most of the rewrite phase) buy nothing there.
  /// Steps followed by another step are always re-parsed (the next step
  /// needs the AST).
  bool CheckFinalText = true;
  /// Host-side parses of texts that share the input's #include prelude go
  /// through this precompiled preamble (the tuner builds one per kernel).
  /// With CheckFinalText off, steps followed by another are re-parsed on
  /// the host side only, for the next step's AST.
  std::shared_ptr<const ParsePreamble> Preamble;
  /// A host-side parse of the input's text to start from instead of parsing
  /// it again, for a pipeline that continues where another left off (the
  /// tuner's candidates share their common prefixes this way). Borrowed:
  /// runPipeline reads it until its first rewrite, and no other thread may
  /// use it meanwhile. Needs a KernelName; that kernel is not looked up
  /// first, so a parse without it fails the first step as a kernel that
  /// disappeared after an earlier pass, as in the whole pipeline.
  ParsedSource *InitialParse = nullptr;
  /// Called with each step's record as soon as the step is decided (applied
  /// or skipped), also when a later step then fails the run and no
  /// PipelineResult comes back: a tool that shows notes from here shows them
  /// in every case.
  std::function<void(const StepRecord &)> OnStep;
};

/// The pipeline `cuda-opt tune` applies when it cannot measure: rewrites that
/// are never slower when legal. Each is skipped where it is not legal.
llvm::StringRef defaultPipelineSpec();

/// Run \p Passes over \p Input. Fails when a pass is illegal for the named
/// kernel (or for every kernel, when none is named), or when a transform
/// produced code that does not compile (reported as a cuda-opt bug).
llvm::Expected<PipelineResult>
runPipeline(const Toolchain &TC, const SourceInput &Input,
            llvm::ArrayRef<PassInvocation> Passes, const PipelineOptions &Opts);

/// The error of a step whose rewrite does not parse: a cuda-opt bug, with the
/// parser's \p Messages.
llvm::Error uncompilableRewriteError(llvm::StringRef Pass,
                                     llvm::StringRef Kernel,
                                     llvm::StringRef Messages);

/// Apply \p Replaces to \p Code and format the touched ranges in the style of
/// the file (a .clang-format next to it, else LLVM).
llvm::Expected<std::string>
applyAndFormat(llvm::StringRef Path, llvm::StringRef Code,
               const clang::tooling::Replacements &Replaces, bool Format);

} // namespace cuda_opt

#endif // CUDA_OPT_PASS_PIPELINE_H
