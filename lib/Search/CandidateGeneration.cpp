//===- CandidateGeneration.cpp - The variants cuda-opt tune measures -----===//
//
// Part of cuda-opt. Candidate pipelines (CandidateSpace.cpp) are filtered by
// the transforms' legality checks on the input's one parse, rewritten
// sharing their common prefixes (in parallel, with a shared precompiled
// preamble), and deduplicated; passes that replace the launch with a library
// call get the worker's "library" job when it can call it.
//
//===----------------------------------------------------------------------===//
#include "TunerInternal.h"

#include "WorkerProtocol.h"
#include "cuda-opt/Analysis/CudaOptPragma.h"
#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Capture/Capture.h"
#include "cuda-opt/Measure/LibraryVariant.h"
#include "cuda-opt/Measure/Measure.h"
#include "cuda-opt/Search/Ranker.h"
#include "cuda-opt/Search/TuningPolicy.h"
#include "cuda-opt/Support/GpuLock.h"
#include "cuda-opt/Support/Refusal.h"
#include "cuda-opt/Transforms/ConvCudnnEntry.h"
#include "cuda-opt/Transforms/CusparseSpmvEntry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ThreadPool.h"
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>

using namespace llvm;

namespace cuda_opt {
namespace tuner {

namespace {

/// cuDNN's root: --cudnn-root, $CUDNN_ROOT, else the CUDA path when it
/// holds cudnn.h; and the library to link in it.
Expected<std::pair<std::string, std::string>>
findCudnn(const Toolchain &TC, const TuneOptions &Opts) {
  std::string Root = Opts.CudnnRoot.empty() ? TC.CudaPath : Opts.CudnnRoot;
  SmallString<256> Header(Root);
  sys::path::append(Header, "include", "cudnn.h");
  if (sys::fs::exists(Header))
    for (const char *Dir : {"lib", "lib64"})
      for (const char *Name : {"libcudnn.so", "libcudnn.so.9"}) {
        SmallString<256> Lib(Root);
        sys::path::append(Lib, Dir, Name);
        if (sys::fs::exists(Lib))
          return std::pair{Root, std::string(Lib)};
      }
  return createStringError(
      inconvertibleErrorCode(),
      "cuDNN was not found under " + Root +
          " (include/cudnn.h and lib/libcudnn.so*); pass --cudnn-root=DIR or "
          "set CUDNN_ROOT (pip's nvidia-cudnn-cu13 keeps it in "
          "site-packages/nvidia/cudnn)");
}

/// A library call the worker makes like a region's: \p Text (a library
/// call's helper and its extern "C" entries) built with \p Comp into a
/// shared library under WorkDir/\p Folder (cached by content), called at
/// \p Entry with the captured launch's arguments.
Expected<json::Object> entryLibraryCall(const Toolchain &TC, StringRef Text,
                                        const CompileOptions &Comp,
                                        const TuneOptions &Opts,
                                        StringRef Folder, StringRef Entry) {
  SmallString<256> Dir(Opts.WorkDir);
  sys::path::append(Dir, Folder);
  std::vector<std::string> Errors;
  std::vector<std::string> Libs =
      compileRegionLibraries(TC, {Text.str()}, Comp, Dir, Errors);
  if (Libs[0].empty())
    return createStringError(inconvertibleErrorCode(), Errors[0]);
  return json::Object{{worker::library::Kind, worker::library::KindRegion},
                      {worker::library::Path, Libs[0]},
                      {worker::library::Entry, Entry.str()}};
}

/// conv-cudnn: the captured launch run through cuDNN, built into a library
/// the worker calls like a region (ConvCudnnEntry.h). The text is the same
/// for every algorithm, so the build is cached after the first.
Expected<json::Object> convLibraryCall(const Toolchain &TC,
                                       clang::ASTContext &Ctx,
                                       const KernelInfo &K, int64_t Algo,
                                       const Harness &H,
                                       const TuneOptions &Opts) {
  Expected<std::pair<std::string, std::string>> Cudnn = findCudnn(TC, Opts);
  if (!Cudnn)
    return Cudnn.takeError();
  const CapturedLaunch &L = H.Original;
  auto Param = [&](unsigned I) -> std::optional<int64_t> {
    if (I >= L.Params.size() || I >= K.Decl->getNumParams())
      return std::nullopt;
    return capturedInteger(L.Params[I], K.Decl->getParamDecl(I)->getType());
  };
  Expected<std::string> Text =
      convCudnnEntryText(Ctx, K, L.Grid, L.Block, Param);
  if (!Text)
    return Text.takeError();
  CompileOptions Comp;
  Comp.Arch = TC.GpuArch;
  SmallString<256> Include(Cudnn->first), LibDir(Cudnn->second);
  sys::path::append(Include, "include");
  sys::path::remove_filename(LibDir);
  // nvcc takes no .so.9 argument: the library goes to the linker as is.
  Comp.Flags = {"-I",       std::string(Include), "-Xlinker", "--no-as-needed",
                "-Xlinker", Cudnn->second,         "-Xlinker",
                "-rpath," + std::string(LibDir)};
  return entryLibraryCall(TC, *Text, Comp, Opts, "conv-cudnn",
                          convCudnnEntryName(Algo));
}

/// cusparse-spmv: the captured launch run through cuSPARSE, built into a
/// library the worker calls like a region (CusparseSpmvEntry.h), one entry
/// per algorithm sharing one build.
Expected<json::Object> spmvLibraryCall(const Toolchain &TC,
                                       clang::ASTContext &Ctx,
                                       const KernelInfo &K, int64_t Alg,
                                       const TuneOptions &Opts) {
  Expected<std::string> Text = cusparseSpmvEntryText(Ctx, K);
  if (!Text)
    return Text.takeError();
  CompileOptions Comp;
  Comp.Arch = TC.GpuArch;
  Comp.Flags = {"-lcusparse"};
  return entryLibraryCall(TC, *Text, Comp, Opts, "cusparse-spmv",
                          cusparseSpmvEntryName(Alg));
}

/// The measurement of a pass that replaces the kernel's launch with a
/// library call (LibraryVariant.h), or why it cannot be measured.
Expected<json::Object> libraryCallFor(const Toolchain &TC,
                                      clang::ASTContext &Ctx,
                                      const KernelInfo &K,
                                      const PassInvocation &PI,
                                      const Harness &H,
                                      const TuneOptions &Opts) {
  if (PI.Pass->getName() == "conv-cudnn") {
    if (Opts.DryRun)
      return createStringError(inconvertibleErrorCode(),
                               "measured by running cuDNN on the captured "
                               "launch (not in a dry run)");
    if (!H.ProgramMode)
      return createStringError(inconvertibleErrorCode(),
                               "spec mode has no captured launch to take the "
                               "convolution's sizes from");
    return convLibraryCall(TC, Ctx, K, PI.Params.get("algo"), H, Opts);
  }
  if (PI.Pass->getName() == "cusparse-spmv") {
    if (Opts.DryRun) {
      // Tests only: the library's source as tune would build it, so a test
      // can compile it without a GPU (test/Tune/dry-run-library-entry.test).
      if (const char *Dir = std::getenv("CUDA_OPT_DRY_RUN_LIBRARY_DIR"))
        if (Expected<std::string> Text = cusparseSpmvEntryText(Ctx, K)) {
          SmallString<256> Path(Dir);
          sys::path::append(Path, "cusparse-spmv-" + K.name() + ".cu");
          std::error_code EC;
          raw_fd_ostream OS(Path, EC);
          if (!EC)
            OS << *Text;
        } else {
          consumeError(Text.takeError());
        }
      return createStringError(inconvertibleErrorCode(),
                               "measured by running cuSPARSE on the captured "
                               "launch (not in a dry run)");
    }
    if (!H.ProgramMode)
      return createStringError(inconvertibleErrorCode(),
                               "spec mode has no captured launch whose "
                               "matrix cuSPARSE could read");
    return spmvLibraryCall(TC, Ctx, K, PI.Params.get("alg"), Opts);
  }
  if (PI.Pass->getName() != "gemm-specialize")
    return createStringError(inconvertibleErrorCode(),
                             "the worker calls only cudaoptGemm, cuDNN and "
                             "cuSPARSE so far");
  if (Opts.DryRun)
    return createStringError(inconvertibleErrorCode(),
                             "measured by calling cudaoptGemm on the captured "
                             "launch (not in a dry run)");
  if (!H.ProgramMode)
    return createStringError(inconvertibleErrorCode(),
                             "spec mode has no captured launch to take the "
                             "GEMM's sizes from");
  if (Opts.GemmLibraryPath.empty() || !sys::fs::exists(Opts.GemmLibraryPath))
    return createStringError(
        inconvertibleErrorCode(),
        "the runtime GEMM library (libcudaopt_gemm.so) was not found next to "
        "the worker; build it from runtime/gemm and pass --gemm-library=PATH");
  Expected<json::Object> Call =
      gemmLibraryCall(Ctx, K, H.Original, Opts.GemmLibraryPath);
  if (Call && PI.Params.has("f32-cublas") && PI.Params.get("f32-cublas")) {
    (*Call)[worker::library::Reassociate] = true;
    // Each cuBLASLt candidate is its own variant, timed and verified.
    if (PI.Params.has("lt-algo") && PI.Params.get("lt-algo"))
      (*Call)[worker::library::LibraryAlgo] = PI.Params.get("lt-algo");
  }
  return Call;
}

/// One pipeline prefix of the candidates being rewritten (the root: none).
struct PrefixNode {
  const PassInvocation *Pass = nullptr; ///< The step from the parent.
  std::string Text;                     ///< The prefix's rewrite...
  std::optional<std::string> Failure;   ///< ...or why it fails.
  /// Why the prefix's text does not parse for a next step: every longer
  /// pipeline through it fails with this.
  std::optional<std::string> ContinueFailure;
  std::map<std::string, size_t> Children; ///< By PassInvocation::str().
};

/// Rewrites kernel \p Kernel's candidate pipelines \p Pipelines into
/// \p Texts (or the reason in \p Failures), sharing their common prefixes:
/// a pipeline `a,b,c` continues from the text of `a,b`, and one parse of
/// that text serves every pipeline that continues it. Each text and each
/// message is runPipeline's on the whole pipeline (one step at a time
/// through runPipeline itself). The first steps all work on \p Parsed, the
/// input's parse; on this thread, since an AST is not shared between
/// threads. A dry run of the corpus then parses a few prefixes per kernel
/// instead of the input again for every candidate (bench/JOURNAL.md).
void rewriteSharingPrefixes(
    const Toolchain &TC, const SourceInput &Input, ParsedSource &Parsed,
    const std::string &Kernel,
    const std::vector<const std::vector<PassInvocation> *> &Pipelines,
    const PipelineOptions &PO, SharedPreamble &Preamble,
    std::vector<std::optional<std::string>> &Texts,
    std::vector<std::string> &Failures) {
  assert(!PO.CheckFinalText && "a prefix's final text is not re-checked");
  std::vector<PrefixNode> Nodes(1);
  Nodes[0].Text = Input.Text;
  std::vector<std::vector<size_t>> Paths(Pipelines.size());
  for (size_t I = 0; I < Pipelines.size(); ++I) {
    size_t Node = 0;
    for (const PassInvocation &PI : *Pipelines[I]) {
      auto [It, New] = Nodes[Node].Children.try_emplace(PI.str(), Nodes.size());
      Node = It->second;
      if (New) {
        Nodes.emplace_back();
        Nodes.back().Pass = &PI;
      }
      Paths[I].push_back(Node);
    }
  }

  // The children of a prefix, each one runPipeline step on its parse; the
  // prefixes that others continue are returned.
  auto Expand = [&](size_t Node, ParsedSource &Parse) {
    std::vector<size_t> Continued;
    SourceInput In = Input;
    In.Text = Nodes[Node].Text;
    for (const auto &[Key, C] : Nodes[Node].Children) {
      PipelineOptions Step = PO;
      Step.InitialParse = &Parse;
      Expected<PipelineResult> R = runPipeline(TC, In, *Nodes[C].Pass, Step);
      if (!R) {
        Nodes[C].Failure = toString(R.takeError());
        continue;
      }
      Nodes[C].Text = std::move(R->Text);
      if (!Nodes[C].Children.empty())
        Continued.push_back(C);
    }
    return Continued;
  };
  // A prefix that others continue is parsed as runPipeline re-parses a
  // step's output for the next step.
  auto ParseAndExpand = [&](size_t Node) -> std::vector<size_t> {
    SourceInput In = Input;
    In.Text = Nodes[Node].Text;
    std::shared_ptr<const ParsePreamble> P = Preamble.get();
    Expected<std::unique_ptr<ParsedSource>> Parse =
        P ? P->parse(TC, In) : parseSource(TC, In, CudaSide::Host);
    if (!Parse) {
      Nodes[Node].ContinueFailure = toString(uncompilableRewriteError(
          Nodes[Node].Pass->str(), Kernel, toString(Parse.takeError())));
      return {};
    }
    return Expand(Node, **Parse);
  };

  // One depth at a time; the prefixes of a depth are parsed in parallel.
  std::vector<size_t> Depth = Expand(0, Parsed);
  DefaultThreadPool Pool(hardware_concurrency());
  while (!Depth.empty()) {
    std::vector<std::vector<size_t>> Next(Depth.size());
    for (size_t J = 0; J < Depth.size(); ++J)
      Pool.async([&, J] { Next[J] = ParseAndExpand(Depth[J]); });
    Pool.wait();
    Depth.clear();
    for (const std::vector<size_t> &N : Next)
      Depth.insert(Depth.end(), N.begin(), N.end());
  }

  for (size_t I = 0; I < Pipelines.size(); ++I) {
    const std::vector<size_t> &Path = Paths[I];
    if (Path.empty()) {
      Texts[I] = Input.Text;
      continue;
    }
    for (size_t J = 0; J < Path.size(); ++J) {
      const PrefixNode &N = Nodes[Path[J]];
      if (N.Failure) {
        Failures[I] = *N.Failure;
        break;
      }
      if (J + 1 < Path.size() && N.ContinueFailure) {
        Failures[I] = *N.ContinueFailure;
        break;
      }
      if (J + 1 == Path.size())
        Texts[I] = N.Text;
    }
  }
}

} // namespace

/// The candidates for kernel \p K: every legal pipeline of the candidate
/// space rewritten (in parallel; identical rewrites once), up to the
/// budget. Index 0 of the result is the original. Illegal candidates are
/// recorded in \p Result; \p NeedLaunch says which variants change the
/// launch (program mode runs their own program to learn it).
CandidateSet generateVariants(const Toolchain &TC, const SourceInput &Input,
                              ParsedSource &Parsed, const KernelInfo &K,
                              const Harness &H, const TuneOptions &Opts,
                              TuneResult &Result,
                              SharedPreamble *SharedPrelude) {
  clang::ASTContext &Ctx = Parsed.getASTContext();
  std::string Kernel = K.name();
  std::string Entry = launchedKernelSymbol(Ctx, K);
  auto Record = [&](CandidateRecord C) {
    C.Kernel = Kernel;
    Result.Candidates.push_back(std::move(C));
  };

  std::vector<VariantSource> Variants;
  VariantSource Orig;
  Orig.Id = "original";
  Orig.Text = Input.Text;
  Orig.Entry = Entry;
  Orig.Grid = H.Grid;
  Orig.Block = H.Block;
  Orig.Shmem = H.Shmem;
  Variants.push_back(Orig);
  // Code the host-side parse does not compile (under a __CUDA_ARCH__
  // condition) is invisible to every pass's analysis: each would be
  // refused when rewriting, so no candidate is tried.
  if (std::optional<std::string> Arch = archConditionalRefusal(Ctx, K)) {
    CandidateRecord C;
    C.Status = "illegal";
    C.Detail = *Arch;
    Record(C);
    return {std::move(Variants), std::vector<bool>{false}, nullptr};
  }
  std::set<std::string> Seen = {Input.Text};
  // Every candidate of the space; the legal ones are ranked below and the
  // budget takes the first.
  std::vector<std::string> Candidates =
      Opts.Candidates.empty()
          ? candidatePipelines(std::numeric_limits<unsigned>::max())
          : Opts.Candidates;

  // Cheap filter on the one parse we have: a candidate any of whose passes is
  // illegal for the original kernel is dropped without rewriting. (A pass
  // after another may still become illegal; runPipeline checks again.)
  struct LegalCandidate {
    std::string Pipeline;
    std::vector<PassInvocation> Passes;
    bool NeedsLaunch = false; ///< Its launch is learned from a program run.
    std::optional<json::Object> Library;
  };
  std::vector<LegalCandidate> Legal;
  // A pass's plan on the input, and whether its new code would run, are the
  // same in every pipeline that holds the pass (restrict-const heads
  // hundreds): worked out once per pass and parameters.
  struct PassVerdict {
    std::optional<std::string> Refusal; ///< plan()'s error.
    bool AliasRefusal = false;          ///< The error is an AliasRefusal.
    std::optional<std::string> Inert;   ///< inertAt() on the plan.
  };
  std::map<std::string, PassVerdict> Verdicts;
  // The fp-model in force for this kernel (its pragma's pin, else
  // --fp-model): a step it does not allow is refused here, before a
  // rewrite, so such candidates do not take the budget's places (under
  // strict, most of the ranker's first picks reorder sums). An unreadable
  // pin is left to the pipeline, which refuses every step with its message.
  std::string PinError;
  std::optional<FpModel> Pin = kernelFpModelPin(Ctx, K.Decl, PinError);
  const FpModel KernelModel = Pin ? *Pin : Opts.Model;
  auto FpRefusal = [&](const PassInvocation &PI) -> std::optional<std::string> {
    FpEffect Effect = PI.Pass->fpEffectOn(KernelTarget{Ctx, K}, PI.Params);
    if (!PinError.empty() || fpModelAllows(KernelModel, Effect))
      return std::nullopt;
    return fpModelRefusal(Effect, KernelModel, Kernel);
  };
  auto VerdictOn = [&](const PassInvocation &PI) -> const PassVerdict & {
    auto [It, New] = Verdicts.try_emplace(PI.str());
    if (!New)
      return It->second;
    PassVerdict &V = It->second;
    if ((V.Refusal = FpRefusal(PI)))
      return V;
    Expected<std::unique_ptr<TransformPlan>> Plan =
        PI.Pass->plan(KernelTarget{Ctx, K}, PI.Params);
    if (!Plan) {
      Error E = Plan.takeError();
      V.AliasRefusal = E.isA<AliasRefusal>();
      V.Refusal = toString(std::move(E));
    } else {
      V.Inert = PI.Pass->inertAt(KernelTarget{Ctx, K}, **Plan, H.IntArgs);
    }
    return V;
  };
  for (const std::string &P : Candidates) {
    Expected<std::vector<PassInvocation>> Pipeline = parsePipeline(P);
    if (!Pipeline) {
      consumeError(Pipeline.takeError());
      continue;
    }
    std::string Why;
    bool ChangesLaunch = false, NeedsProgramMode = false;
    bool LibraryCall = false;
    std::optional<json::Object> Library;
    bool AfterRestrict = false; // restrict-const ran earlier in the pipeline
    bool InertHere = false;    // legal, but its new code would not run
    for (const PassInvocation &PI : *Pipeline) {
      if (PI.Pass->replacesLaunch(PI.Params)) {
        if (std::optional<std::string> Fp = FpRefusal(PI)) {
          Why = PI.str() + ": " + *Fp;
          break;
        }
        if (Error E = PI.Pass->checkLegality(KernelTarget{Ctx, K}, PI.Params)) {
          Why = PI.str() + ": " + toString(std::move(E));
          break;
        }
        LibraryCall = true;
        Expected<json::Object> Call = libraryCallFor(TC, Ctx, K, PI, H, Opts);
        if (Call) {
          Library = std::move(*Call);
          continue; // Measured by calling the library on the replay.
        }
        Why = PI.str() +
              ": replaces the kernel's launch with a library call "
              "that cannot be measured here: " +
              toString(Call.takeError());
        break;
      }
      if (PI.Pass->changesLaunchConfig(PI.Params)) {
        ChangesLaunch = true;
        if (!H.ProgramMode) {
          // Measured with the spec's grid and block, such a variant would
          // run a launch its rewrite does not describe.
          NeedsProgramMode = true;
          Why = PI.str() + ": changes the launch configuration, which spec "
                           "mode cannot follow (it launches with the spec's "
                           "grid and block)";
          break;
        }
      }
      const PassVerdict &V = VerdictOn(PI);
      if (V.Refusal) {
        // Possible aliasing that restrict-const may remove: the pipeline's
        // own check after the re-parse decides.
        if (AfterRestrict && V.AliasRefusal)
          continue;
        Why = PI.str() + ": " + *V.Refusal;
        break;
      }
      AfterRestrict |= PI.Pass->getName() == "restrict-const";
      if (V.Inert) {
        Why = PI.str() + ": " + *V.Inert;
        InertHere = true;
        break;
      }
    }
    if (Why.empty()) {
      const bool NeedsLaunch = ChangesLaunch && !Library;
      Legal.push_back({P, std::move(*Pipeline), NeedsLaunch, std::move(Library)});
      continue;
    }
    CandidateRecord C;
    C.Pipeline = P;
    C.Status = LibraryCall        ? "library-call"
               : NeedsProgramMode ? "needs-program-mode"
               : InertHere        ? "inert"
                                  : "illegal";
    C.Detail = Why;
    Record(C);
  }

  // The learned policy decides which legal candidates the budget keeps;
  // rewriting stops a little past the budget (identical rewrites are
  // dropped below, so some slack keeps the budget filled).
  if (!Opts.Candidates.empty()) {
    Result.Policy = "the pipelines given with --candidates, in order";
  } else if (Opts.Ranker) {
    KernelFeatures Features =
        H.Model ? H.Model->features() : buildKernelModel(Ctx, K).features();
    const std::string Signature = harnessSignature(H);
    std::vector<std::string> Pipelines;
    for (const LegalCandidate &L : Legal)
      Pipelines.push_back(L.Pipeline);
    // No predicted_speedup from the ranker: its scores order candidates
    // but are not calibrated speedups (relu's best predicted 24x, measured
    // 1.6x; docs/policy.md).
    std::vector<LegalCandidate> Ranked;
    for (size_t I : Opts.Ranker->rank(Features, Signature, Pipelines))
      Ranked.push_back(std::move(Legal[I]));
    Legal = std::move(Ranked);
    Result.Policy = Opts.Ranker->describe();
  } else if (Opts.LearnedPolicy) {
    const TuningPolicy &Policy = TuningPolicy::learned();
    KernelFeatures Features =
        H.Model ? H.Model->features() : buildKernelModel(Ctx, K).features();
    std::vector<std::string> Pipelines;
    for (const LegalCandidate &L : Legal)
      Pipelines.push_back(L.Pipeline);
    for (const std::string &P : Pipelines)
      if (std::optional<double> S = Policy.predictSpeedup(Features, P))
        Result.Predicted[{Kernel, P}] = *S;
    std::vector<LegalCandidate> Ranked;
    for (size_t I : Policy.rank(Features, Pipelines))
      Ranked.push_back(std::move(Legal[I]));
    Legal = std::move(Ranked);
    Result.Policy = Policy.describe();
  } else {
    Result.Policy = "round-robin over the transforms";
  }
  const size_t RewriteCap = 2 * static_cast<size_t>(Opts.Budget) + 8;
  for (size_t I = RewriteCap; I < Legal.size(); ++I) {
    CandidateRecord C;
    C.Pipeline = Legal[I].Pipeline;
    C.Status = "over-budget";
    C.Detail = "legal, ranked after the budget's candidates";
    Record(C);
  }
  if (Legal.size() > RewriteCap)
    Legal.resize(RewriteCap);

  // Rewrite the legal candidates; the parses share the input's precompiled
  // #include prelude.
  auto PhaseStart = std::chrono::steady_clock::now();
  SharedPreamble OwnPrelude(TC, Input);
  SharedPreamble &Prelude = SharedPrelude ? *SharedPrelude : OwnPrelude;
  std::vector<std::optional<std::string>> Texts(Legal.size());
  std::vector<std::string> Failures(Legal.size());
  PipelineOptions PO;
  PO.KernelName = Kernel;
  PO.Format = Opts.Format;
  PO.Model = Opts.Model;
  PO.CheckFinalText = false; // nvcc compiles every variant next.
  if (std::getenv("CUDA_OPT_NO_PREFIX_SHARING")) {
    // For comparisons: every pipeline from the input's text, in parallel.
    PO.Preamble = Prelude.get();
    DefaultThreadPool Pool(hardware_concurrency());
    for (size_t I = 0; I < Legal.size(); ++I)
      Pool.async([&, I] {
        Expected<PipelineResult> R =
            runPipeline(TC, Input, Legal[I].Passes, PO);
        if (!R) {
          Failures[I] = toString(R.takeError());
          return;
        }
        Texts[I] = std::move(R->Text);
      });
    Pool.wait();
  } else {
    std::vector<const std::vector<PassInvocation> *> Pipelines;
    for (const LegalCandidate &L : Legal)
      Pipelines.push_back(&L.Passes);
    rewriteSharingPrefixes(TC, Input, Parsed, Kernel, Pipelines, PO, Prelude,
                           Texts, Failures);
  }
  // With --online-rounds, every rewritten candidate stays: the later
  // rounds choose among them by what the first measured (Tuner.cpp).
  const size_t Keep = onlineRoundsPossible(Opts) ? RewriteCap : Opts.Budget;
  std::vector<bool> NeedLaunch = {false};
  for (size_t I = 0; I < Legal.size(); ++I) {
    if (!Texts[I]) {
      CandidateRecord C;
      C.Pipeline = Legal[I].Pipeline;
      C.Status = "illegal";
      C.Detail = Failures[I];
      Record(C);
      continue;
    }
    if (Variants.size() > Keep || !Seen.insert(*Texts[I]).second)
      continue; // Over budget, or the same source as an earlier candidate.
    VariantSource V = Orig;
    V.Id = "v" + std::to_string(Variants.size());
    V.Pipeline = Legal[I].Pipeline;
    V.Text = std::move(*Texts[I]);
    V.Library = Legal[I].Library;
    Variants.push_back(V);
    NeedLaunch.push_back(Legal[I].NeedsLaunch);
  }
  progress(Opts, "rewrite", Legal.size(), Legal.size());
  Result.addPhase("rewrite", PhaseStart);
  // Program mode parses the variants again (their launches).
  std::shared_ptr<const ParsePreamble> Preamble =
      Opts.DryRun ? nullptr : Prelude.get();
  return {std::move(Variants), std::move(NeedLaunch), std::move(Preamble)};
}

} // namespace tuner
} // namespace cuda_opt
