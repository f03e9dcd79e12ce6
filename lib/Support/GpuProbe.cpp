//===- GpuProbe.cpp - Is there a CUDA GPU to measure on? -----------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Support/GpuProbe.h"

#include <dlfcn.h>

namespace cuda_opt {

GpuProbeResult probeGpus() {
  GpuProbeResult R;
  void *Lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    R.Reason = "no CUDA driver (libcuda.so.1 not found)";
    return R;
  }
  // The driver API entry points we need, declared by hand: the tool does not
  // link against CUDA.
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int *);
  using GetFn = int (*)(int *, int);
  using NameFn = int (*)(char *, int, int);
  using AttrFn = int (*)(int *, int, int);
  using VersionFn = int (*)(int *);
  auto Init = reinterpret_cast<InitFn>(dlsym(Lib, "cuInit"));
  auto Count = reinterpret_cast<CountFn>(dlsym(Lib, "cuDeviceGetCount"));
  auto Get = reinterpret_cast<GetFn>(dlsym(Lib, "cuDeviceGet"));
  auto Name = reinterpret_cast<NameFn>(dlsym(Lib, "cuDeviceGetName"));
  auto Attr = reinterpret_cast<AttrFn>(dlsym(Lib, "cuDeviceGetAttribute"));
  auto DriverVersion =
      reinterpret_cast<VersionFn>(dlsym(Lib, "cuDriverGetVersion"));
  if (!Init || !Count || !Get || !Name || !Attr) {
    R.Reason = "the CUDA driver library lacks the expected entry points";
    return R;
  }
  if (int Err = Init(0)) {
    R.Reason = "cuInit failed with CUDA error " + std::to_string(Err) +
               " (no GPU, or the driver cannot reach it)";
    return R;
  }
  if (int V = 0; DriverVersion && DriverVersion(&V) == 0)
    R.DriverVersion =
        std::to_string(V / 1000) + "." + std::to_string(V % 1000 / 10);
  int N = 0;
  if (Count(&N) || N == 0) {
    R.Reason = "the CUDA driver reports no GPU";
    return R;
  }
  for (int I = 0; I < N; ++I) {
    int Dev;
    if (Get(&Dev, I))
      continue;
    GpuInfo G;
    G.Ordinal = I;
    char Buf[256] = {0};
    Name(Buf, sizeof(Buf) - 1, Dev);
    G.Name = Buf;
    // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR.
    Attr(&G.ComputeMajor, 75, Dev);
    Attr(&G.ComputeMinor, 76, Dev);
    // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT.
    Attr(&G.SmCount, 16, Dev);
    R.Devices.push_back(G);
  }
  if (R.Devices.empty())
    R.Reason = "no GPU could be opened";
  return R;
}

} // namespace cuda_opt
