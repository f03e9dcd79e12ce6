//===- cuda-opt-analyze-fuzzer.cpp - Fuzz the parse and the kernel model --===//
//
// Part of cuda-opt. The input is a .cu file, parsed from memory the way
// `cuda-opt --analyze` and `--list-regions` parse it (parseSource on the host
// side); every kernel's model is built and printed, and the host regions are
// found. A parse error is a normal outcome; a crash is a bug.
//
//===----------------------------------------------------------------------===//
#include "FuzzerSupport.h"

#include "cuda-opt/Analysis/HostRegions.h"
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Analysis/KernelModelText.h"

#include "llvm/Support/FormatVariadic.h"

using namespace cuda_opt;
using namespace llvm;

static void analyze(StringRef Text) {
  SourceInput In = fuzz::sourceInput(Text);
  Expected<std::unique_ptr<ParsedSource>> Parsed =
      parseSource(fuzz::toolchain(), In);
  if (!Parsed) {
    consumeError(Parsed.takeError());
    return;
  }
  clang::ASTContext &Ctx = (*Parsed)->getASTContext();
  std::vector<KernelInfo> Kernels = findKernels(Ctx);
  std::string Out;
  raw_string_ostream OS(Out);
  for (const KernelInfo &K : Kernels) {
    json::Value Model = analyzeKernelToJSON(Ctx, K);
    OS << formatv("{0:2}", Model);
    printKernelModelText(*Model.getAsObject(), OS);
  }
  for (const HostRegion &R : findHostRegions(Ctx, Kernels))
    OS << formatv("{0:2}", hostRegionToJSON(Ctx, Kernels, R));
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text(reinterpret_cast<const char *>(Data), Size);
  fuzz::onToolStack([&] { analyze(Text); });
  return 0;
}
