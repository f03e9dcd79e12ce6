//===- InstrumentCaptureCommand.cpp - --instrument-capture ----------------===//
//
// Part of cuda-opt. Prints the file with --kernel's launches routed through
// the capture runtime: what program-mode tune builds and runs. Each
// --probe-variant adds that variant's launch configuration at every site
// (the launch probe).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"

#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Capture/Capture.h"
#include "cuda-opt/Frontend/NvccCompat.h"
#include "cuda-opt/Support/OutputFile.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cuda_opt {

/// The probes of every --probe-variant, per launch site of \p K.
static Expected<std::vector<std::vector<LaunchProbe>>>
probeVariants(const Toolchain &TC, const SourceInput &In,
              clang::ASTContext &Ctx, const KernelInfo &K) {
  ProbeBase Base = probeBase(Ctx, K, In.Text);
  std::vector<std::vector<LaunchProbe>> Probes(Base.Launches.size());
  int Number = 1;
  for (const std::string &F : cli::ProbeVariants) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(F);
    if (!B)
      return makeError("cannot read '" + F + "': " + B.getError().message());
    SourceInput V = In; // Same path and flags: includes resolve alike.
    V.Text = (*B)->getBuffer().str();
    Expected<std::unique_ptr<ParsedSource>> VP = parseSource(TC, V);
    if (!VP)
      return VP.takeError();
    std::vector<KernelInfo> VKs = findKernels((*VP)->getASTContext());
    const KernelInfo *VK = lookupKernel(VKs, K.name());
    if (!VK)
      return makeError("'" + F + "' does not define kernel '" + K.name() + "'");
    Expected<std::vector<LaunchProbe>> Sites = launchProbesFor(
        Base, (*VP)->getASTContext(), *VK, V.Text, Number++);
    if (!Sites)
      return makeError("'" + F + "' cannot be probed: " +
                       toString(Sites.takeError()));
    for (size_t S = 0; S < Sites->size(); ++S)
      Probes[S].push_back((*Sites)[S]);
  }
  return Probes;
}

Error instrumentCapture(const Toolchain &TC, const SourceInput &In,
                        StringRef Output) {
  Expected<std::unique_ptr<ParsedSource>> Parsed = parseSource(TC, In);
  if (!Parsed)
    return Parsed.takeError();
  clang::ASTContext &Ctx = (*Parsed)->getASTContext();
  std::vector<KernelInfo> Kernels = findKernels(Ctx);
  const KernelInfo *K = nullptr;
  if (!cli::KernelName.empty()) {
    K = lookupKernel(Kernels, cli::KernelName);
    if (!K)
      return makeError("no kernel named '" + cli::KernelName + "' in '" +
                       In.Path + "'");
  } else if (Kernels.size() == 1) {
    K = &Kernels.front();
  } else {
    return makeError("--instrument-capture needs --kernel=NAME when the file "
                     "defines several kernels");
  }
  std::vector<std::vector<LaunchProbe>> Probes;
  if (!cli::ProbeVariants.empty()) {
    Expected<std::vector<std::vector<LaunchProbe>>> P =
        probeVariants(TC, In, Ctx, *K);
    if (!P)
      return P.takeError();
    Probes = std::move(*P);
  }
  Expected<InstrumentedSource> I = instrumentForCapture(
      Ctx, *K, In.Text, Probes.empty() ? nullptr : &Probes);
  if (!I)
    return I.takeError();
  for (const std::string &S : I->Skipped)
    WithColor::warning(errs(), ToolName)
        << "launch not instrumented: " << S << "\n";
  return writeFileAtomically(Output, standaloneText(TC, I->Text));
}

} // namespace cuda_opt
