//===- DeviceCheck.h - Verify variants on the GPU -------------------------===//
//
// Part of cuda-opt's runtime. The worker's checks run where the buffers are:
// comparing a 1 GB output on the host cost seconds per variant and seed
// (copy back plus a scalar loop); on the GPU it is a fraction of a
// millisecond. The rules are Compare.h's, element for element.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_MEASURE_DEVICECHECK_H
#define CUDA_OPT_RUNTIME_MEASURE_DEVICECHECK_H

#include "Compare.h"
#include "DType.h"

#include <cuda.h>

#include <cstdint>
#include <string>

namespace co_runtime {

class DeviceChecks {
public:
  /// Compile the check kernels with NVRTC for the current context's device
  /// and load them. On failure returns false with a message in Error.
  bool load(CUdevice Dev, std::string &Error);

  /// Compare Count elements of Actual with Expected (both on the device).
  /// Floor is the absolute floor of the relative test (Compare.h).
  CUresult compare(CUdeviceptr Expected, CUdeviceptr Actual, size_t Count,
                   DType T, double RelTol, double Floor, CompareResult &Out);
  /// Largest finite |x| of a floating-point buffer (0 for other types).
  CUresult absMax(CUdeviceptr P, size_t Count, DType T, double &Out);
  /// Out[i] = In[i] for a float buffer In and a double buffer Out.
  CUresult widen(CUdeviceptr In, CUdeviceptr Out, size_t Count);
  /// Largest |A[i] - Ref[i]| where both are finite; A holds floats, Ref
  /// doubles (the fp64 shadow's output).
  CUresult maxAbsDiff(CUdeviceptr A, CUdeviceptr Ref, size_t Count,
                      double &Out);
  /// Per row of RowLength contiguous elements: Out[r] = max(Out[r], the
  /// largest |A[i] - Ref[i]| of the row where both are finite), Out holding
  /// Rows doubles on the device (zero them to start). A == 0: |Ref[i]|.
  CUresult rowMaxAbsDiff(CUdeviceptr A, CUdeviceptr Ref, size_t Rows,
                         size_t RowLength, CUdeviceptr Out);
  /// Rows r where Err[r] > 2 Base[r] + 2 ulp(Scale[r]) (doubles on the
  /// device): how many, and the first.
  CUresult rowCheck(CUdeviceptr Err, CUdeviceptr Base, CUdeviceptr Scale,
                    size_t Rows, uint64_t &Failing, uint64_t &First);
  /// Bytes where A differs from B.
  CUresult bytesDiffer(CUdeviceptr A, CUdeviceptr B, size_t Bytes,
                       uint64_t &Out);
  /// Bytes of P that are not Value.
  CUresult bytesNotEqual(CUdeviceptr P, size_t Bytes, unsigned char Value,
                         uint64_t &Out);
  /// Redraw the finite values of a floating-point buffer uniformly within
  /// their current range (others are left alone).
  CUresult redrawWithinRange(CUdeviceptr P, size_t Count, DType T,
                             uint32_t Seed);

  /// Enqueue a one-thread kernel that keeps the GPU busy for Microseconds
  /// on Stream (see co_spin).
  CUresult spin(CUstream Stream, unsigned Microseconds);

private:
  CUresult launch(CUfunction F, size_t Work, void **Params);
  /// The first result slot, a double's bits.
  CUresult readDoubleSlot(double &Out);
  CUmodule Mod = nullptr;
  CUfunction Compare = nullptr, AbsMax = nullptr, BytesDiffer = nullptr,
             MinMax = nullptr, Redraw = nullptr, Spin = nullptr,
             Widen = nullptr, MaxAbsDiff = nullptr, RowMaxAbsDiff = nullptr,
             RowCheck = nullptr;
  CUdeviceptr Scratch = 0; // Three 64-bit result slots.
  int Blocks = 0;
};

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_MEASURE_DEVICECHECK_H
