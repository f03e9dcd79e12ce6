//===- TuneRecording.cpp - tune's side of the tuning database -------------===//
//
// Part of cuda-opt. What tune stores in the tuning database and reads back
// from it (docs/tuning-database.md): the key of a kernel's measurements (the
// GPU, the versions, the kernel's AST hash, the problem signature, the
// fp-model), one row per measured variant, and the stored result of a
// variant already measured on the same key, which tune reuses instead of
// measuring it again. Errors of the database become notes: tune goes on.
//
//===----------------------------------------------------------------------===//
#include "TunerInternal.h"
#include "WorkerProtocol.h"
#include "cuda-opt/Search/KernelHash.h"
#include "cuda-opt/Search/ProblemSignature.h"
#include "cuda-opt/Search/TuningPolicy.h"
#include "cuda-opt/Analysis/KernelModel.h"

#include "llvm/ADT/STLExtras.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace cuda_opt {
namespace tuner {

/// The toolkit's version from its version.json ("13.0.1"), or "unknown".
static std::string cudaToolkitVersion(StringRef CudaPath) {
  SmallString<256> P(CudaPath);
  sys::path::append(P, "version.json");
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(P);
  if (!Buf)
    return "unknown";
  Expected<json::Value> V = json::parse((*Buf)->getBuffer());
  if (!V) {
    consumeError(V.takeError());
    return "unknown";
  }
  const json::Object *O = V->getAsObject();
  const json::Object *Cuda = O ? O->getObject("cuda") : nullptr;
  std::optional<StringRef> Version =
      Cuda ? Cuda->getString("version") : std::nullopt;
  return Version ? Version->str() : "unknown";
}

TuningGpu tuningGpuOf(const GpuProbeResult &Gpus, const Toolchain &TC,
                      int Ordinal) {
  TuningGpu G;
  for (const GpuInfo &D : Gpus.Devices)
    if (G.Model.empty() || D.Ordinal == Ordinal) {
      G.Model = D.Name;
      G.SmCount = D.SmCount;
    }
  G.Driver = Gpus.DriverVersion.empty() ? "unknown" : Gpus.DriverVersion;
  G.Cuda = cudaToolkitVersion(TC.CudaPath);
  return G;
}

std::string harnessSignature(const Harness &H) {
  return problemSignature(H.Grid, H.Block, H.Shmem, H.IntArgs,
                          H.BufferElements);
}

KernelRecording startRecording(const TuneOptions &Opts, const Harness &H,
                               clang::ASTContext &Ctx, const KernelInfo &K,
                               const SourceInput &Input) {
  KernelRecording R;
  if (!Opts.Database || H.Gpu.Model.empty())
    return R;
  R.Db = Opts.Database;
  R.Base.Gpu = H.Gpu;
  R.Base.KernelHash = kernelHash(Ctx, K);
  R.Base.Signature = harnessSignature(H);
  R.Base.FpModel = fpModelName(Opts.Model).str();
  R.KernelName = K.name();
  R.SourceFile = Input.Path;
  // What the learned ranker trains on (`cuda-opt train --db`): best effort,
  // a failure here loses no measurement (the rows' own writes report).
  KernelFeatures Features =
      H.Model ? H.Model->features() : buildKernelModel(Ctx, K).features();
  consumeError(R.Db->putKernelFeatures(R.Base.KernelHash, K.name(), Features));
  return R;
}

/// A region's problem: each replayed variable's length (buffers) or bytes
/// (other variables), by name, sorted: "region;buf:a=1024;raw:n=00040000".
static std::string regionSignature(const json::Array &Args) {
  namespace A = worker::arg;
  std::vector<std::string> Parts;
  for (const json::Value &V : Args) {
    const json::Object *O = V.getAsObject();
    if (!O)
      continue;
    std::string Name = O->getString(A::Name).value_or("").str();
    if (std::optional<int64_t> Count = O->getInteger(A::Count))
      Parts.push_back("buf:" + Name + "=" + std::to_string(*Count));
    else if (std::optional<StringRef> Raw = O->getString(A::Raw))
      Parts.push_back("raw:" + Name + "=" + Raw->str());
  }
  llvm::sort(Parts);
  std::string Out = "region";
  for (const std::string &P : Parts)
    Out += ";" + P;
  return Out;
}

KernelRecording startRegionRecording(const TuneOptions &Opts, const Harness &H,
                                     clang::ASTContext &Ctx,
                                     clang::SourceRange Region,
                                     ArrayRef<KernelInfo> Kernels,
                                     const json::Array &Args, StringRef Label,
                                     const SourceInput &Input) {
  KernelRecording R;
  if (!Opts.Database || H.Gpu.Model.empty())
    return R;
  R.Db = Opts.Database;
  R.Base.Gpu = H.Gpu;
  R.Base.KernelHash = regionHash(Ctx, Region, Kernels);
  R.Base.Signature = regionSignature(Args);
  R.Base.FpModel = fpModelName(Opts.Model).str();
  R.KernelName = Label.str();
  R.SourceFile = Input.Path;
  return R;
}

std::optional<TuningRecord> KernelRecording::stored(StringRef Pipeline,
                                                    TuneResult &Result) const {
  if (!Db)
    return std::nullopt;
  TuningKey Key = Base;
  Key.Pipeline = Pipeline.str();
  Expected<std::optional<TuningRecord>> R = Db->lookup(Key);
  if (!R) {
    Result.DatabaseNotes.push_back(toString(R.takeError()));
    return std::nullopt;
  }
  // A dry run's row (keyed by no GPU, so it should never match) is not a
  // measurement to reuse.
  if (*R && !(*R)->measured())
    return std::nullopt;
  return *R;
}

void KernelRecording::record(StringRef Pipeline, const Measurement &M,
                             StringRef CompileError, TuneResult &Result) const {
  if (!Db || (CompileError.empty() && M.Skipped))
    return;
  TuningRecord R;
  R.Key = Base;
  R.Key.Pipeline = Pipeline.str();
  R.KernelName = KernelName;
  R.SourceFile = SourceFile;
  R.MedianMs = M.MedianMs;
  R.P10Ms = M.P10Ms;
  R.P90Ms = M.P90Ms;
  R.Runs = M.Runs;
  if (!CompileError.empty()) {
    R.Verdict = "compile-error";
    R.FailureReason = CompileError.take_front(2000).str();
    R.MedianMs = R.P10Ms = R.P90Ms = 0;
    R.Runs = 0;
  } else if (!M.Verified) {
    R.Verdict = "rejected";
    R.FailureReason = StringRef(M.Error).take_front(2000).str();
  } else {
    R.Verdict = M.StoppedEarly ? "slower" : "verified";
  }
  R.Host = tuningHostName();
  R.MeasuredAt = tuningTimestamp();
  if (Error E = Db->add(R)) {
    Result.DatabaseNotes.push_back(toString(std::move(E)));
    return;
  }
  ++Result.VariantsRecorded;
}

TuningGpu dryRunGpu(const Toolchain &TC) {
  TuningGpu G;
  G.Model = "none (dry run)";
  G.SmCount = 0;
  G.Driver = "none";
  G.Cuda = cudaToolkitVersion(TC.CudaPath);
  return G;
}

void recordDryRun(const TuneOptions &Opts, const Toolchain &TC,
                  clang::ASTContext &Ctx, const KernelInfo &K,
                  StringRef Signature, ArrayRef<CandidateRecord> Candidates,
                  const SourceInput &Input, TuneResult &Result) {
  if (!Opts.Database)
    return;
  TuningKey Base;
  Base.Gpu = dryRunGpu(TC);
  Base.KernelHash = kernelHash(Ctx, K);
  Base.Signature = Signature.str();
  Base.FpModel = fpModelName(Opts.Model).str();
  for (const CandidateRecord &C : Candidates) {
    if (C.Kernel != K.name() || C.Status != "candidate")
      continue;
    TuningRecord R;
    R.Key = Base;
    R.Key.Pipeline = C.Pipeline;
    Expected<std::optional<TuningRecord>> Old = Opts.Database->lookup(R.Key);
    if (!Old) {
      Result.DatabaseNotes.push_back(toString(Old.takeError()));
      return;
    }
    if (*Old)
      continue;
    R.KernelName = K.name();
    R.SourceFile = Input.Path;
    R.Verdict = "not-measured";
    R.FailureReason = "dry run: listed, not compiled or run";
    if (!C.Detail.empty())
      R.FailureReason += "; " + C.Detail;
    R.Host = tuningHostName();
    R.MeasuredAt = tuningTimestamp();
    if (Error E = Opts.Database->add(R)) {
      Result.DatabaseNotes.push_back(toString(std::move(E)));
      return;
    }
    ++Result.VariantsRecorded;
  }
}

Measurement measurementOf(const TuningRecord &R) {
  Measurement M;
  M.MedianMs = R.MedianMs;
  M.P10Ms = R.P10Ms;
  M.P90Ms = R.P90Ms;
  M.MinMs = R.P10Ms;
  M.MaxMs = R.P90Ms;
  M.Runs = static_cast<int>(R.Runs);
  M.Verified = R.Verdict == "verified" || R.Verdict == "slower";
  M.StoppedEarly = R.Verdict == "slower";
  M.Error = R.FailureReason;
  return M;
}

} // namespace tuner
} // namespace cuda_opt
