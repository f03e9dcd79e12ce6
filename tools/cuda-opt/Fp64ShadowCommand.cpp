//===- Fp64ShadowCommand.cpp - --fp64-shadow -------------------------------===//
//
// Part of cuda-opt. Prints what tune measures as the reference of a kernel's
// float outputs under --fp-model=reassoc: the file with the kernel's fp64
// shadow appended (lib/Measure/Fp64Shadow.h), or why it has none.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"

#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Frontend/NvccCompat.h"
#include "cuda-opt/Measure/Fp64Shadow.h"
#include "cuda-opt/Support/OutputFile.h"

using namespace llvm;

namespace cuda_opt {

Error printFp64Shadow(const Toolchain &TC, const SourceInput &In,
                      StringRef Output) {
  Expected<std::unique_ptr<ParsedSource>> Parsed = parseSource(TC, In);
  if (!Parsed)
    return Parsed.takeError();
  clang::ASTContext &Ctx = (*Parsed)->getASTContext();
  std::vector<KernelInfo> Kernels = findKernels(Ctx);
  if (Kernels.empty())
    return makeError("no __global__ kernel is defined in '" + In.Path + "'");
  const KernelInfo *K = cli::KernelName.empty()
                            ? (Kernels.size() == 1 ? &Kernels[0] : nullptr)
                            : lookupKernel(Kernels, cli::KernelName);
  if (!K)
    return makeError(cli::KernelName.empty()
                         ? "'" + In.Path +
                               "' defines several kernels; name one with "
                               "--kernel=NAME"
                         : "no kernel named '" + cli::KernelName + "' in '" +
                               In.Path + "'");
  Expected<Fp64Shadow> Sh = makeFp64Shadow(Ctx, *K, In.Text);
  if (!Sh)
    return Sh.takeError();
  return writeFileAtomically(Output, standaloneText(TC, Sh->Text));
}

} // namespace cuda_opt
