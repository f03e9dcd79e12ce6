//===- Tuner.cpp - cuda-opt tune: search, measure, keep the fastest ------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Search/Tuner.h"
#include "cuda-opt/Measure/TuneSpec.h"
#include "cuda-opt/Support/GpuProbe.h"
#include "cuda-opt/Transforms/Pipeline.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <set>

using namespace llvm;

namespace cuda_opt {

namespace {
void progress(const TuneOptions &Opts, StringRef Phase, unsigned Done,
              unsigned Total) {
  if (!Opts.ShowProgress || Total == 0)
    return;
  const unsigned Width = 30;
  unsigned Filled = Done * Width / Total;
  errs() << "\r" << Phase << " [" << std::string(Filled, '#')
         << std::string(Width - Filled, '.') << "] " << Done << "/" << Total
         << "   ";
  if (Done == Total)
    errs() << "\n";
  errs().flush();
}

/// Apply a pipeline without measuring: the fallback when there is no GPU.
Expected<TuneResult> rewriteOnly(const Toolchain &TC, const SourceInput &Input,
                                 const TuneOptions &Opts, StringRef Why) {
  std::string Spec =
      Opts.Pipeline.empty() ? defaultPipelineSpec().str() : Opts.Pipeline;
  Expected<std::vector<PassInvocation>> Pipeline = parsePipeline(Spec);
  if (!Pipeline)
    return Pipeline.takeError();
  PipelineOptions PO;
  PO.KernelName = Opts.KernelName;
  PO.Format = Opts.Format;
  PO.SkipIllegal = Opts.Pipeline.empty();
  Expected<PipelineResult> R = runPipeline(TC, Input, *Pipeline, PO);
  if (!R)
    return R.takeError();
  TuneResult T;
  T.Text = R->Text;
  T.NotMeasuredReason = Why.str();
  T.ChosenPipeline = Spec;
  T.Kernel = Opts.KernelName;
  for (const StepRecord &S : R->Steps) {
    CandidateRecord C;
    C.Pipeline = S.Pass;
    C.Id = S.Kernel;
    C.Status = S.Applied ? "applied" : "skipped";
    C.Detail = S.Reason;
    T.Candidates.push_back(C);
  }
  return T;
}
} // namespace

Expected<TuneResult> tune(const Toolchain &TC, const SourceInput &Input,
                          const TuneOptions &Opts) {
  auto Start = std::chrono::steady_clock::now();
  // Spec mode: the kernel and how to run it. The spec is checked even when
  // there is no GPU, so its mistakes surface early.
  std::optional<TuneSpec> Spec;
  std::unique_ptr<ParsedSource> Parsed;
  std::vector<KernelInfo> Kernels;
  if (!Opts.SpecPath.empty()) {
    Expected<std::unique_ptr<ParsedSource>> P = parseSource(TC, Input);
    if (!P)
      return P.takeError();
    Parsed = std::move(*P);
    Kernels = findKernels(Parsed->getASTContext());
    ErrorOr<std::unique_ptr<MemoryBuffer>> SpecBuf =
        MemoryBuffer::getFile(Opts.SpecPath);
    if (!SpecBuf)
      return createStringError(SpecBuf.getError(), "cannot read spec '%s': %s",
                               Opts.SpecPath.c_str(),
                               SpecBuf.getError().message().c_str());
    Expected<TuneSpec> S = TuneSpec::parse((*SpecBuf)->getBuffer(),
                                           Parsed->getASTContext(), Kernels);
    if (!S)
      return S.takeError();
    if (!Opts.KernelName.empty() && Opts.KernelName != S->Kernel)
      return createStringError(inconvertibleErrorCode(),
                               "--kernel=%s but the spec describes kernel '%s'",
                               Opts.KernelName.c_str(), S->Kernel.c_str());
    Spec = std::move(*S);
  }

  GpuProbeResult Gpus = probeGpus();
  TuneOptions Fallback = Opts;
  if (Spec)
    Fallback.KernelName = Spec->Kernel;
  if (Gpus.Devices.empty())
    return rewriteOnly(TC, Input, Fallback, "no CUDA GPU: " + Gpus.Reason);
  if (!Spec)
    return rewriteOnly(TC, Input, Fallback,
                       "found " + Gpus.Devices.front().Name +
                           ", but program-mode capture is not implemented "
                           "yet; give --spec=FILE.json to measure");
  if (Opts.WorkerPath.empty())
    return rewriteOnly(TC, Input, Fallback,
                       "the measurement worker cuda-opt-measure is not "
                       "installed next to cuda-opt");
  clang::ASTContext &Ctx = Parsed->getASTContext();
  const KernelInfo *K = lookupKernel(Kernels, Spec->Kernel);
  std::string Entry = kernelSymbol(Ctx, K->Decl);

  TuneResult Result;
  Result.Kernel = Spec->Kernel;
  Result.Device = Gpus.Devices.front().Name;

  // Candidates: rewrite with each pipeline; keep distinct legal texts.
  std::vector<VariantSource> Variants;
  VariantSource Orig;
  Orig.Id = "original";
  Orig.Text = Input.Text;
  Orig.Entry = Entry;
  Orig.Grid = Spec->Grid;
  Orig.Block = Spec->Block;
  Orig.Shmem = Spec->Shmem;
  Variants.push_back(Orig);
  std::set<std::string> Seen = {Input.Text};
  std::vector<std::string> Candidates = candidatePipelines(Opts.Budget * 4);

  // Cheap filter on the one parse we have: a candidate any of whose passes is
  // illegal for the original kernel is dropped without rewriting. (A pass
  // after another may still become illegal; runPipeline checks again.)
  std::vector<std::string> Legal;
  std::vector<std::vector<PassInvocation>> LegalPipelines;
  for (const std::string &P : Candidates) {
    Expected<std::vector<PassInvocation>> Pipeline = parsePipeline(P);
    if (!Pipeline) {
      consumeError(Pipeline.takeError());
      continue;
    }
    std::string Why;
    bool NeedsProgramMode = false;
    for (const PassInvocation &PI : *Pipeline) {
      if (PI.Pass->changesLaunchConfig(PI.Params)) {
        NeedsProgramMode = true;
        // Measured with the spec's grid and block, such a variant would run
        // a launch its rewrite does not describe (seen: coarsen faulting).
        Why = PI.str() + ": changes the launch configuration, which spec "
                         "mode cannot follow (it launches with the spec's "
                         "grid and block)";
        break;
      }
      if (Error E = PI.Pass->checkLegality(KernelTarget{Ctx, *K}, PI.Params)) {
        Why = PI.str() + ": " + toString(std::move(E));
        break;
      }
    }
    if (Why.empty()) {
      Legal.push_back(P);
      LegalPipelines.push_back(std::move(*Pipeline));
      continue;
    }
    CandidateRecord C;
    C.Pipeline = P;
    C.Status = NeedsProgramMode ? "needs-program-mode" : "illegal";
    C.Detail = Why;
    Result.Candidates.push_back(C);
  }

  // Rewrite the legal candidates in parallel: each parse is independent.
  std::vector<std::optional<std::string>> Texts(Legal.size());
  std::vector<std::string> Failures(Legal.size());
  {
    DefaultThreadPool Pool(hardware_concurrency());
    for (size_t I = 0; I < Legal.size(); ++I)
      Pool.async([&, I] {
        PipelineOptions PO;
        PO.KernelName = Spec->Kernel;
        PO.Format = Opts.Format;
        Expected<PipelineResult> R =
            runPipeline(TC, Input, LegalPipelines[I], PO);
        if (!R) {
          Failures[I] = toString(R.takeError());
          return;
        }
        Texts[I] = std::move(R->Text);
      });
    Pool.wait();
  }
  for (size_t I = 0; I < Legal.size(); ++I) {
    if (!Texts[I]) {
      CandidateRecord C;
      C.Pipeline = Legal[I];
      C.Status = "illegal";
      C.Detail = Failures[I];
      Result.Candidates.push_back(C);
      continue;
    }
    if (Variants.size() > Opts.Budget || !Seen.insert(*Texts[I]).second)
      continue; // Over budget, or the same source as an earlier candidate.
    VariantSource V = Orig;
    V.Id = "v" + std::to_string(Variants.size());
    V.Pipeline = Legal[I];
    V.Text = std::move(*Texts[I]);
    Variants.push_back(V);
  }
  progress(Opts, "rewrite", Legal.size(), Legal.size());

  CompileOptions CO;
  CO.SourcePath = Input.Path;
  CO.Flags = Input.Flags;
  CO.Arch = TC.GpuArch;
  CO.DependencyFingerprint =
      projectHeaderFingerprint(Parsed->getSourceManager(), TC);
  std::vector<std::string> CompileErrors;
  progress(Opts, "compile", 0, Variants.size());
  std::vector<std::string> Cubins =
      compileVariants(TC, Variants, CO, CompileErrors);
  progress(Opts, "compile", Variants.size(), Variants.size());
  if (Cubins[0].empty())
    return createStringError(inconvertibleErrorCode(),
                             "nvcc could not compile the original file: %s",
                             CompileErrors[0].c_str());

  MeasureOptions MO;
  MO.Worker = Opts.WorkerPath;
  MO.Runs = Spec->Runs;
  MO.RelTol = Spec->RelTol;
  // Verification of large buffers takes time per variant; the deadline is
  // for a worker that stopped making progress.
  MO.DeadlineSeconds = 120 + 20 * static_cast<unsigned>(Variants.size());
  MO.WorkDir = Opts.WorkDir;
  MO.Progress = [&](unsigned D, unsigned T) { progress(Opts, "measure", D, T); };
  Expected<std::vector<Measurement>> Ms =
      measureVariants(Variants, Cubins, Spec->argsToJob(), MO, Result.Device);
  if (!Ms)
    return Ms.takeError();

  Result.Measured = true;
  Result.MinBytes = Spec->MinBytes;
  Result.Flops = Spec->Flops;
  Result.VariantsMeasured = Variants.size() - 1;
  Result.BaselineMs = (*Ms)[0].MedianMs;
  size_t Best = 0;
  for (size_t I = 0; I < Variants.size(); ++I) {
    const Measurement &M = (*Ms)[I];
    CandidateRecord C;
    C.Id = Variants[I].Id;
    C.Pipeline = Variants[I].Pipeline;
    C.M = M;
    if (!CompileErrors[I].empty()) {
      C.Status = "compile-error";
      C.Detail = CompileErrors[I];
    } else if (!M.Verified) {
      C.Status = "rejected";
      C.Detail = M.Error;
    } else {
      C.Status = "verified";
      // A variant must beat the best so far by more than the baseline's own
      // run-to-run spread to count as faster.
      double Noise = (*Ms)[0].P90Ms - (*Ms)[0].P10Ms;
      if (I > 0 && M.MedianMs + Noise < (*Ms)[Best].MedianMs)
        Best = I;
    }
    Result.Candidates.push_back(C);
  }
  for (CandidateRecord &C : Result.Candidates)
    if (C.Id == Variants[Best].Id)
      C.Status = "fastest";
  Result.Text = Variants[Best].Text;
  Result.ChosenPipeline = Variants[Best].Pipeline;
  Result.BestMs = (*Ms)[Best].MedianMs;
  Result.Seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - Start)
                       .count();
  return Result;
}

} // namespace cuda_opt
