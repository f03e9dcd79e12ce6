//===- cuda-opt-pipeline-fuzzer.cpp - Fuzz the --passes= parser -----------===//
//
// Part of cuda-opt. The input is a pipeline string as `--passes=` takes it
// ("restrict-const,unroll{factor=4}"); parsePipeline either returns the
// invocations or an error listing what is valid. A parsed pipeline prints
// back (PassInvocation::str, as reports show it) to a string that parses
// to the same pipeline.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Pass/Pipeline.h"
#include "cuda-opt/Transforms/InitAllTransforms.h"

#include <cstdio>
#include <cstdlib>

using namespace cuda_opt;
using namespace llvm;

static std::string print(ArrayRef<PassInvocation> Pipeline) {
  std::string S;
  for (const PassInvocation &P : Pipeline)
    S += (S.empty() ? "" : ",") + P.str();
  return S;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  registerAllTransforms();
  Expected<std::vector<PassInvocation>> Pipeline =
      parsePipeline(StringRef(reinterpret_cast<const char *>(Data), Size));
  if (!Pipeline) {
    consumeError(Pipeline.takeError());
    return 0;
  }
  std::string Printed = print(*Pipeline);
  Expected<std::vector<PassInvocation>> Again = parsePipeline(Printed);
  if (!Again) {
    std::fprintf(stderr, "printed pipeline '%s' does not parse: %s\n",
                 Printed.c_str(), toString(Again.takeError()).c_str());
    std::abort();
  }
  if (print(*Again) != Printed) {
    std::fprintf(stderr, "'%s' prints back as '%s'\n", Printed.c_str(),
                 print(*Again).c_str());
    std::abort();
  }
  return 0;
}
