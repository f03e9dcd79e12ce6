//===- GpuLock.cpp - One timing user of a GPU at a time ------------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Support/GpuLock.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using namespace llvm;

namespace cuda_opt {

static std::atomic<int64_t> WaitMicroseconds{0};

double GpuLock::totalWaitSeconds() { return WaitMicroseconds.load() / 1e6; }

GpuLock::GpuLock(int Device, Mode M) {
  auto Start = std::chrono::steady_clock::now();
  SmallString<256> Path;
  if (std::optional<std::string> Dir = sys::Process::GetEnv("CUDA_OPT_LOCK_DIR"))
    Path = *Dir;
  else
    sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Path);
  sys::path::append(Path, "cuda-opt-gpu" + std::to_string(Device) + ".lock");
  FD = ::open(Path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  // Without a lock file (read-only temp dir) we run unserialised rather than
  // not at all.
  if (FD >= 0)
    while (::flock(FD, M == Shared ? LOCK_SH : LOCK_EX) != 0 &&
           errno == EINTR) {
    }
  WaitMicroseconds += std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::steady_clock::now() - Start)
                          .count();
}

GpuLock::~GpuLock() {
  if (FD >= 0)
    ::close(FD);
}

} // namespace cuda_opt
