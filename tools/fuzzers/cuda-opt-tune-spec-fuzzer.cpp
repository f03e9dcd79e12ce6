//===- cuda-opt-tune-spec-fuzzer.cpp - Fuzz the tuning spec reader --------===//
//
// Part of cuda-opt. The input is a tuning spec (`cuda-opt tune --spec`, JSON;
// Capture/TuneSpec.h). A spec is read against the kernels of a parsed file,
// so the fuzzer first parses every bench/corpus program that has a
// .tune.json (once, at start-up), then reads the input against each program
// one of whose kernel names it mentions (against the first program when it
// mentions none), and turns a spec that reads into its measurement job's
// arguments. Errors are normal outcomes; a crash is a bug.
//
//===----------------------------------------------------------------------===//
#include "FuzzerSupport.h"

#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Capture/TuneSpec.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace cuda_opt;
using namespace llvm;

namespace {

struct Program {
  std::unique_ptr<ParsedSource> Parse;
  std::vector<KernelInfo> Kernels;
};

std::vector<Program> loadPrograms() {
  std::vector<Program> Programs;
  std::string Corpus = fuzz::sourceDir() + "/bench/corpus";
  std::error_code EC;
  std::vector<std::string> Files;
  for (sys::fs::directory_iterator I(Corpus, EC), E; I != E && !EC;
       I.increment(EC))
    if (StringRef(I->path()).ends_with(".tune.json"))
      Files.push_back(
          StringRef(I->path()).drop_back(strlen(".tune.json")).str() + ".cu");
  std::sort(Files.begin(), Files.end());
  for (const std::string &File : Files) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(File);
    if (!Buf)
      continue;
    SourceInput In = fuzz::sourceInput((*Buf)->getBuffer());
    In.Path = File;
    Expected<std::unique_ptr<ParsedSource>> Parsed =
        parseSource(fuzz::toolchain(), In);
    if (!Parsed) {
      errs() << "fuzzer: " << File
             << " does not parse: " << toString(Parsed.takeError()) << "\n";
      continue;
    }
    Program P;
    P.Parse = std::move(*Parsed);
    P.Kernels = findKernels(P.Parse->getASTContext());
    Programs.push_back(std::move(P));
  }
  if (Programs.empty()) {
    errs() << "fuzzer: no program with a .tune.json parsed in " << Corpus
           << "; set CUDA_OPT_SOURCE_DIR to the cuda-opt source tree\n";
    std::abort();
  }
  return Programs;
}

const std::vector<Program> &programs() {
  static const std::vector<Program> Programs = loadPrograms();
  return Programs;
}

void readAgainst(StringRef Text, const Program &P) {
  Expected<TuneSpec> Spec =
      TuneSpec::parse(Text, P.Parse->getASTContext(), P.Kernels);
  if (!Spec) {
    consumeError(Spec.takeError());
    return;
  }
  (void)Spec->argsToJob();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  fuzz::onToolStack([] { (void)programs(); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text(reinterpret_cast<const char *>(Data), Size);
  fuzz::onToolStack([&] {
    bool Read = false;
    for (const Program &P : programs()) {
      bool Mentioned = std::any_of(
          P.Kernels.begin(), P.Kernels.end(),
          [&](const KernelInfo &K) { return Text.contains(K.name()); });
      if (!Mentioned)
        continue;
      readAgainst(Text, P);
      Read = true;
    }
    if (!Read)
      readAgainst(Text, programs().front());
  });
  return 0;
}
