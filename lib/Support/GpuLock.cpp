//===- GpuLock.cpp - One timing user of a GPU at a time ------------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Support/GpuLock.h"
#include "GpuLockFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <atomic>
#include <chrono>

using namespace llvm;

namespace cuda_opt {

static std::atomic<int64_t> WaitMicroseconds{0};

double GpuLock::totalWaitSeconds() { return WaitMicroseconds.load() / 1e6; }

void GpuLock::addWaitSeconds(double Seconds) {
  WaitMicroseconds += static_cast<int64_t>(Seconds * 1e6);
}

std::string GpuLock::directory() {
  if (std::optional<std::string> Dir = sys::Process::GetEnv("CUDA_OPT_LOCK_DIR"))
    return *Dir;
  SmallString<256> Path;
  sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Path);
  return std::string(Path);
}

GpuLock::GpuLock(int Device, Mode M)
    : Files(std::make_unique<GpuLockFiles>(directory(), Device)) {
  auto Start = std::chrono::steady_clock::now();
  if (M == Shared)
    Files->lockShared();
  else
    Files->lockExclusive();
  WaitMicroseconds += std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::steady_clock::now() - Start)
                          .count();
}

GpuLock::~GpuLock() = default;

} // namespace cuda_opt
