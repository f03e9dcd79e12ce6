#include <cuda_fp16.h>
// Row sums and row argmax, each as the original (a thread per row, one
// running sum) and as variants: a correct warp-per-row rewrite (reorders the
// sum) and planted bugs the fp64-shadow check must reject.
// test/GPU/measure/fp64-verify.test runs them through the worker.

__device__ float term(float x) { return x * x - 0.25f * x; }

extern "C" __global__ void original(float *out, const float *in, int rows,
                                    int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += term(in[(size_t)r * cols + j]);
    out[r] = s;
  }
}

// Same operations as the original: bitwise equal (strict passes it).
extern "C" __global__ void same(float *out, const float *in, int rows,
                                int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += term(in[(size_t)r * cols + j]);
    out[r] = s;
  }
}

template <int Drop, int SkipLastRow, bool Half>
__device__ void warpRows(float *out, const float *in, int rows, int cols) {
  int lane = threadIdx.x & 31;
  int warps = gridDim.x * blockDim.x / 32;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
       r < rows - SkipLastRow; r += warps) {
    float s = 0.0f;
    __half h = __float2half(0.0f);
    for (int j = lane; j < cols - Drop; j += 32) {
      if (Half)
        h = __hadd(h, __float2half(term(in[(size_t)r * cols + j])));
      else
        s += term(in[(size_t)r * cols + j]);
    }
    if (Half)
      s = __half2float(h);
    for (int o = 16; o; o >>= 1)
      s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0)
      out[r] = s;
  }
}

extern "C" __global__ void warp_rows(float *out, const float *in, int rows,
                                     int cols) {
  warpRows<0, 0, false>(out, in, rows, cols);
}
extern "C" __global__ void drops_last_term(float *out, const float *in,
                                           int rows, int cols) {
  warpRows<1, 0, false>(out, in, rows, cols);
}
extern "C" __global__ void skips_last_row(float *out, const float *in,
                                          int rows, int cols) {
  warpRows<0, 1, false>(out, in, rows, cols);
}
extern "C" __global__ void half_accumulator(float *out, const float *in,
                                            int rows, int cols) {
  warpRows<0, 0, true>(out, in, rows, cols);
}

// Row argmax of quantised values (many ties): the first index wins.
extern "C" __global__ void argmax_original(int *idx, const float *in, int rows,
                                           int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float best = floorf(in[(size_t)r * cols] * 4.0f);
    int at = 0;
    for (int j = 1; j < cols; ++j) {
      float v = floorf(in[(size_t)r * cols + j] * 4.0f);
      if (v > best) {
        best = v;
        at = j;
      }
    }
    idx[r] = at;
  }
}

template <bool FirstWins>
__device__ void argmaxWarp(int *idx, const float *in, int rows, int cols) {
  int lane = threadIdx.x & 31;
  int warps = gridDim.x * blockDim.x / 32;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
       r += warps) {
    float best = -INFINITY;
    int at = cols;
    for (int j = lane; j < cols; j += 32) {
      float v = floorf(in[(size_t)r * cols + j] * 4.0f);
      if (v > best || (!FirstWins && v == best)) {
        best = v;
        at = j;
      }
    }
    for (int o = 16; o; o >>= 1) {
      float ob = __shfl_xor_sync(0xffffffffu, best, o);
      int oa = __shfl_xor_sync(0xffffffffu, at, o);
      bool take = FirstWins ? (ob > best || (ob == best && oa < at))
                            : (ob > best || (ob == best && oa > at));
      if (take) {
        best = ob;
        at = oa;
      }
    }
    if (lane == 0)
      idx[r] = at;
  }
}

extern "C" __global__ void argmax_warp(int *idx, const float *in, int rows,
                                       int cols) {
  argmaxWarp<true>(idx, in, rows, cols);
}
extern "C" __global__ void argmax_last_wins(int *idx, const float *in,
                                            int rows, int cols) {
  argmaxWarp<false>(idx, in, rows, cols);
}
