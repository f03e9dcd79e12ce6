//===- GpuLock.h - One timing user of a GPU at a time --------*- C++ -*-===//
//
// Part of cuda-opt. Several `cuda-opt tune` processes may run at once (the
// benchmark tunes programs in parallel so compiles overlap), but nothing may
// run on a GPU while something is timed on it: measurement workers hold this
// lock exclusively; program runs that only capture (nothing is timed) hold it
// shared, so they overlap each other but never a measurement; compiles do not
// take it. The measurement worker takes it itself (shared for set-up and
// verification, exclusive only while it times), given directory() in its
// job. Advisory flock(2) files in $CUDA_OPT_LOCK_DIR (default: the system
// temp dir), protocol in GpuLockFiles.h; released when the object dies or
// the process exits.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SUPPORT_GPULOCK_H
#define CUDA_OPT_SUPPORT_GPULOCK_H

#include <memory>
#include <string>

namespace cuda_opt {

class GpuLockFiles;

class GpuLock {
public:
  enum Mode { Exclusive, Shared };
  explicit GpuLock(int Device = 0, Mode M = Exclusive);

  /// Seconds this process has spent waiting for GPU locks so far (all
  /// threads): how much of a tune's time other processes' GPU work cost it.
  static double totalWaitSeconds();
  /// Adds a child process's lock waits (the worker's) to totalWaitSeconds.
  static void addWaitSeconds(double Seconds);
  /// The directory holding the lock files.
  static std::string directory();
  ~GpuLock();
  GpuLock(const GpuLock &) = delete;
  GpuLock &operator=(const GpuLock &) = delete;

private:
  std::unique_ptr<GpuLockFiles> Files;
};

} // namespace cuda_opt

#endif // CUDA_OPT_SUPPORT_GPULOCK_H
