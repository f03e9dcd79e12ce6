//===- MeasurementReplay.cpp - Measurements from a file, for tests --------===//
//
// Part of cuda-opt. `tune --test-replay-measurements=FILE` (hidden; tests
// only, docs/tuning.md): spec mode takes each variant's measurement from
// FILE instead of compiling it and running it in the measurement worker, so
// that the lit suite can drive what lies around the measurement (the rounds
// of --online-rounds, the tuning database, the report) on a machine without
// a GPU. Nothing here is used unless that option is given.
//
//===----------------------------------------------------------------------===//
#include "TunerInternal.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace cuda_opt {
namespace tuner {

namespace {

/// "restrict-const,unroll{factor=4}" -> "restrict-const,unroll".
std::string passesOf(StringRef Pipeline) {
  std::string Out;
  int Depth = 0;
  for (char C : Pipeline) {
    if (C == '{')
      ++Depth;
    else if (C == '}')
      --Depth;
    else if (Depth == 0)
      Out += C;
  }
  return Out;
}

Error replayError(StringRef Path, const Twine &Why) {
  return createStringError(inconvertibleErrorCode(),
                           "--test-replay-measurements '" + Path + "': " + Why);
}

} // namespace

Expected<MeasurementReplay> MeasurementReplay::load(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return replayError(Path, Buf.getError().message());
  Expected<json::Value> V = json::parse((*Buf)->getBuffer());
  if (!V)
    return replayError(Path, toString(V.takeError()));
  const json::Object *O = V->getAsObject();
  if (!O || O->getString("format") != "cuda-opt-test-replay")
    return replayError(Path, "not a replay file (\"format\": "
                             "\"cuda-opt-test-replay\")");
  MeasurementReplay R;
  R.OriginalMs = O->getNumber("original_ms").value_or(1.0);
  if (R.OriginalMs <= 0)
    return replayError(Path, "original_ms must be positive");
  R.DefaultMs = O->getNumber("default_ms");
  if (const json::Array *Clock = O->getArray("clock")) {
    R.Clock.clear();
    for (const json::Value &C : *Clock) {
      std::optional<double> X = C.getAsNumber();
      if (!X || *X <= 0)
        return replayError(Path, "clock: give positive factors");
      R.Clock.push_back(*X);
    }
    if (R.Clock.empty())
      R.Clock = {1.0};
  }
  if (const json::Object *Ps = O->getObject("pipelines"))
    for (const auto &[Name, Value] : *Ps) {
      Entry E;
      if (std::optional<double> Ms = Value.getAsNumber()) {
        E.MedianMs = *Ms;
      } else if (const json::Object *EO = Value.getAsObject()) {
        E.MedianMs = EO->getNumber("median_ms").value_or(0);
        E.Verdict = EO->getString("verdict").value_or("verified").str();
      } else {
        return replayError(Path, "pipeline '" + Name.str() +
                                     "': give a median in ms or an object");
      }
      const bool Timed = E.Verdict == "verified" || E.Verdict == "slower";
      if (!Timed && E.Verdict != "rejected" && E.Verdict != "compile-error")
        return replayError(Path, "pipeline '" + Name.str() + "': verdict '" +
                                     E.Verdict +
                                     "' (give verified, slower, rejected or "
                                     "compile-error)");
      if (Timed && E.MedianMs <= 0)
        return replayError(Path, "pipeline '" + Name.str() +
                                     "': a timed verdict needs a positive "
                                     "median_ms");
      R.Pipelines[Name.str()] = E;
    }
  return R;
}

std::vector<Measurement>
MeasurementReplay::measure(ArrayRef<VariantSource> Batch, unsigned Round,
                           std::vector<std::string> &CompileErrors) const {
  const double Clk =
      Clock[std::min<size_t>(Round ? Round - 1 : 0, Clock.size() - 1)];
  const double Orig = OriginalMs * Clk;
  auto Timed = [&](Measurement &M, double Ms, int Runs) {
    M.Verified = true;
    M.MedianMs = M.MinMs = M.MaxMs = M.P10Ms = M.P90Ms = Ms;
    M.Runs = Runs;
    M.Speedup = Orig / Ms;
    M.Check = "replay";
  };
  std::vector<Measurement> Out;
  CompileErrors.assign(Batch.size(), "");
  for (size_t I = 0; I < Batch.size(); ++I) {
    Measurement M;
    M.Id = Batch[I].Id;
    if (I == 0) {
      Timed(M, Orig, 20);
      M.ShadowNote = "test replay (--test-replay-measurements): nothing was "
                     "compiled or run";
      Out.push_back(M);
      continue;
    }
    Entry E;
    E.MedianMs = DefaultMs.value_or(OriginalMs);
    auto It = Pipelines.find(Batch[I].Pipeline);
    if (It == Pipelines.end())
      It = Pipelines.find(passesOf(Batch[I].Pipeline));
    if (It != Pipelines.end())
      E = It->second;
    if (E.Verdict == "compile-error") {
      CompileErrors[I] = "replayed: did not compile";
      M.Error = CompileErrors[I];
    } else if (E.Verdict == "rejected") {
      M.Error = "replayed: outputs differ from the original's";
    } else {
      Timed(M, E.MedianMs * Clk, E.Verdict == "slower" ? 5 : 20);
      M.StoppedEarly = E.Verdict == "slower";
    }
    Out.push_back(M);
  }
  return Out;
}

} // namespace tuner
} // namespace cuda_opt
