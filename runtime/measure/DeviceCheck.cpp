//===- DeviceCheck.cpp - Verify variants on the GPU -----------------------===//
//
// Part of cuda-opt's runtime.
//
//===----------------------------------------------------------------------===//
#include "DeviceCheck.h"
#include "DeviceCheckKernels.h"

#include <nvrtc.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace co_runtime {

namespace {

int checkKind(DType T) {
  switch (T) {
  case DType::F32: return 0;
  case DType::F64: return 1;
  case DType::F16: return 2;
  case DType::BF16: return 3;
  default: return 10 + static_cast<int>(dtypeSize(T));
  }
}

} // namespace

bool DeviceChecks::load(CUdevice Dev, std::string &Error) {
  int Major = 0, Minor = 0;
  cuDeviceGetAttribute(&Major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, Dev);
  cuDeviceGetAttribute(&Minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, Dev);
  int SMs = 0;
  cuDeviceGetAttribute(&SMs, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, Dev);
  Blocks = 4 * (SMs > 0 ? SMs : 1);

  nvrtcProgram Prog;
  if (nvrtcCreateProgram(&Prog, deviceCheckSource(), "cuda_opt_checks.cu", 0,
                         nullptr, nullptr) != NVRTC_SUCCESS) {
    Error = "nvrtcCreateProgram failed";
    return false;
  }
  std::string Arch = "--gpu-architecture=sm_" + std::to_string(Major) +
                     std::to_string(Minor);
  const char *Opts[] = {Arch.c_str()};
  nvrtcResult R = nvrtcCompileProgram(Prog, 1, Opts);
  if (R != NVRTC_SUCCESS) {
    size_t LogSize = 0;
    nvrtcGetProgramLogSize(Prog, &LogSize);
    std::string Log(LogSize, '\0');
    nvrtcGetProgramLog(Prog, Log.data());
    Error = std::string("NVRTC could not build the check kernels: ") +
            nvrtcGetErrorString(R) + "\n" + Log;
    nvrtcDestroyProgram(&Prog);
    return false;
  }
  size_t Size = 0;
  nvrtcGetCUBINSize(Prog, &Size);
  std::vector<char> Cubin(Size);
  nvrtcGetCUBIN(Prog, Cubin.data());
  nvrtcDestroyProgram(&Prog);

  CUresult C = cuModuleLoadData(&Mod, Cubin.data());
  const struct {
    CUfunction *Fn;
    const char *Name;
  } Entries[] = {{&Compare, "co_compare"},         {&AbsMax, "co_absmax"},
                 {&BytesDiffer, "co_bytes_differ"}, {&MinMax, "co_minmax"},
                 {&Redraw, "co_redraw"},           {&Spin, "co_spin"},
                 {&Widen, "co_widen"},             {&MaxAbsDiff, "co_maxabsdiff"},
                 {&RowMaxAbsDiff, "co_row_maxabsdiff"},
                 {&RowCheck, "co_row_check"}};
  for (const auto &E : Entries)
    if (C == CUDA_SUCCESS)
      C = cuModuleGetFunction(E.Fn, Mod, E.Name);
  if (C == CUDA_SUCCESS)
    C = cuMemAlloc(&Scratch, 3 * sizeof(uint64_t));
  if (C != CUDA_SUCCESS) {
    const char *Name = nullptr;
    cuGetErrorName(C, &Name);
    Error = std::string("cannot load the check kernels: ") +
            (Name ? Name : "?");
    return false;
  }
  return true;
}

CUresult DeviceChecks::launch(CUfunction F, size_t Work, void **Params) {
  const unsigned Threads = 256;
  size_t Need = (Work + Threads - 1) / Threads;
  unsigned Grid = static_cast<unsigned>(
      std::max<size_t>(1, std::min<size_t>(Need, static_cast<size_t>(Blocks))));
  CUresult R = cuLaunchKernel(F, Grid, 1, 1, Threads, 1, 1, 0, nullptr, Params,
                              nullptr);
  return R == CUDA_SUCCESS ? cuCtxSynchronize() : R;
}

/// Zero the result slots, except those listed as starting at all ones.
static CUresult resetSlots(CUdeviceptr Scratch, std::initializer_list<int> Ones) {
  uint64_t Init[3] = {0, 0, 0};
  for (int I : Ones)
    Init[I] = ~0ull;
  return cuMemcpyHtoD(Scratch, Init, sizeof(Init));
}

CUresult DeviceChecks::readDoubleSlot(double &Out) {
  uint64_t Bits;
  if (CUresult R = cuMemcpyDtoH(&Bits, Scratch, sizeof(Bits)))
    return R;
  std::memcpy(&Out, &Bits, sizeof(double));
  return CUDA_SUCCESS;
}

CUresult DeviceChecks::spin(CUstream Stream, unsigned Microseconds) {
  unsigned long long Ns = 1000ull * Microseconds;
  void *Params[] = {&Ns};
  return cuLaunchKernel(Spin, 1, 1, 1, 1, 1, 1, 0, Stream, Params, nullptr);
}

