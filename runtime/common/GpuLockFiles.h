//===- GpuLockFiles.h - The GPU lock's protocol -----------------*- C++ -*-===//
//
// Part of cuda-opt's runtime. Header-only and POSIX-only (no LLVM): both
// cuda-opt (lib/Support/GpuLock.cpp) and the measurement worker
// (runtime/measure, built without LLVM on the GPU machine) take the same
// lock this way; docs/worker-protocol.md describes it.
//
// The lock is a readers/writer lock on one GPU made of two flock(2) files in
// one directory: "cuda-opt-gpuN.lock" (held shared by whatever runs on the
// GPU without timing: captures, program runs, a worker's set-up and
// verification; exclusively by a worker's timing phase) and a gate,
// "cuda-opt-gpuN.gate". flock alone lets a stream of overlapping shared
// holders starve an exclusive waiter; the gate prefers writers: a writer
// holds it while waiting for the main lock, and new readers queue on it.
// A writer drops its own shared hold before taking the gate, so a reader
// that becomes a writer (the worker) cannot deadlock with another writer.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_COMMON_GPULOCKFILES_H
#define CUDA_OPT_RUNTIME_COMMON_GPULOCKFILES_H

#include <cerrno>
#include <fcntl.h>
#include <string>
#include <sys/file.h>
#include <unistd.h>

namespace cuda_opt {

class GpuLockFiles {
public:
  /// Opens (creating) the lock files of GPU \p Device in \p Dir. Without
  /// them (a read-only directory) every operation is a no-op: running
  /// unserialised beats not running.
  GpuLockFiles(const std::string &Dir, int Device) {
    const std::string Base = Dir + "/cuda-opt-gpu" + std::to_string(Device);
    Main = ::open((Base + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    Gate = ::open((Base + ".gate").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  }
  ~GpuLockFiles() {
    if (Main >= 0)
      ::close(Main);
    if (Gate >= 0)
      ::close(Gate);
  }
  GpuLockFiles(const GpuLockFiles &) = delete;
  GpuLockFiles &operator=(const GpuLockFiles &) = delete;

  bool usable() const { return Main >= 0 && Gate >= 0; }

  void lockShared() {
    if (!usable())
      return;
    retry(Gate, LOCK_SH);
    retry(Main, LOCK_SH);
    retry(Gate, LOCK_UN);
  }

  /// From nothing or from a shared hold.
  void lockExclusive() {
    if (!usable())
      return;
    retry(Main, LOCK_UN);
    retry(Gate, LOCK_EX);
    retry(Main, LOCK_EX);
    retry(Gate, LOCK_UN);
  }

  void unlock() {
    if (usable())
      retry(Main, LOCK_UN);
  }

private:
  static void retry(int FD, int Op) {
    while (::flock(FD, Op) != 0 && errno == EINTR) {
    }
  }
  int Main = -1;
  int Gate = -1;
};

} // namespace cuda_opt

#endif // CUDA_OPT_RUNTIME_COMMON_GPULOCKFILES_H
