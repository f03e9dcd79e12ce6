//===- WorkerClient.cpp - Run the measurement worker with a deadline ------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Measure/Measure.h"
#include "cuda-opt/Support/GpuLock.h"
#include "WorkerProtocol.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <csignal>
#include <map>
#include <mutex>
#include <thread>

using namespace llvm;

namespace cuda_opt {

std::string findMeasureWorker(StringRef ExecutablePath) {
  SmallString<256> P(sys::path::parent_path(ExecutablePath));
  sys::path::append(P, "cuda-opt-measure");
  return sys::fs::can_execute(P) ? std::string(P) : std::string();
}

static json::Object variantJob(const VariantSource &V, StringRef Cubin) {
  namespace P = worker::variant;
  if (V.Library)
    return json::Object{{P::Id, V.Id}, {P::Library, json::Object(*V.Library)}};
  auto Dims = [](const std::array<int64_t, 3> &D) {
    return json::Array{D[0], D[1], D[2]};
  };
  return json::Object{{P::Id, V.Id},       {P::Module, Cubin},
                      {P::Entry, V.Entry}, {P::Grid, Dims(V.Grid)},
                      {P::Block, Dims(V.Block)}, {P::Shmem, V.Shmem}};
}

static Expected<json::Value> readJSON(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  if (!B)
    return createStringError(B.getError(), "no result file %s",
                             Path.str().c_str());
  return json::parse((*B)->getBuffer());
}

/// Runs the worker and waits for it, killing it DeadlineSeconds after its
/// start (returning -2, as ExecuteAndWait does), not counting the time it
/// waits for the GPU lock: the worker holds WaitFlag while it waits, and
/// waiting for another tune's timing is not a hang.
static int runWorker(StringRef Worker, ArrayRef<StringRef> Argv,
                     ArrayRef<std::optional<StringRef>> Redirects,
                     unsigned DeadlineSeconds, StringRef WaitFlag,
                     std::string &ErrMsg, bool &Failed) {
  sys::fs::remove(WaitFlag);
  sys::ProcessInfo PI = sys::ExecuteNoWait(Worker, Argv, std::nullopt,
                                           Redirects, 0, &ErrMsg, &Failed);
  if (Failed || PI.Pid <= 0)
    return -1;
  using Clock = std::chrono::steady_clock;
  Clock::time_point Last = Clock::now();
  Clock::time_point Deadline = Last + std::chrono::seconds(DeadlineSeconds);
  while (true) {
    sys::ProcessInfo W = sys::Wait(PI, /*SecondsToWait=*/0, &ErrMsg, nullptr,
                                   /*Polling=*/true);
    if (W.Pid != 0)
      return W.ReturnCode;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    Clock::time_point Now = Clock::now();
    if (sys::fs::exists(WaitFlag))
      Deadline += Now - Last;
    Last = Now;
    if (Now > Deadline) {
      ::kill(PI.Pid, SIGKILL);
      sys::Wait(PI, std::nullopt);
      sys::fs::remove(WaitFlag);
      ErrMsg = "deadline of " + std::to_string(DeadlineSeconds) + " s passed";
      return -2;
    }
  }
}

/// One worker process at a time on Opts.Device, restarted after faults.
static Expected<std::vector<Measurement>>
measureOnOneDevice(const std::vector<VariantSource> &Vs,
                   const std::vector<std::string> &Cubins,
                   const json::Array &Args, const MeasureOptions &Opts,
                   std::string &DeviceName, ReferenceMeasurement *Reference) {
  if (Opts.Worker.empty())
    return createStringError(inconvertibleErrorCode(),
                             "the measurement worker cuda-opt-measure was not "
                             "found next to cuda-opt; build it (it needs the "
                             "CUDA toolkit) or pass --measure-worker=PATH");
  std::map<std::string, Measurement> Done;
  std::vector<size_t> Pending;
  for (size_t I = 1; I < Vs.size(); ++I) {
    if (Cubins[I].empty() && !Vs[I].Library) {
      Measurement M;
      M.Id = Vs[I].Id;
      M.Error = "did not compile";
      Done[M.Id] = M;
      continue;
    }
    Pending.push_back(I);
  }
  sys::fs::create_directories(Opts.WorkDir);
  // A shadow that takes the worker down (it runs before the baseline) is
  // dropped and the job run again without it.
  std::optional<MeasureOptions::ShadowJob> Shadow = Opts.Shadow;
  std::string ShadowNote;
  unsigned Attempt = 0;
  const unsigned Total = Pending.size();
  while (true) {
    json::Array Variants;
    Variants.push_back(variantJob(Vs[0], Cubins[0]));
    for (size_t I : Pending)
      Variants.push_back(variantJob(Vs[I], Cubins[I]));
    json::Array Seeds;
    for (unsigned S : Opts.Seeds)
      Seeds.push_back(S);
    json::Array JobArgs(Args);
    for (const auto &[Index, Rows] : Opts.RowOutputs) {
      json::Object *A =
          Index < JobArgs.size() ? JobArgs[Index].getAsObject() : nullptr;
      if (!A || A->getString(worker::arg::Kind) != worker::arg::KindBuffer ||
          !A->getBoolean(worker::arg::Output).value_or(false))
        continue;
      if (Rows.Length > 0)
        (*A)[worker::arg::RowLength] = Rows.Length;
      else if (Rows.LengthArg >= 0)
        (*A)[worker::arg::RowLengthArg] = Rows.LengthArg;
    }
    json::Object Job{{worker::job::Device, Opts.Device},
                     {worker::job::Variants, std::move(Variants)},
                     {worker::job::Args, std::move(JobArgs)},
                     {worker::job::Seeds, std::move(Seeds)},
                     {worker::job::Timing,
                      json::Object{{worker::timing::Runs, Opts.Runs},
                                   {worker::timing::Warmup, 3},
                                   {worker::timing::FlushL2, true}}},
                     {worker::job::RelTol, Opts.RelTol}};
    if (Opts.Reference)
      Job[worker::job::Reference] = json::Object(*Opts.Reference);
    if (!Opts.FpModel.empty())
      Job[worker::job::FpModel] = Opts.FpModel;
    if (Shadow) {
      json::Array Promote;
      for (bool P : Shadow->Promote)
        Promote.push_back(P);
      Job[worker::job::Shadow] =
          json::Object{{worker::shadow::Module, Shadow->Module},
                       {worker::shadow::Entry, Shadow->Entry},
                       {worker::shadow::Shmem, Shadow->Shmem},
                       {worker::shadow::Promote, std::move(Promote)}};
      Job[worker::job::OrigRuns] = Opts.OrigRuns;
    }
    if (Opts.Race)
      Job[worker::job::Race] = true;
    if (Opts.TimeBudgetEnd) {
      double Left = std::chrono::duration<double>(
                        *Opts.TimeBudgetEnd - std::chrono::steady_clock::now())
                        .count();
      Job[worker::job::TimeLimit] = std::max(0.0, Left);
    }
    SmallString<256> JobPath(Opts.WorkDir), ResultPath(Opts.WorkDir),
        LogPath(Opts.WorkDir);
    sys::path::append(JobPath, "job" + std::to_string(Attempt) + ".json");
    sys::path::append(ResultPath, "result" + std::to_string(Attempt) + ".json");
    sys::path::append(LogPath, "worker" + std::to_string(Attempt) + ".log");
    SmallString<256> WaitFlag(Opts.WorkDir);
    sys::path::append(WaitFlag, "lock-wait" + std::to_string(Attempt));
    ++Attempt;
    // The worker locks the GPU itself: shared while it sets up and
    // verifies, exclusive only while it times (nothing else runs then).
    Job[worker::job::GpuLock] =
        json::Object{{worker::gpu_lock::Dir, GpuLock::directory()},
                     {worker::gpu_lock::WaitFlag, std::string(WaitFlag)}};
    {
      std::error_code EC;
      raw_fd_ostream OS(JobPath, EC);
      if (EC)
        return createStringError(EC, "cannot write %s", JobPath.c_str());
      OS << formatv("{0:2}", json::Value(std::move(Job)));
    }
    sys::fs::remove(ResultPath);
    StringRef Argv[] = {Opts.Worker, JobPath, ResultPath};
    std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(LogPath),
                                            StringRef(LogPath)};
    std::string ErrMsg;
    bool Failed = false;
    const int RC = runWorker(Opts.Worker, Argv, Redirects, Opts.DeadlineSeconds,
                             WaitFlag, ErrMsg, Failed);
    Expected<json::Value> R = readJSON(ResultPath);
    const json::Object *RO = R ? R->getAsObject() : nullptr;
    if (!R)
      consumeError(R.takeError());
    if (RO) {
      GpuLock::addWaitSeconds(
          RO->getNumber(worker::result::LockWait).value_or(0));
      if (const json::Object *P = RO->getObject(worker::result::PhaseSeconds);
          P && Opts.WorkerPhases) {
        static std::mutex PhasesMutex; // One client thread per GPU.
        std::lock_guard<std::mutex> G(PhasesMutex);
        for (const auto &[Phase, Secs] : *P)
          (*Opts.WorkerPhases)[Phase.str()] += Secs.getAsNumber().value_or(0);
      }
      if (std::optional<StringRef> D = RO->getString(worker::result::Device))
        DeviceName = D->str();
    }

    std::string Culprit;
    std::string Why;
    if (RC == worker::ExitVariantFault && RO) {
      Culprit =
          RO->getString(worker::result::CrashedVariant).value_or("").str();
      Why = "faulted: " +
            RO->getString(worker::result::CrashError).value_or("").str();
    } else if (RC != 0) {
      // Killed at the deadline, or crashed outright: blame what was running.
      Culprit =
          RO ? RO->getString(worker::result::InProgress).value_or("").str()
             : "";
      Why = RC == -2 ? "did not finish within " +
                           std::to_string(Opts.DeadlineSeconds) +
                           " s (killed): " + ErrMsg
                     : "worker exited with status " + std::to_string(RC) +
                           (RO ? ": " + RO->getString(worker::result::Error)
                                            .value_or("")
                                            .str()
                               : "");
    }
    if (RC != 0) {
      if (Shadow && (Culprit.empty() || Culprit == Vs[0].Id)) {
        Shadow.reset();
        ShadowNote = "no fp64 reference: the worker failed with it (" + Why +
                     "); compared with the original at the fp32 tolerance";
        continue;
      }
      if (Culprit.empty() || Culprit == Vs[0].Id ||
          Culprit == worker::result::InProgressTiming)
        return createStringError(inconvertibleErrorCode(),
                                 "measurement failed on the %s: %s (log: %s)",
                                 Culprit == worker::result::InProgressTiming
                                     ? "timing phase"
                                     : "original kernel",
                                 Why.c_str(), LogPath.c_str());
      Measurement M;
      M.Id = Culprit;
      M.Error = Why;
      Done[Culprit] = M;
      // Verdicts the dead worker reached stay reached.
      if (const json::Object *F =
              RO ? RO->getObject(worker::result::VerifyFailures) : nullptr)
        for (const auto &[Id, Err] : *F) {
          Measurement FM;
          FM.Id = Id.str();
          FM.Error = Err.getAsString().value_or("").str();
          Done[FM.Id] = FM;
        }
      llvm::erase_if(Pending, [&](size_t I) { return Done.count(Vs[I].Id); });
      if (Opts.Progress)
        Opts.Progress(Total - Pending.size(), Total);
      continue; // Restart the worker without it.
    }
    if (!RO)
      return createStringError(inconvertibleErrorCode(),
                               "the worker wrote no result (log: %s)",
                               LogPath.c_str());
    const json::Array *Arr = RO->getArray(worker::result::Variants);
    if (!Arr)
      return createStringError(inconvertibleErrorCode(),
                               "malformed worker result %s", ResultPath.c_str());
    if (const json::Object *Ref = RO->getObject(worker::result::Reference);
        Ref && Reference) {
      namespace Rf = worker::reference;
      Reference->Kind = Ref->getString(Rf::Kind).value_or("").str();
      Reference->Description = formatv(
          "{0} {1}x{2}x{3}{4}", Ref->getString(Rf::DType).value_or(""),
          Ref->getInteger(Rf::M).value_or(0),
          Ref->getInteger(Rf::N).value_or(0),
          Ref->getInteger(Rf::K).value_or(0),
          Ref->getInteger(Rf::Batch).value_or(1) > 1
              ? " x" + std::to_string(*Ref->getInteger(Rf::Batch))
              : std::string());
      Reference->Error = Ref->getString(Rf::Error).value_or("").str();
      if (const json::Object *T = Ref->getObject(Rf::Timing)) {
        Reference->Measured = true;
        Reference->MedianMs = T->getNumber(worker::stats::MedianMs).value_or(0);
        Reference->P10Ms = T->getNumber(worker::stats::P10Ms).value_or(0);
        Reference->P90Ms = T->getNumber(worker::stats::P90Ms).value_or(0);
      }
    }
    if (const json::Object *Sh = RO->getObject(worker::result::Shadow)) {
      namespace SR = worker::shadow_result;
      if (Sh->getBoolean(SR::Used).value_or(false)) {
        const int64_t Runs = Sh->getInteger(SR::OriginalRuns).value_or(1);
        ShadowNote = formatv("fp64 reference used; the original's largest "
                             "error against it: {0:e2} ({1})",
                             Sh->getNumber(SR::OriginalError).value_or(0),
                             Runs > 1 ? formatv("largest of {0} runs per seed",
                                                Runs)
                                            .str()
                                      : std::string("one run per seed"));
        if (const json::Array *Rows = Sh->getArray(SR::RowChecks);
            Rows && !Rows->empty()) {
          ShadowNote += "; outputs with rows:";
          for (const json::Value &R : *Rows)
            ShadowNote += " " + R.getAsString().value_or("").str() + ";";
          ShadowNote.pop_back();
        }
      } else {
        ShadowNote = "no fp64 reference: " +
                     Sh->getString(SR::Error).value_or("").str() +
                     "; compared with the original at the fp32 tolerance";
      }
    }
    std::string ReplayWarning;
    if (const json::Array *W = RO->getArray(worker::result::ReplayWarnings))
      for (const json::Value &Item : *W)
        ReplayWarning += (ReplayWarning.empty() ? "" : "; ") +
                         Item.getAsString().value_or("").str();
    for (const json::Value &V : *Arr) {
      namespace VR = worker::variant_result;
      namespace ST = worker::stats;
      const json::Object &O = *V.getAsObject();
      Measurement M;
      M.Id = O.getString(VR::Id).value_or("").str();
      M.Verified = O.getBoolean(VR::Verified).value_or(false);
      M.Error = O.getString(VR::Error).value_or("").str();
      M.Speedup = O.getNumber(VR::Speedup).value_or(0);
      M.MaxRelError = O.getNumber(VR::MaxRelError).value_or(0);
      M.Check = O.getString(VR::Check).value_or("").str();
      M.Fp64Error = O.getNumber(VR::Fp64Error).value_or(0);
      M.Fp64ErrorRatio = O.getNumber(VR::Fp64ErrorRatio).value_or(0);
      M.Skipped = O.getBoolean(VR::Skipped).value_or(false);
      M.StoppedEarly = O.getBoolean(VR::StoppedEarly).value_or(false);
      if (const json::Object *T = O.getObject(VR::Timing)) {
        M.MedianMs = T->getNumber(ST::MedianMs).value_or(0);
        M.MinMs = T->getNumber(ST::MinMs).value_or(0);
        M.MaxMs = T->getNumber(ST::MaxMs).value_or(0);
        M.P10Ms = T->getNumber(ST::P10Ms).value_or(0);
        M.P90Ms = T->getNumber(ST::P90Ms).value_or(0);
        M.Runs = T->getInteger(ST::Runs).value_or(0);
      }
      if (M.Id == Vs[0].Id) {
        M.ReplayWarning = ReplayWarning;
        M.ShadowNote = ShadowNote;
      }
      Done[M.Id] = M;
    }
    if (Opts.Progress)
      Opts.Progress(Total, Total);
    break;
  }
  std::vector<Measurement> Out;
  for (const VariantSource &V : Vs) {
    auto It = Done.find(V.Id);
    if (It != Done.end()) {
      Out.push_back(It->second);
    } else {
      Measurement M;
      M.Id = V.Id;
      M.Error = "not measured";
      Out.push_back(M);
    }
  }
  if (!Out.front().Verified)
    return createStringError(inconvertibleErrorCode(),
                             "the original kernel could not be measured: %s",
                             Out.front().Error.c_str());
  return Out;
}