CUresult DeviceChecks::compare(CUdeviceptr Expected, CUdeviceptr Actual,
                               size_t Count, DType T, double RelTol,
                               double Floor, CompareResult &Out) {
  Out = CompareResult();
  if (CUresult R = resetSlots(Scratch, {1}))
    return R;
  int Kind = checkKind(T);
  unsigned long long N = Count;
  void *Params[] = {&Expected, &Actual, &N, &Kind, &RelTol, &Floor, &Scratch};
  if (CUresult R = launch(Compare, Count, Params))
    return R;
  uint64_t Slots[3];
  if (CUresult R = cuMemcpyDtoH(Slots, Scratch, sizeof(Slots)))
    return R;
  std::memcpy(&Out.MaxRelError, &Slots[2], sizeof(double));
  if (Slots[0] == 0)
    return CUDA_SUCCESS;
  Out.Equal = false;
  Out.Mismatches = Slots[0];
  Out.FirstIndex = Slots[1];
  const size_t E = dtypeSize(T);
  unsigned char X[8] = {0}, Y[8] = {0};
  if (CUresult R = cuMemcpyDtoH(X, Expected + Out.FirstIndex * E, E))
    return R;
  if (CUresult R = cuMemcpyDtoH(Y, Actual + Out.FirstIndex * E, E))
    return R;
  Out.FirstExpected = loadAsDouble(X, 0, T);
  Out.FirstActual = loadAsDouble(Y, 0, T);
  return CUDA_SUCCESS;
}

CUresult DeviceChecks::absMax(CUdeviceptr P, size_t Count, DType T,
                              double &Out) {
  Out = 0;
  if (!isFloating(T))
    return CUDA_SUCCESS;
  if (CUresult R = resetSlots(Scratch, {}))
    return R;
  int Kind = checkKind(T);
  unsigned long long N = Count;
  void *Params[] = {&P, &N, &Kind, &Scratch};
  if (CUresult R = launch(AbsMax, Count, Params))
    return R;
  return readDoubleSlot(Out);
}

CUresult DeviceChecks::widen(CUdeviceptr In, CUdeviceptr Out, size_t Count) {
  unsigned long long N = Count;
  void *Params[] = {&In, &Out, &N};
  return launch(Widen, Count, Params);
}

CUresult DeviceChecks::maxAbsDiff(CUdeviceptr A, CUdeviceptr Ref, size_t Count,
                                  double &Out) {
  Out = 0;
  if (CUresult R = resetSlots(Scratch, {}))
    return R;
  unsigned long long N = Count;
  void *Params[] = {&A, &Ref, &N, &Scratch};
  if (CUresult R = launch(MaxAbsDiff, Count, Params))
    return R;
  return readDoubleSlot(Out);
}

CUresult DeviceChecks::rowMaxAbsDiff(CUdeviceptr A, CUdeviceptr Ref,
                                     size_t Rows, size_t RowLength,
                                     CUdeviceptr Out) {
  unsigned long long R = Rows, Len = RowLength;
  void *Params[] = {&A, &Ref, &R, &Len, &Out};
  // Threads: one per short row, else a warp per chunk of 2048 elements.
  size_t Work = RowLength <= 16 ? Rows : Rows * ((RowLength + 2047) / 2048) * 32;
  return launch(RowMaxAbsDiff, Work, Params);
}

CUresult DeviceChecks::rowCheck(CUdeviceptr Err, CUdeviceptr Base,
                                CUdeviceptr Scale, size_t Rows,
                                uint64_t &Failing, uint64_t &First) {
  if (CUresult R = resetSlots(Scratch, {1}))
    return R;
  unsigned long long N = Rows;
  void *Params[] = {&Err, &Base, &Scale, &N, &Scratch};
  if (CUresult R = launch(RowCheck, Rows, Params))
    return R;
  uint64_t Slots[2];
  if (CUresult R = cuMemcpyDtoH(Slots, Scratch, sizeof(Slots)))
    return R;
  Failing = Slots[0];
  First = Slots[1];
  return CUDA_SUCCESS;
}

CUresult DeviceChecks::bytesDiffer(CUdeviceptr A, CUdeviceptr B, size_t Bytes,
                                   uint64_t &Out) {
  if (CUresult R = resetSlots(Scratch, {}))
    return R;
  unsigned long long N = Bytes;
  unsigned char Value = 0;
  void *Params[] = {&A, &B, &N, &Value, &Scratch};
  if (CUresult R = launch(BytesDiffer, Bytes / 16 + 1, Params))
    return R;
  return cuMemcpyDtoH(&Out, Scratch, sizeof(Out));
}

CUresult DeviceChecks::bytesNotEqual(CUdeviceptr P, size_t Bytes,
                                     unsigned char Value, uint64_t &Out) {
  if (CUresult R = resetSlots(Scratch, {}))
    return R;
  unsigned long long N = Bytes;
  CUdeviceptr None = 0;
  void *Params[] = {&P, &None, &N, &Value, &Scratch};
  if (CUresult R = launch(BytesDiffer, Bytes / 16 + 1, Params))
    return R;
  return cuMemcpyDtoH(&Out, Scratch, sizeof(Out));
}

CUresult DeviceChecks::redrawWithinRange(CUdeviceptr P, size_t Count, DType T,
                                         uint32_t Seed) {
  if (!isFloating(T))
    return CUDA_SUCCESS;
  if (CUresult R = resetSlots(Scratch, {0}))
    return R;
  int Kind = checkKind(T);
  unsigned long long N = Count;
  void *Range[] = {&P, &N, &Kind, &Scratch};
  if (CUresult R = launch(MinMax, Count, Range))
    return R;
  uint64_t Keys[2];
  if (CUresult R = cuMemcpyDtoH(Keys, Scratch, sizeof(Keys)))
    return R;
  if (Keys[0] > Keys[1])
    return CUDA_SUCCESS; // No finite value.
  auto FromKey = [](uint64_t K) {
    uint64_t B = (K >> 63) ? (K & ~(1ull << 63)) : ~K;
    double D;
    std::memcpy(&D, &B, sizeof(D));
    return D;
  };
  double Lo = FromKey(Keys[0]), Hi = FromKey(Keys[1]);
  if (!(Lo < Hi))
    return CUDA_SUCCESS;
  void *Params[] = {&P, &N, &Kind, &Lo, &Hi, &Seed};
  return launch(Redraw, Count, Params);
}

} // namespace co_runtime
