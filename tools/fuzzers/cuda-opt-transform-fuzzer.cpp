//===- cuda-opt-transform-fuzzer.cpp - Fuzz the transforms ----------------===//
//
// Part of cuda-opt. Input layout: byte 0 picks a transform (modulo the
// number registered, sorted by name), byte 1 picks its integer parameters
// among the values the tuner tries (two bits per parameter), the rest is a
// .cu file. The pass runs as `cuda-opt --passes=<pass>{<params>}` runs it:
// the pipeline string goes through parsePipeline, then runPipeline plans
// (the legality check) and applies it on every kernel where it is legal,
// formats the edits and re-parses the result on both sides. Refusals and
// parse errors are normal outcomes; a crash is a bug.
//
// With CUDA_OPT_FUZZ_STRICT=1 in the environment, a rewrite that does not
// compile (runPipeline's "internal error") also stops the fuzzer.
//
//===----------------------------------------------------------------------===//
#include "FuzzerSupport.h"

#include "cuda-opt/Pass/Pipeline.h"
#include "cuda-opt/Transforms/InitAllTransforms.h"

#include <cstdio>

using namespace cuda_opt;
using namespace llvm;

namespace {

/// Every registered transform, sorted by name.
const std::vector<std::unique_ptr<Transform>> &transforms() {
  static const std::vector<std::unique_ptr<Transform>> All = [] {
    registerAllTransforms();
    return TransformRegistry::createAll();
  }();
  return All;
}

/// The values the tuner would try for \p P (CandidateSpace's rule).
std::vector<int64_t> candidateValues(const ParamSpec &P) {
  if (!P.TuneValues.empty())
    return P.TuneValues;
  if (!P.PowerOfTwo)
    return {P.Default};
  std::vector<int64_t> Vs;
  for (int64_t V = 1; V <= P.Max && V > 0; V *= 2)
    if (V >= P.Min)
      Vs.push_back(V);
  return Vs.empty() ? std::vector<int64_t>{P.Default} : Vs;
}

/// "name{a=1,b=2}" for transform \p T with the parameter choice \p Bits.
std::string pipelineString(const Transform &T, uint8_t Bits) {
  std::string Params;
  unsigned Shift = 0;
  for (const ParamSpec &P : T.getParams()) {
    if (P.IsText)
      continue;
    std::vector<int64_t> Vs = candidateValues(P);
    int64_t V = Vs[((Bits >> Shift) & 3) % Vs.size()];
    Shift = (Shift + 2) % 8;
    Params += (Params.empty() ? "" : ",") + P.Name + "=" + std::to_string(V);
  }
  std::string S = T.getName().str();
  if (!Params.empty())
    S += "{" + Params + "}";
  return S;
}

bool strict() {
  static const bool Strict = [] {
    const char *V = std::getenv("CUDA_OPT_FUZZ_STRICT");
    return V && StringRef(V) == "1";
  }();
  return Strict;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 2)
    return 0;
  const std::vector<std::unique_ptr<Transform>> &All = transforms();
  const Transform &T = *All[Data[0] % All.size()];
  std::string Spec = pipelineString(T, Data[1]);
  Expected<std::vector<PassInvocation>> Pipeline = parsePipeline(Spec);
  if (!Pipeline) {
    // Values taken from the transform's own specs must parse.
    std::fprintf(stderr, "pipeline '%s' does not parse: %s\n", Spec.c_str(),
                 toString(Pipeline.takeError()).c_str());
    std::abort();
  }
  SourceInput In = fuzz::sourceInput(
      StringRef(reinterpret_cast<const char *>(Data) + 2, Size - 2));
  PipelineOptions Opts;
  Opts.SkipIllegal = true;
  // The most permissive model, so that no pass is refused before its plan.
  Opts.Model = FpModel::Fast;
  std::string Message;
  fuzz::onToolStack([&] {
    Expected<PipelineResult> R =
        runPipeline(fuzz::toolchain(), In, *Pipeline, Opts);
    if (R)
      (void)R->toJSON();
    else
      Message = toString(R.takeError());
  });
  if (strict() && StringRef(Message).starts_with("internal error:")) {
    std::fprintf(stderr, "%s: %s\n", Spec.c_str(), Message.c_str());
    std::abort();
  }
  return 0;
}
