#include <cuda_fp16.h>
// Variants of one kernel that each plant a hazard the measurement worker must
// catch. Compiled to one cubin; each variant is an extern "C" entry point.
// n elements of out = 2 * in (float), grid covers n exactly.

extern "C" __global__ void original(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2.0f * in[i];
}

// Correct and vectorised-looking: must verify.
extern "C" __global__ void good(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + in[i];
}

// Writes one element past the end of out.
extern "C" __global__ void out_of_bounds(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n)
    out[i] = 2.0f * (i < n ? in[i] : 1.0f);
}

// Skips the last 100 elements.
extern "C" __global__ void skips_tail(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 100)
    out[i] = 2.0f * in[i];
}

// Computes through fp16: relative error ~1e-3 fails fp32's 1e-5.
extern "C" __global__ void lower_precision(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = __half2float(__float2half(2.0f * in[i]));
}

// Writes its input (the baseline does not).
extern "C" __global__ void clobbers_input(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = 2.0f * in[i];
    const_cast<float *>(in)[i] = 0.0f;
  }
}

// Faults: dereferences a wild pointer.
extern "C" __global__ void faults(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float *wild = reinterpret_cast<float *>(0x10);
  if (i < n)
    out[i] = 2.0f * in[i] + wild[i];
}

// Never finishes: spins on a volatile load of an input that never changes
// (a volatile access is a side effect, so the loop cannot be removed).
extern "C" __global__ void hangs(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const volatile float *p = in;
  while (p[0] == p[0])
    ;
  if (i < n)
    out[i] = 2.0f * in[i];
}

// Correct but far slower (a long dependent loop per element): with racing
// its timing stops after the first rounds.
extern "C" __global__ void slow(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = in[i], y = 0.0f;
    for (int k = 0; k < 4096; ++k)
      y = y * 0.5f + x;  // Converges to 2x in fp32 well before 4096 steps.
    out[i] = y;
  }
}
