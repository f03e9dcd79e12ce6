//===- GpuLock.h - One timing user of a GPU at a time --------*- C++ -*-===//
//
// Part of cuda-opt. Several `cuda-opt tune` processes may run at once (the
// benchmark tunes programs in parallel so compiles overlap), but nothing may
// run on a GPU while something is timed on it: measurement workers hold this
// lock exclusively; program runs that only capture (nothing is timed) hold it
// shared, so they overlap each other but never a measurement; compiles do not
// take it. An advisory flock(2) on $CUDA_OPT_LOCK_DIR (default: the system
// temp dir)/cuda-opt-gpuN.lock; released when the object dies or the process
// exits.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SUPPORT_GPULOCK_H
#define CUDA_OPT_SUPPORT_GPULOCK_H

namespace cuda_opt {

class GpuLock {
public:
  enum Mode { Exclusive, Shared };
  explicit GpuLock(int Device = 0, Mode M = Exclusive);

  /// Seconds this process has spent waiting for GPU locks so far (all
  /// threads): how much of a tune's time other processes' GPU work cost it.
  static double totalWaitSeconds();
  ~GpuLock();
  GpuLock(const GpuLock &) = delete;
  GpuLock &operator=(const GpuLock &) = delete;

private:
  int FD = -1;
};

} // namespace cuda_opt

#endif // CUDA_OPT_SUPPORT_GPULOCK_H