Expected<std::vector<Measurement>>
measureVariants(const std::vector<VariantSource> &Vs,
                const std::vector<std::string> &Cubins, const json::Array &Args,
                const MeasureOptions &Opts, std::string &DeviceName,
                ReferenceMeasurement *Reference) {
  const size_t NumDevices = std::min(Opts.Devices.size(), Vs.size() - 1);
  if (NumDevices <= 1) {
    MeasureOptions One = Opts;
    if (!Opts.Devices.empty())
      One.Device = Opts.Devices.front();
    return measureOnOneDevice(Vs, Cubins, Args, One, DeviceName, Reference);
  }
  // One worker per GPU, each on its share of the variants and its own copy
  // of the baseline: a variant is only ever timed against the original on
  // the same GPU. Its times are then scaled by (baseline on GPU 0 / baseline
  // on its GPU), so speedups are preserved and medians are comparable.
  std::vector<std::vector<size_t>> Share(NumDevices);
  for (size_t I = 1; I < Vs.size(); ++I)
    Share[(I - 1) % NumDevices].push_back(I);
  std::vector<Expected<std::vector<Measurement>>> Results;
  std::vector<std::string> Names(NumDevices);
  std::vector<ReferenceMeasurement> Refs(NumDevices);
  for (size_t D = 0; D < NumDevices; ++D)
    Results.emplace_back(std::vector<Measurement>());
  std::vector<std::thread> Threads;
  for (size_t D = 0; D < NumDevices; ++D)
    Threads.emplace_back([&, D] {
      std::vector<VariantSource> SubVs = {Vs[0]};
      std::vector<std::string> SubCubins = {Cubins[0]};
      for (size_t I : Share[D]) {
        SubVs.push_back(Vs[I]);
        SubCubins.push_back(Cubins[I]);
      }
      MeasureOptions One = Opts;
      One.Device = Opts.Devices[D];
      SmallString<256> Dir(Opts.WorkDir);
      sys::path::append(Dir, "gpu" + std::to_string(One.Device));
      One.WorkDir = std::string(Dir);
      One.Progress = nullptr;
      if (D != 0)
        One.Reference.reset(); // The library baseline is timed once.
      Results[D] = measureOnOneDevice(SubVs, SubCubins, Args, One, Names[D],
                                      D == 0 ? Reference : nullptr);
    });
  for (std::thread &T : Threads)
    T.join();
  for (size_t D = 0; D < NumDevices; ++D)
    if (!Results[D])
      return Results[D].takeError();
  DeviceName = Names[0] + " (x" + std::to_string(NumDevices) + ")";
  std::vector<Measurement> Out(Vs.size());
  Out[0] = (*Results[0])[0];
  const double Base0 = Out[0].MedianMs;
  for (size_t D = 0; D < NumDevices; ++D) {
    const double BaseD = (*Results[D])[0].MedianMs;
    const double Scale = BaseD > 0 ? Base0 / BaseD : 1;
    for (size_t J = 0; J < Share[D].size(); ++J) {
      Measurement M = (*Results[D])[J + 1];
      M.MedianMs *= Scale;
      M.MinMs *= Scale;
      M.MaxMs *= Scale;
      M.P10Ms *= Scale;
      M.P90Ms *= Scale;
      Out[Share[D][J]] = M;
    }
  }
  if (Opts.Progress)
    Opts.Progress(Vs.size() - 1, Vs.size() - 1);
  return Out;
}

} // namespace cuda_opt
