//===- GpuProbe.h - Is there a CUDA GPU to measure on? ----------*- C++ -*-===//
//
// Part of cuda-opt. Loads the CUDA driver library at run time (no link-time
// dependency, so the same binary runs on machines without a driver).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_SUPPORT_GPUPROBE_H
#define CUDA_OPT_SUPPORT_GPUPROBE_H

#include <string>
#include <vector>

namespace cuda_opt {

struct GpuInfo {
  int Ordinal = 0;
  std::string Name;
  int ComputeMajor = 0, ComputeMinor = 0;
  int SmCount = 0; ///< Streaming multiprocessors.
};

struct GpuProbeResult {
  std::vector<GpuInfo> Devices;
  /// Why no device is usable (empty when Devices is non-empty).
  std::string Reason;
  /// The driver's CUDA version ("12.8", cuDriverGetVersion), or "".
  std::string DriverVersion;
};

GpuProbeResult probeGpus();

} // namespace cuda_opt

#endif // CUDA_OPT_SUPPORT_GPUPROBE_H
