//===- WorkerContext.cpp - What the worker's phases share -----------------===//
//
// Part of cuda-opt's runtime.
//
//===----------------------------------------------------------------------===//
#include "WorkerContext.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace co_runtime {

namespace proto = cuda_opt::worker;

std::string cuErr(CUresult R) {
  const char *Name = nullptr, *Str = nullptr;
  cuGetErrorName(R, &Name);
  cuGetErrorString(R, &Str);
  return std::string(Name ? Name : "?") + " (" + (Str ? Str : "") + ")";
}

void WorkerContext::writeResult() const {
  std::ofstream OS(ResultPath);
  OS << Result.dump(2) << "\n";
}

void WorkerContext::fatal(const std::string &Msg, int Code) {
  Result.set(proto::result::Error, Msg);
  writeResult();
  std::fprintf(stderr, "cuda-opt-measure: error: %s\n", Msg.c_str());
  std::exit(Code);
}

void WorkerContext::variantFault(const std::string &VariantId,
                                 const std::string &What, CUresult R) {
  Result.set(proto::result::CrashedVariant, VariantId);
  Result.set(proto::result::CrashError, What + ": " + cuErr(R));
  writeResult();
  std::fprintf(stderr, "cuda-opt-measure: variant %s faulted: %s\n",
               VariantId.c_str(), cuErr(R).c_str());
  std::exit(proto::ExitVariantFault);
}

void WorkerContext::check(CUresult R, const std::string &What) {
  if (R != CUDA_SUCCESS)
    fatal(What + ": " + cuErr(R));
}

void WorkerContext::startPhases() { PhaseStart = Started; }

void WorkerContext::endPhase(const char *Name) {
  const auto Now = Clock::now();
  Phases.set(Name, std::chrono::duration<double>(Now - PhaseStart).count());
  PhaseStart = Now;
}

void WorkerContext::recordPhases() {
  Result.set(proto::result::PhaseSeconds, Phases);
}

void WorkerContext::lockGpu(const std::string &LockDir,
                            const std::string &WaitFlag, int Device,
                            bool Exclusive) {
  if (LockDir.empty())
    return;
  if (!Lock)
    Lock = std::make_unique<cuda_opt::GpuLockFiles>(LockDir, Device);
  const auto T0 = Clock::now();
  if (!WaitFlag.empty())
    std::ofstream(WaitFlag) << "waiting\n";
  if (Exclusive)
    Lock->lockExclusive();
  else
    Lock->lockShared();
  if (!WaitFlag.empty())
    std::remove(WaitFlag.c_str());
  const auto T1 = Clock::now();
  LockWait += std::chrono::duration<double>(T1 - T0).count();
  PhaseStart += T1 - T0;
  Result.set(proto::result::LockWait, LockWait);
}

} // namespace co_runtime
