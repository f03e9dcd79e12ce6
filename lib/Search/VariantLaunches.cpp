//===- VariantLaunches.cpp - The launch of variants that change it -------===//
//
// Part of cuda-opt. In program mode a variant whose host code changes the
// kernel's launch (block-size, coarsen, vectorize, grid-stride) is measured
// with the launch its own program makes: learned from one config-mode run
// of the original program carrying every variant's launch expressions (the
// launch probe, opt-in), or from a config-mode run of the variant's own
// program per distinct host code.
//
//===----------------------------------------------------------------------===//
#include "TunerInternal.h"

#include "cuda-opt/Measure/LibraryVariant.h"
#include "cuda-opt/Support/GpuLock.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ThreadPool.h"
#include <cstdlib>
#include <map>
#include <mutex>

using namespace llvm;

namespace cuda_opt {
namespace tuner {

namespace {

/// The input with a variant's text (same path and flags).
SourceInput variantInput(const SourceInput &Input, const VariantSource &V) {
  SourceInput VI = Input;
  VI.Text = V.Text;
  return VI;
}

/// Parse a variant, through the input's preamble when there is one.
Expected<std::unique_ptr<ParsedSource>>
parseVariant(const Toolchain &TC, const SourceInput &VI,
             const ParsePreamble *Preamble) {
  return Preamble ? Preamble->parse(TC, VI) : parseSource(TC, VI);
}

} // namespace

/// The launch probe (docs/tuning.md): launch-changing variants
/// whose host code differs from the original's only inside the kernel's
/// launch statements (same callee, stream and argument texts, same
/// parameter sizes) get their launch from one config-mode run of the
/// original program that evaluates every such variant's <<<...>>>
/// expressions at the site (checked against the per-variant runs on the
/// GPU: test/GPU/program/launch-probe.test). CUDA_OPT_NO_LAUNCH_PROBE=1
/// turns it off. Returns
/// which variants got their launch; a failed probe run leaves them all to
/// the per-variant runs.
std::vector<bool> probeVariantLaunches(
    const Toolchain &TC, const SourceInput &Input, ParsedSource &Parsed,
    const KernelInfo &K, const Harness &H, std::vector<VariantSource> &Vs,
    const std::vector<bool> &Need, const ParsePreamble *Preamble) {
  std::vector<bool> Done(Vs.size(), false);
  if (std::getenv("CUDA_OPT_NO_LAUNCH_PROBE"))
    return Done;
  const ProbeBase Base = probeBase(Parsed.getASTContext(), K, Input.Text);
  std::vector<std::vector<LaunchProbe>> Probes(Base.Launches.size());
  std::vector<bool> Probed(Vs.size(), false);
  std::mutex M;
  {
    DefaultThreadPool Pool(hardware_concurrency());
    for (size_t I = 0; I < Vs.size(); ++I) {
      if (!Need[I])
        continue;
      Pool.async([&, I] {
        SourceInput VI = variantInput(Input, Vs[I]);
        Expected<std::unique_ptr<ParsedSource>> P =
            parseVariant(TC, VI, Preamble);
        if (!P) {
          consumeError(P.takeError());
          return;
        }
        clang::ASTContext &VC = (*P)->getASTContext();
        std::vector<KernelInfo> Ks = findKernels(VC);
        const KernelInfo *VK = lookupKernel(Ks, K.name());
        if (!VK)
          return;
        Expected<std::vector<LaunchProbe>> Sites =
            launchProbesFor(Base, VC, *VK, VI.Text, static_cast<int>(I));
        if (!Sites) {
          consumeError(Sites.takeError()); // Its own program is run instead.
          return;
        }
        std::lock_guard<std::mutex> G(M);
        for (size_t S = 0; S < Sites->size(); ++S)
          Probes[S].push_back((*Sites)[S]);
        Probed[I] = true;
      });
    }
    Pool.wait();
  }
  if (llvm::none_of(Probed, [](bool B) { return B; }))
    return Done;
  CaptureOptions CO = H.Capture;
  CO.Tag = K.name() + "-probe";
  CO.ConfigOnly = true;
  CO.Probes = std::move(Probes);
  Expected<CapturedLaunch> C = captureLaunch(TC, Input, Parsed, K.name(), CO);
  if (!C) {
    consumeError(C.takeError()); // The per-variant runs will say why.
    return Done;
  }
  for (const CapturedLaunch::Probed &P : C->Probes) {
    if (P.Variant < 0 || P.Variant >= static_cast<int>(Vs.size()) ||
        !Probed[P.Variant])
      continue;
    Vs[P.Variant].Grid = P.Grid;
    Vs[P.Variant].Block = P.Block;
    Vs[P.Variant].Shmem = P.Shmem;
    Done[P.Variant] = true;
  }
  return Done;
}

/// Learn the launch of each launch-changing variant by running its own
/// program in config-only mode. Returns per variant "" or why it failed.
std::vector<std::string>
captureVariantLaunches(const Toolchain &TC, const SourceInput &Input,
                       StringRef Kernel, const Harness &H,
                       std::vector<VariantSource> &Vs,
                       const std::vector<bool> &Need, const TuneOptions &Opts,
                       const ParsePreamble *Preamble) {
  std::vector<std::string> Errors(Vs.size());
  unsigned Total = llvm::count(Need, true), Done = 0;
  std::mutex M;
  // Variants whose host code is the same (they differ only inside the
  // kernel, e.g. X and restrict-const,X) make the same launch: run one
  // program per distinct host code.
  struct Shared {
    std::mutex Lock;
    bool Done = false;
    std::optional<CapturedLaunch> Launch;
    std::string Error;
  };
  std::map<std::string, std::shared_ptr<Shared>> ByHostCode;
  DefaultThreadPool Pool(hardware_concurrency());
  for (size_t I = 0; I < Vs.size(); ++I) {
    if (!Need[I])
      continue;
    Pool.async([&, I] {
      SourceInput VI = variantInput(Input, Vs[I]);
      auto Finish = [&](std::string Err) {
        std::lock_guard<std::mutex> L(M);
        Errors[I] = std::move(Err);
        progress(Opts, "variant launches", ++Done, Total);
      };
      Expected<std::unique_ptr<ParsedSource>> P =
          parseVariant(TC, VI, Preamble);
      if (!P)
        return Finish(toString(P.takeError()));
      std::string HostCode = VI.Text;
      {
        clang::ASTContext &Ctx = (*P)->getASTContext();
        std::vector<KernelInfo> Ks = findKernels(Ctx);
        if (const KernelInfo *K = lookupKernel(Ks, Kernel))
          HostCode = textWithoutKernel(Ctx, *K, VI.Text);
      }
      std::shared_ptr<Shared> S;
      {
        std::lock_guard<std::mutex> L(M);
        std::shared_ptr<Shared> &Slot = ByHostCode[HostCode];
        if (!Slot)
          Slot = std::make_shared<Shared>();
        S = Slot;
      }
      std::unique_lock<std::mutex> Own(S->Lock);
      if (!S->Done) {
        CaptureOptions CO = H.Capture;
        CO.Tag = Vs[I].Id;
        CO.ConfigOnly = true;
        Expected<CapturedLaunch> C = captureLaunch(TC, VI, **P, Kernel, CO);
        if (C)
          S->Launch = std::move(*C);
        else
          S->Error = toString(C.takeError());
        S->Done = true;
      }
      Own.unlock();
      if (!S->Launch)
        return Finish("its program did not reach the launch: " + S->Error);
      const CapturedLaunch *L = &*S->Launch;
      // Replay passes the original's arguments; a variant whose host code
      // passes different ones cannot be replayed faithfully.
      if (L->Params.size() != H.Original.Params.size())
        return Finish("its launch passes a different number of arguments");
      for (size_t A = 0; A < L->Params.size(); ++A)
        if (L->Params[A].K != H.Original.Params[A].K ||
            L->Params[A].Bytes != H.Original.Params[A].Bytes ||
            L->Params[A].Offset != H.Original.Params[A].Offset)
          return Finish("its launch passes a different argument " +
                        std::to_string(A));
      Vs[I].Grid = L->Grid;
      Vs[I].Block = L->Block;
      Vs[I].Shmem = L->Shmem;
      Finish("");
    });
  }
  Pool.wait();
  return Errors;
}

} // namespace tuner
} // namespace cuda_opt
