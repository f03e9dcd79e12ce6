//===- WorkerContext.h - What the worker's phases share ---------*- C++ -*-===//
//
// Part of cuda-opt's runtime. One WorkerContext lives for one run of
// cuda-opt-measure: the result file being written (the worker rewrites it
// as it goes, so one that dies leaves what it reached), the fatal exits, the
// GPU and its check kernels, the phase clock and the GPU lock.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_MEASURE_WORKERCONTEXT_H
#define CUDA_OPT_RUNTIME_MEASURE_WORKERCONTEXT_H

#include "DeviceCheck.h"
#include "GpuLockFiles.h"
#include "Json.h"
#include "WorkerProtocol.h"

#include <cuda.h>

#include <chrono>
#include <memory>
#include <string>

namespace co_runtime {

/// "NAME (description)" of a CUDA driver error.
std::string cuErr(CUresult R);

class WorkerContext {
public:
  using Clock = std::chrono::steady_clock;

  explicit WorkerContext(std::string ResultPath)
      : ResultPath(std::move(ResultPath)) {}

  /// The result file's contents so far.
  Json Result = Json::object();
  /// The check kernels, once loaded (DeviceCheck.h).
  DeviceChecks Checks;
  CUdevice Dev = 0;
  /// When the job started (after it was read); its time limit counts from
  /// here.
  Clock::time_point Started;

  void writeResult() const;
  /// Records Msg as the result's error, writes it and exits with Code.
  [[noreturn]] void fatal(const std::string &Msg,
                          int Code = cuda_opt::worker::ExitError);
  /// A failure inside a variant: records it against the variant, then stops
  /// the worker (the context is unusable after a fault).
  [[noreturn]] void variantFault(const std::string &VariantId,
                                 const std::string &What, CUresult R);
  /// fatal() unless R is success.
  void check(CUresult R, const std::string &What);
  /// The same for the check kernels.
  void checkDevice(CUresult R, const std::string &What) {
    check(R, "on-GPU check (" + What + ")");
  }

  /// Starts the clock of the first phase at Started.
  void startPhases();
  /// Ends the current phase (result "phase_seconds"), without the time spent
  /// waiting for the GPU lock.
  void endPhase(const char *Name);
  /// Writes "phase_seconds" into the result.
  void recordPhases();

  /// Takes the GPU lock of Device in LockDir (no-op when LockDir is empty),
  /// shared or exclusive; WaitFlag, if named, exists while it waits. The
  /// wait is added up in the result's "lock_wait_s".
  void lockGpu(const std::string &LockDir, const std::string &WaitFlag,
               int Device, bool Exclusive);
  /// Releases the GPU lock.
  void unlockGpu() { Lock.reset(); }

private:
  std::string ResultPath;
  Json Phases = Json::object();
  Clock::time_point PhaseStart;
  double LockWait = 0;
  std::unique_ptr<cuda_opt::GpuLockFiles> Lock;
};

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_MEASURE_WORKERCONTEXT_H
