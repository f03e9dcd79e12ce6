//===- DeviceCheckKernels.h - CUDA source of the on-GPU checks ------------===//
//
// Part of cuda-opt's runtime. The kernels the worker runs to verify variants
// without copying buffers to the host: output comparison (the rules of
// Compare.h, element for element), byte comparison of inputs against their
// pristine copy, guard-band checks, and the redraw of captured inputs for
// later seeds. The worker compiles this source with NVRTC when it starts
// (DeviceCheck.cpp), so it still needs no nvcc.
//
// Element kinds (DeviceCheck.h, `CheckKind`): 0 f32, 1 f64, 2 f16, 3 bf16;
// 11/12/14/18: compared bit for bit, 1/2/4/8 bytes per element.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_MEASURE_DEVICECHECKKERNELS_H
#define CUDA_OPT_RUNTIME_MEASURE_DEVICECHECKKERNELS_H

namespace co_runtime {

inline const char *deviceCheckSource() {
  return R"CUDA(
typedef unsigned long long u64;
typedef unsigned int u32;

__device__ __forceinline__ double co_load(const void *P, u64 I, int Kind) {
  switch (Kind) {
  case 0: return ((const float *)P)[I];
  case 1: return ((const double *)P)[I];
  case 2: {
    unsigned short H = ((const unsigned short *)P)[I];
    float F;
    asm("cvt.f32.f16 %0, %1;" : "=f"(F) : "h"(H));
    return F;
  }
  case 3: return __uint_as_float(((u32)((const unsigned short *)P)[I]) << 16);
  }
  return 0;
}

__device__ __forceinline__ u64 co_bits(const void *P, u64 I, int Kind) {
  switch (Kind) {
  case 11: return ((const unsigned char *)P)[I];
  case 12: return ((const unsigned short *)P)[I];
  case 14: return ((const u32 *)P)[I];
  }
  return ((const u64 *)P)[I];
}

__device__ __forceinline__ bool co_finite(double X) { return isfinite(X); }

// Non-negative doubles order like their bit patterns.
__device__ __forceinline__ void co_max_double(u64 *Slot, double V) {
  atomicMax(Slot, (u64)__double_as_longlong(V));
}

// Out[0] = largest finite |x| (as double bits). Out must start at 0.
extern "C" __global__ void co_absmax(const void *P, u64 Count, int Kind,
                                     u64 *Out) {
  double M = 0;
  for (u64 I = blockIdx.x * (u64)blockDim.x + threadIdx.x; I < Count;
       I += (u64)gridDim.x * blockDim.x) {
    double X = co_load(P, I, Kind);
    if (co_finite(X))
      M = fmax(M, fabs(X));
  }
  for (int O = 16; O; O >>= 1)
    M = fmax(M, __shfl_xor_sync(0xffffffffu, M, O));
  if ((threadIdx.x & 31) == 0 && M > 0)
    co_max_double(Out, M);
}

// Out[0] mismatches, Out[1] first mismatching index (starts at ~0),
// Out[2] largest relative error among finite pairs (double bits, starts 0).
extern "C" __global__ void co_compare(const void *E, const void *A, u64 Count,
                                      int Kind, double Tol, double Floor,
                                      u64 *Out) {
  u64 Bad = 0, First = ~0ull;
  double MaxRel = 0;
  for (u64 I = blockIdx.x * (u64)blockDim.x + threadIdx.x; I < Count;
       I += (u64)gridDim.x * blockDim.x) {
    bool Ok;
    if (Kind >= 10) {
      Ok = co_bits(E, I, Kind) == co_bits(A, I, Kind);
    } else {
      double X = co_load(E, I, Kind), Y = co_load(A, I, Kind);
      if (isnan(X)) {
        Ok = isnan(Y); // Both unwritten (poison) or both NaN.
      } else if (!co_finite(X) || !co_finite(Y)) {
        Ok = X == Y;
      } else {
        double Ref = fmax(fabs(X), Floor), Err = fabs(X - Y);
        Ok = Err <= Tol * Ref;
        if (Ref > 0)
          MaxRel = fmax(MaxRel, Err / Ref);
      }
    }
    if (!Ok) {
      ++Bad;
      First = First < I ? First : I;
    }
  }
  for (int O = 16; O; O >>= 1) {
    Bad += __shfl_xor_sync(0xffffffffu, Bad, O);
    u64 F = __shfl_xor_sync(0xffffffffu, First, O);
    First = First < F ? First : F;
    MaxRel = fmax(MaxRel, __shfl_xor_sync(0xffffffffu, MaxRel, O));
  }
  if ((threadIdx.x & 31) == 0) {
    if (Bad) {
      atomicAdd(&Out[0], Bad);
      atomicMin(&Out[1], First);
    }
    if (MaxRel > 0)
      co_max_double(&Out[2], MaxRel);
  }
}

// Widen a float buffer into a double one (the fp64 shadow's copy).
extern "C" __global__ void co_widen(const float *In, double *Out, u64 Count) {
  for (u64 I = blockIdx.x * (u64)blockDim.x + threadIdx.x; I < Count;
       I += (u64)gridDim.x * blockDim.x)
    Out[I] = In[I];
}

// Out[0] = largest |A[i] - R[i]| over the elements where both are finite
// (double bits; starts at 0). A is float, R the fp64 shadow's double.
extern "C" __global__ void co_maxabsdiff(const float *A, const double *R,
                                         u64 Count, u64 *Out) {
  double M = 0;
  for (u64 I = blockIdx.x * (u64)blockDim.x + threadIdx.x; I < Count;
       I += (u64)gridDim.x * blockDim.x) {
    double X = A[I], Y = R[I];
    if (co_finite(X) && co_finite(Y))
      M = fmax(M, fabs(X - Y));
  }
  for (int O = 16; O; O >>= 1)
    M = fmax(M, __shfl_xor_sync(0xffffffffu, M, O));
  if ((threadIdx.x & 31) == 0 && M > 0)
    co_max_double(Out, M);
}

// Per row of Len contiguous elements: Out[r] = max(Out[r], the largest
// |A[i] - R[i]| over the row's elements where both are finite) as double
// bits, so that Out can gather a maximum over several runs (it starts at
// 0). A == 0: |R[i]| (the fp64 shadow's scale per row). Short rows go a
// thread each; longer ones in chunks of 2048 elements, a warp each.
extern "C" __global__ void co_row_maxabsdiff(const float *A, const double *R,
                                             u64 Rows, u64 Len, u64 *Out) {
  const u64 Tid = blockIdx.x * (u64)blockDim.x + threadIdx.x;
  const u64 Threads = (u64)gridDim.x * blockDim.x;
  if (Len <= 16) {
    for (u64 Row = Tid; Row < Rows; Row += Threads) {
      double M = __longlong_as_double((long long)Out[Row]);
      for (u64 I = Row * Len; I < (Row + 1) * Len; ++I) {
        double X = A ? (double)A[I] : 0.0, Y = R[I];
        if (co_finite(X) && co_finite(Y))
          M = fmax(M, fabs(X - Y));
      }
      Out[Row] = (u64)__double_as_longlong(M);
    }
    return;
  }
  const u64 Chunk = 2048, Chunks = (Len + Chunk - 1) / Chunk;
  const u64 Items = Rows * Chunks;
  const unsigned Lane = threadIdx.x & 31;
  for (u64 It = Tid >> 5; It < Items; It += Threads >> 5) {
    const u64 Row = It / Chunks;
    const u64 Begin = Row * Len + (It % Chunks) * Chunk;
    const u64 End = Begin + Chunk < (Row + 1) * Len ? Begin + Chunk
                                                     : (Row + 1) * Len;
    double M = 0;
    for (u64 I = Begin + Lane; I < End; I += 32) {
      double X = A ? (double)A[I] : 0.0, Y = R[I];
      if (co_finite(X) && co_finite(Y))
        M = fmax(M, fabs(X - Y));
    }
    for (int O = 16; O; O >>= 1)
      M = fmax(M, __shfl_xor_sync(0xffffffffu, M, O));
    if (Lane == 0 && M > 0)
      co_max_double(&Out[Row], M);
  }
}

// The spacing of floats at |X| (Compare.cpp's ulpF32).
__device__ __forceinline__ double co_ulp_f32(double X) {
  X = fabs(X);
  if (!(X > 0) || !co_finite(X))
    return ldexp(1.0, -149);
  int E = 0;
  frexp(X, &E);
  return ldexp(1.0, E - 24 > -149 ? E - 24 : -149);
}

// The per-row bound of --fp-model=reassoc: rows r where
// Err[r] > 2 Base[r] + 2 ulp(Scale[r]). Out[0] += their number, Out[1] =
// the first (starts at ~0).
extern "C" __global__ void co_row_check(const double *Err, const double *Base,
                                        const double *Scale, u64 Rows,
                                        u64 *Out) {
  u64 Bad = 0, First = ~0ull;
  for (u64 R = blockIdx.x * (u64)blockDim.x + threadIdx.x; R < Rows;
       R += (u64)gridDim.x * blockDim.x)
    if (Err[R] > 2 * Base[R] + 2 * co_ulp_f32(Scale[R])) {
      ++Bad;
      First = First < R ? First : R;
    }
  for (int O = 16; O; O >>= 1) {
    Bad += __shfl_xor_sync(0xffffffffu, Bad, O);
    u64 F = __shfl_xor_sync(0xffffffffu, First, O);
    First = First < F ? First : F;
  }
  if ((threadIdx.x & 31) == 0 && Bad) {
    atomicAdd(&Out[0], Bad);
    atomicMin(&Out[1], First);
  }
}

// Out[0] += the number of bytes where A and B differ (B == 0: where A is
// not Value).
extern "C" __global__ void co_bytes_differ(const unsigned char *A,
                                           const unsigned char *B, u64 Bytes,
                                           unsigned char Value, u64 *Out) {
  u64 Bad = 0;
  const u64 Stride = (u64)gridDim.x * blockDim.x;
  const u64 Tid = blockIdx.x * (u64)blockDim.x + threadIdx.x;
  // 16-byte words where A (and B) allow it: the bytes before A's first
  // aligned address and after the last whole word go one by one. When A and
  // B are misaligned differently, everything goes byte by byte.
  const u64 AddrA = (u64)A;
  const bool Vector = !B || ((AddrA ^ (u64)B) & 15) == 0;
  u64 Head = Vector ? ((16 - (AddrA & 15)) & 15) : Bytes;
  if (Head > Bytes)
    Head = Bytes;
  const u64 Words = Vector ? (Bytes - Head) / 16 : 0;
  const u64 TailStart = Head + Words * 16;
  const u32 V4 = Value * 0x01010101u;
  for (u64 I = Tid; I < Head; I += Stride)
    Bad += A[I] != (B ? B[I] : Value);
  const uint4 *AW = (const uint4 *)(A + Head);
  const uint4 *BW = B ? (const uint4 *)(B + Head) : 0;
  for (u64 I = Tid; I < Words; I += Stride) {
    uint4 X = AW[I];
    uint4 Y = BW ? BW[I] : make_uint4(V4, V4, V4, V4);
    Bad += (X.x != Y.x) + (X.y != Y.y) + (X.z != Y.z) + (X.w != Y.w);
  }
  for (u64 I = TailStart + Tid; I < Bytes; I += Stride)
    Bad += A[I] != (B ? B[I] : Value);
  for (int O = 16; O; O >>= 1)
    Bad += __shfl_xor_sync(0xffffffffu, Bad, O);
  if ((threadIdx.x & 31) == 0 && Bad)
    atomicAdd(&Out[0], Bad);
}

__device__ __forceinline__ void co_store(void *P, u64 I, int Kind, double V) {
  switch (Kind) {
  case 0: ((float *)P)[I] = (float)V; return;
  case 1: ((double *)P)[I] = V; return;
  case 2: {
    float F = (float)V;
    unsigned short H;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(H) : "f"(F));
    ((unsigned short *)P)[I] = H;
    return;
  }
  case 3: {
    u32 B = __float_as_uint((float)V);
    B += 0x7fffu + ((B >> 16) & 1); // Round to nearest even.
    ((unsigned short *)P)[I] = (unsigned short)(B >> 16);
    return;
  }
  }
}

// Out[0] = smallest, Out[1] = largest finite value, as order-preserving
// bit patterns (see co_key). Out must start at {~0, 0}.
__device__ __forceinline__ u64 co_key(double V) {
  u64 B = (u64)__double_as_longlong(V);
  return (B >> 63) ? ~B : (B | (1ull << 63));
}
extern "C" __global__ void co_minmax(const void *P, u64 Count, int Kind,
                                     u64 *Out) {
  u64 Lo = ~0ull, Hi = 0;
  for (u64 I = blockIdx.x * (u64)blockDim.x + threadIdx.x; I < Count;
       I += (u64)gridDim.x * blockDim.x) {
    double X = co_load(P, I, Kind);
    if (co_finite(X)) {
      u64 K = co_key(X);
      Lo = K < Lo ? K : Lo;
      Hi = K > Hi ? K : Hi;
    }
  }
  for (int O = 16; O; O >>= 1) {
    u64 L = __shfl_xor_sync(0xffffffffu, Lo, O);
    u64 H = __shfl_xor_sync(0xffffffffu, Hi, O);
    Lo = L < Lo ? L : Lo;
    Hi = H > Hi ? H : Hi;
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMin(&Out[0], Lo);
    atomicMax(&Out[1], Hi);
  }
}

// Redraw every finite element uniformly in [Lo, Hi) from a counter-based
// hash of (Seed, index): the same seed gives the same inputs on every run.
extern "C" __global__ void co_redraw(void *P, u64 Count, int Kind, double Lo,
                                     double Hi, u32 Seed) {
  for (u64 I = blockIdx.x * (u64)blockDim.x + threadIdx.x; I < Count;
       I += (u64)gridDim.x * blockDim.x) {
    if (!co_finite(co_load(P, I, Kind)))
      continue;
    u64 H = (I + 1) * 0x9E3779B97F4A7C15ull ^ ((u64)Seed << 32 | Seed);
    H ^= H >> 31;
    H *= 0xBF58476D1CE4E5B9ull;
    H ^= H >> 27;
    H *= 0x94D049BB133111EBull;
    H ^= H >> 31;
    double U = (H >> 11) * (1.0 / 9007199254740992.0);
    co_store(P, I, Kind, Lo + (Hi - Lo) * U);
  }
}

// Keep the GPU busy for Ns nanoseconds. Timing enqueues it before the start
// event, so the host-side cost of the call being timed (a kernel launch, or
// a library's per-call work such as cuBLAS's) is spent while the GPU spins
// and does not land between the two events.
extern "C" __global__ void co_spin(u64 Ns) {
  u64 Start, Now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(Start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(Now));
  } while (Now - Start < Ns);
}
)CUDA";
}

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_MEASURE_DEVICECHECKKERNELS_H
