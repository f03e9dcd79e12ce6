// spmv-reduce.cu - exploration bench (not part of the corpus): what separates
// cuda-opt's outputs from PyTorch eager on spmv_csr (cuSPARSE) and reduce_sum,
// and how much of the fp16 softmax gap is its loads. Hand-written forms of
// rewrites cuda-opt could make, timed with CUDA events, L2 flushed before each
// run, median of 25.
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a spmv-reduce.cu -lcusparse
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_fp16.h>
#include <cusparse.h>
#include <string>
#include "generated-spmv.cuh"
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    auto e_ = (x);                                                             \
    if (e_ != 0) {                                                             \
      std::printf("%s:%d error %d\n", __FILE__, __LINE__, (int)e_);            \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__device__ __forceinline__ float groupSum(float v, int lanes) {
  for (int o = lanes / 2; o > 0; o /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// ---- spmv -----------------------------------------------------------------
__global__ void spmv_orig(float *y, const int *rp, const int *ci,
                          const float *v, const float *x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = rp[row]; j < rp[row + 1]; ++j)
      sum += v[j] * x[ci[j]];
    y[row] = sum;
  }
}

// L lanes per row, lane-strided, groups stride over rows (cuda-opt's shape).
// Hint 0: plain loads; 1: vals/cols streamed (__ldcs, evict-first) and x
// through the read-only path; 2: as 1 with two elements in flight per lane.
template <int L, int Hint>
__global__ void spmv_lanes(float *__restrict__ y, const int *__restrict__ rp,
                           const int *__restrict__ ci,
                           const float *__restrict__ v,
                           const float *__restrict__ x, int rows) {
  const int lane = threadIdx.x % L;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / L; r < rows;
       r += blockDim.x / L * gridDim.x) {
    int b = rp[r], e = rp[r + 1];
    float sum = 0.f;
    if (Hint == 0) {
      for (int j = b + lane; j < e; j += L)
        sum += v[j] * x[ci[j]];
    } else if (Hint == 1) {
      for (int j = b + lane; j < e; j += L)
        sum += __ldcs(v + j) * __ldg(x + __ldcs(ci + j));
    } else {
      int j = b + lane;
      for (; j + L < e; j += 2 * L) {
        int c0 = __ldcs(ci + j), c1 = __ldcs(ci + j + L);
        float v0 = __ldcs(v + j), v1 = __ldcs(v + j + L);
        sum += v0 * __ldg(x + c0);
        sum += v1 * __ldg(x + c1);
      }
      if (j < e)
        sum += __ldcs(v + j) * __ldg(x + __ldcs(ci + j));
    }
    sum = groupSum(sum, L);
    if (lane == 0)
      y[r] = sum;
  }
}


// Staged segments: the thread -> row map unchanged (a block's rows are its
// threads' rows); the block streams the contiguous nnz range of its rows in
// chunks of blockDim * K, each thread loading K independent (v, x[col]) pairs
// into shared memory, then each row's thread adds its slice of the chunk in
// the original order (fma as the original: bitwise equal).
template <int K, bool StageProduct, bool Stream = false>
__global__ void spmv_stage(float *__restrict__ y, const int *__restrict__ rp,
                           const int *__restrict__ ci,
                           const float *__restrict__ v,
                           const float *__restrict__ x, int rows) {
  constexpr int Max = 4096; // blockDim * K <= 4096 in every launch below
  __shared__ float s0[StageProduct ? Max : Max];
  __shared__ float s1[StageProduct ? 1 : Max];
  __shared__ int bounds[2];
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  bool active = row < rows;
  int lo = active ? rp[row] : 0, hi = active ? rp[row + 1] : 0;
  int lastRow = min(rows, (int)(blockIdx.x + 1) * (int)blockDim.x) - 1;
  if (row == blockIdx.x * blockDim.x)
    bounds[0] = lo;
  if (row == lastRow)
    bounds[1] = hi;
  bool ok = __syncthreads_and(!active || lo <= hi);
  float sum = 0.0f;
  if (ok) {
    int b0 = bounds[0], b1 = bounds[1];
    int chunk = blockDim.x * K;
    for (int c0 = b0; c0 < b1; c0 += chunk) {
#pragma unroll
      for (int k = 0; k < K; ++k) {
        int t = threadIdx.x + k * blockDim.x;
        int j = c0 + t;
        if (j < b1) {
          if (StageProduct)
            s0[t] = v[j] * x[ci[j]];
          else if (Stream) {
            s0[t] = __ldcs(v + j);
            s1[t] = __ldg(x + __ldcs(ci + j));
          } else {
            s0[t] = v[j];
            s1[t] = x[ci[j]];
          }
        }
      }
      __syncthreads();
      int a = max(lo, c0), e = min(hi, c0 + chunk);
      for (int j = a; j < e; ++j)
        if (StageProduct)
          sum += s0[j - c0];
        else
          sum += s0[j - c0] * s1[j - c0];
      __syncthreads();
    }
  } else if (active) {
    for (int j = lo; j < hi; ++j)
      sum += v[j] * x[ci[j]];
  }
  if (active)
    y[row] = sum;
}

// ---- reduce_sum -------------------------------------------------------------
__device__ float blockSum(float s) {
  __shared__ float warpSums[32];
  s = groupSum(s, 32);
  if (threadIdx.x % 32 == 0)
    warpSums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < blockDim.x / 32 ? warpSums[threadIdx.x] : 0.f;
    s = groupSum(s, 32);
  }
  return s;
}

// Items per thread, blockDim apart (block-reduce's shape), grid n/(256*I).
template <int I>
__global__ void red_items(float *out, const float *__restrict__ in, int n) {
  int base = blockIdx.x * blockDim.x * I + threadIdx.x;
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < I; ++k) {
    int i = base + k * blockDim.x;
    if (i < n)
      s += in[i];
  }
  s = blockSum(s);
  if (threadIdx.x == 0)
    atomicAdd(out, s);
}

// Grid-stride over float4 with a fixed grid (PyTorch's shape).
__global__ void red_gs4(float *out, const float *__restrict__ in, int n) {
  float s = 0.f;
  const float4 *in4 = reinterpret_cast<const float4 *>(in);
  int n4 = n / 4;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4;
       i += blockDim.x * gridDim.x) {
    float4 t = in4[i];
    s += (t.x + t.y) + (t.z + t.w);
  }
  s = blockSum(s);
  if (threadIdx.x == 0)
    atomicAdd(out, s);
}

// Grid-stride, scalar, unrolled 4 (what block-reduce could emit without
// alignment facts).
__global__ void red_gs1(float *out, const float *__restrict__ in, int n) {
  float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;
  int stride = blockDim.x * gridDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    s0 += in[i];
    s1 += in[i + stride];
    s2 += in[i + 2 * stride];
    s3 += in[i + 3 * stride];
  }
  for (; i < n; i += stride)
    s0 += in[i];
  float s = blockSum((s0 + s1) + (s2 + s3));
  if (threadIdx.x == 0)
    atomicAdd(out, s);
}

// ---- fp16 softmax: which part of the vector form matters -------------------
// Loads as 8-half vectors (column 8 * (lane + 32 * s) + k), stores scalar in
// the same layout.
template <int S>
__global__ void smh_vload(__half *__restrict__ out, const __half *__restrict__ in,
                          int rows, int cols) {
  const int lane = threadIdx.x % 32;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
       r += blockDim.x / 32 * gridDim.x) {
    float v[S][8];
    float m = -INFINITY;
#pragma unroll
    for (int s = 0; s < S; ++s) {
      int q = lane + 32 * s;
      uint4 h = make_uint4(0, 0, 0, 0);
      if (8 * q < cols)
        h = reinterpret_cast<const uint4 *>(in + (size_t)r * cols)[q];
      const __half *hp = reinterpret_cast<const __half *>(&h);
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        v[s][k] = 8 * q < cols ? __half2float(hp[k]) : -INFINITY;
        m = fmaxf(m, v[s][k]);
      }
    }
    for (int o = 16; o > 0; o /= 2)
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float sum = 0.f;
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        v[s][k] = expf(v[s][k] - m);
        sum += 8 * (lane + 32 * s) < cols ? v[s][k] : 0.f;
      }
    sum = groupSum(sum, 32);
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        int j = 8 * (lane + 32 * s) + k;
        if (j < cols)
          out[(size_t)r * cols + j] = __float2half(v[s][k] / sum);
      }
  }
}

// Scalar loads in the lane + 32 * slot layout (cuda-opt's cache=16 today),
// stores as vectors is impossible there; this is the baseline.
template <int S>
__global__ void smh_scalar(__half *__restrict__ out, const __half *__restrict__ in,
                           int rows, int cols) {
  const int lane = threadIdx.x % 32;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
       r += blockDim.x / 32 * gridDim.x) {
    float v[S];
    float m = -INFINITY;
#pragma unroll
    for (int s = 0; s < S; ++s) {
      int j = lane + 32 * s;
      v[s] = j < cols ? __half2float(in[(size_t)r * cols + j]) : -INFINITY;
      m = fmaxf(m, v[s]);
    }
    for (int o = 16; o > 0; o /= 2)
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float sum = 0.f;
#pragma unroll
    for (int s = 0; s < S; ++s) {
      v[s] = expf(v[s] - m);
      sum += lane + 32 * s < cols ? v[s] : 0.f;
    }
    sum = groupSum(sum, 32);
#pragma unroll
    for (int s = 0; s < S; ++s) {
      int j = lane + 32 * s;
      if (j < cols)
        out[(size_t)r * cols + j] = __float2half(v[s] / sum);
    }
  }
}

// Scalar in the 2-wide layout: column 2 * (lane + 32 * s) + k, loads and
// stores as __half2 (4 bytes): the smallest vector step.
template <int S>
__global__ void smh_v2(__half *__restrict__ out, const __half *__restrict__ in,
                       int rows, int cols) {
  const int lane = threadIdx.x % 32;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
       r += blockDim.x / 32 * gridDim.x) {
    float v[S][2];
    float m = -INFINITY;
#pragma unroll
    for (int s = 0; s < S; ++s) {
      int q = lane + 32 * s;
      __half2 h = __half2half2(__float2half(0.f));
      if (2 * q < cols)
        h = reinterpret_cast<const __half2 *>(in + (size_t)r * cols)[q];
      v[s][0] = 2 * q < cols ? __low2float(h) : -INFINITY;
      v[s][1] = 2 * q < cols ? __high2float(h) : -INFINITY;
      m = fmaxf(m, fmaxf(v[s][0], v[s][1]));
    }
    for (int o = 16; o > 0; o /= 2)
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float sum = 0.f;
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        v[s][k] = expf(v[s][k] - m);
        sum += 2 * (lane + 32 * s) < cols ? v[s][k] : 0.f;
      }
    sum = groupSum(sum, 32);
#pragma unroll
    for (int s = 0; s < S; ++s) {
      int q = lane + 32 * s;
      if (2 * q < cols)
        reinterpret_cast<__half2 *>(out + (size_t)r * cols)[q] =
            __floats2half2_rn(v[s][0] / sum, v[s][1] / sum);
    }
  }
}

template <int S>
__global__ void smh_v8(__half *__restrict__ out, const __half *__restrict__ in,
                       int rows, int cols) {
  const int lane = threadIdx.x % 32;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
       r += blockDim.x / 32 * gridDim.x) {
    float v[S][8];
    float m = -INFINITY;
#pragma unroll
    for (int s = 0; s < S; ++s) {
      int q = lane + 32 * s;
      uint4 h = make_uint4(0, 0, 0, 0);
      if (8 * q < cols)
        h = reinterpret_cast<const uint4 *>(in + (size_t)r * cols)[q];
      const __half *hp = reinterpret_cast<const __half *>(&h);
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        v[s][k] = 8 * q < cols ? __half2float(hp[k]) : -INFINITY;
        m = fmaxf(m, v[s][k]);
      }
    }
    for (int o = 16; o > 0; o /= 2)
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float sum = 0.f;
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        v[s][k] = expf(v[s][k] - m);
        sum += 8 * (lane + 32 * s) < cols ? v[s][k] : 0.f;
      }
    sum = groupSum(sum, 32);
#pragma unroll
    for (int s = 0; s < S; ++s) {
      int q = lane + 32 * s;
      if (8 * q < cols) {
        uint4 o;
        __half *op = reinterpret_cast<__half *>(&o);
#pragma unroll
        for (int k = 0; k < 8; ++k)
          op[k] = __float2half(v[s][k] / sum);
        reinterpret_cast<uint4 *>(out + (size_t)r * cols)[q] = o;
      }
    }
  }
}

static float *flushBuf;
static void flushL2() { CK(cudaMemset(flushBuf, 0, 256 << 20)); }

template <typename F> static float timeIt(const char *name, double bytes, F f) {
  std::vector<float> t;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i)
    f();
  for (int i = 0; i < 25; ++i) {
    flushL2();
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  std::printf("%-34s median %.4f ms  min %.4f max %.4f  %.0f GB/s (%.0f%%)\n",
              name, t[12], t[0], t[24], bytes / t[12] / 1e6,
              bytes / t[12] / 1e6 / 4234 * 100);
  return t[12];
}

template <typename T> static double maxDiff(const T *a, const T *b, size_t n) {
  std::vector<T> ha(n), hb(n);
  CK(cudaMemcpy(ha.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hb.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  double d = 0;
  for (size_t i = 0; i < n; ++i)
    d = std::max(d, std::fabs((double)(float)ha[i] - (double)(float)hb[i]));
  return d;
}

static uint32_t rngState = 0x428a2f98u;
static uint32_t urand() {
  rngState ^= rngState << 13;
  rngState ^= rngState >> 17;
  rngState ^= rngState << 5;
  return rngState;
}

int main(int argc, char **argv) {
  CK(cudaMalloc(&flushBuf, 256 << 20));
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  // spmv_csr.cu's matrix kind.
  const int rows = 1 << 23, cols = 1 << 23;
  std::vector<int> hptr(rows + 1);
  hptr[0] = 0;
  for (int r = 0; r < rows; ++r)
    hptr[r + 1] = hptr[r] + 8 + (int)(urand() % 17);
  const int nnz = hptr[rows];
  std::vector<int> hcol(nnz);
  std::vector<float> hval(nnz), hx(cols);
  for (int r = 0; r < rows; ++r)
    for (int j = hptr[r]; j < hptr[r + 1]; ++j) {
      uint32_t u = urand();
      int c = (u & 3) == 0 ? (int)(urand() % cols)
                           : r + (int)(urand() % 4097) - 2048;
      hcol[j] = c < 0 ? c + cols : c >= cols ? c - cols : c;
      hval[j] = (urand() % 2000) / 1000.f - 1.f;
    }
  for (auto &v : hx)
    v = (urand() % 4000) / 1000.f - 2.f;
  int *ptr, *col;
  float *val, *x, *y, *yr;
  CK(cudaMalloc(&ptr, (rows + 1) * 4));
  CK(cudaMalloc(&col, (size_t)nnz * 4));
  CK(cudaMalloc(&val, (size_t)nnz * 4));
  CK(cudaMalloc(&x, cols * 4));
  CK(cudaMalloc(&y, rows * 4));
  CK(cudaMalloc(&yr, rows * 4));
  CK(cudaMemcpy(ptr, hptr.data(), (rows + 1) * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(col, hcol.data(), (size_t)nnz * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(val, hval.data(), (size_t)nnz * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(x, hx.data(), cols * 4, cudaMemcpyHostToDevice));
  double bs = (double)nnz * 8 + (rows + 1) * 4.0 + rows * 8.0;
  std::printf("spmv %d rows, %d nnz\n", rows, nnz);
  timeIt("orig", bs, [&] { spmv_orig<<<(rows + 255) / 256, 256>>>(yr, ptr, col, val, x, rows); });
  const int g = (rows + 255) / 256;
#define SPMV(L, H)                                                             \
  timeIt("lanes=" #L " hint=" #H, bs, [&] {                                    \
    spmv_lanes<L, H><<<g * L, 256>>>(y, ptr, col, val, x, rows);               \
  });                                                                          \
  std::printf("  diff %.3g\n", maxDiff(y, yr, rows));
  SPMV(4, 0)
#define STAGE(B, K, P)                                                         \
  timeIt("stage b=" #B " K=" #K " product=" #P, bs, [&] {                      \
    spmv_stage<K, P><<<(rows + B - 1) / B, B>>>(y, ptr, col, val, x, rows);    \
  });                                                                          \
  std::printf("  diff %.3g\n", maxDiff(y, yr, rows));
  STAGE(512, 2, false) STAGE(512, 4, false) STAGE(1024, 2, false)
#define STAGES(B, K)                                                           \
  timeIt("stage streamed b=" #B " K=" #K, bs, [&] {                            \
    spmv_stage<K, false, true><<<(rows + B - 1) / B, B>>>(y, ptr, col, val, x, rows); \
  });                                                                          \
  std::printf("  diff %.3g\n", maxDiff(y, yr, rows));
  STAGES(256, 4) STAGES(512, 2) STAGES(512, 4) STAGES(1024, 2)
  STAGES(256, 8) STAGES(512, 8) STAGES(256, 16)
  {
    cusparseHandle_t h;
    CK(cusparseCreate(&h));
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t vx, vy;
    CK(cusparseCreateCsr(&A, rows, cols, nnz, ptr, col, val, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                         CUDA_R_32F));
    CK(cusparseCreateDnVec(&vx, cols, x, CUDA_R_32F));
    CK(cusparseCreateDnVec(&vy, rows, y, CUDA_R_32F));
    float one = 1.f, zero = 0.f;
    for (auto alg : {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2}) {
      size_t ws = 0;
      CK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A,
                                 vx, &zero, vy, CUDA_R_32F, alg, &ws));
      void *wsp = nullptr;
      if (ws)
        CK(cudaMalloc(&wsp, ws));
      timeIt(alg == CUSPARSE_SPMV_CSR_ALG1 ? "cusparse alg1" : "cusparse alg2",
             bs, [&] {
               CK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx,
                               &zero, vy, CUDA_R_32F, alg, wsp));
             });
      std::printf("  diff %.3g\n", maxDiff(y, yr, rows));
    }
  }
#define GEN(K, B)                                                              \
  timeIt("generated " #K, bs, [&] {                                            \
    K<<<(rows + B - 1) / B, B>>>(y, ptr, col, val, x, rows);                   \
  });                                                                          \
  std::printf("  diff %.3g\n", maxDiff(y, yr, rows));
  GEN(ss_i4_s1, 256) GEN(ss_i8_s1, 256) GEN(ss_i8_s0, 256) GEN(ss_i16_s1, 256)
  GEN(ss_b512_i8_s1, 512)
  if (argc > 1 && std::string(argv[1]) == "spmv")
    return 0;
  CK(cudaFree(ptr));
  CK(cudaFree(col));
  CK(cudaFree(val));

  // reduce_sum.cu's size.
  {
    const int n = 1 << 29;
    float *in, *out;
    CK(cudaMalloc(&in, (size_t)n * 4));
    CK(cudaMalloc(&out, 4));
    std::vector<float> h(n);
    for (auto &v : h)
      v = (urand() % 2200) / 1000.f - 1.f;
    CK(cudaMemcpy(in, h.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
    double b = (double)n * 4;
    std::printf("reduce_sum %d\n", n);
    auto z = [&] { CK(cudaMemsetAsync(out, 0, 4)); };
    timeIt("items=16", b, [&] { z(); red_items<16><<<n / 4096, 256>>>(out, in, n); });
    timeIt("items=32", b, [&] { z(); red_items<32><<<n / 8192, 256>>>(out, in, n); });
    timeIt("items=64", b, [&] { z(); red_items<64><<<n / 16384, 256>>>(out, in, n); });
    for (int k : {2, 4, 8, 16}) {
      char name[64];
      std::snprintf(name, sizeof name, "grid-stride f4 %d/SM", k);
      timeIt(name, b, [&] { z(); red_gs4<<<sms * k, 256>>>(out, in, n); });
      std::snprintf(name, sizeof name, "grid-stride x4 %d/SM", k);
      timeIt(name, b, [&] { z(); red_gs1<<<sms * k, 256>>>(out, in, n); });
    }
    timeIt("grid-stride f4 4/SM b512", b, [&] { z(); red_gs4<<<sms * 4, 512>>>(out, in, n); });
    timeIt("grid-stride f4 1/SM b1024", b, [&] { z(); red_gs4<<<sms, 1024>>>(out, in, n); });
    CK(cudaFree(in));
    CK(cudaFree(out));
  }

  // softmax fp16, row-kernels.cu's size.
  {
    const int R = 262144, C = 512;
    const size_t n = (size_t)R * C;
    std::vector<__half> hh(n);
    for (auto &v : hh)
      v = __float2half((urand() % 16000) / 1000.f - 8.f);
    __half *in, *out, *ref;
    CK(cudaMalloc(&in, n * 2));
    CK(cudaMalloc(&out, n * 2));
    CK(cudaMalloc(&ref, n * 2));
    CK(cudaMemcpy(in, hh.data(), n * 2, cudaMemcpyHostToDevice));
    const int grid = (R + 255) / 256 * 32;
    double b = 2.0 * n * 2;
    std::printf("softmax fp16 %d x %d\n", R, C);
    timeIt("scalar S16 (cache=16 today)", b, [&] { smh_scalar<16><<<grid, 256>>>(ref, in, R, C); });
    timeIt("v2 loads+stores S8", b, [&] { smh_v2<8><<<grid, 256>>>(out, in, R, C); });
    std::printf("  diff %.3g\n", maxDiff(out, ref, n));
    timeIt("v8 loads, scalar stores S2", b, [&] { smh_vload<2><<<grid, 256>>>(out, in, R, C); });
    std::printf("  diff %.3g\n", maxDiff(out, ref, n));
    timeIt("v8 loads+stores S2", b, [&] { smh_v8<2><<<grid, 256>>>(out, in, R, C); });
    std::printf("  diff %.3g\n", maxDiff(out, ref, n));
    timeIt("v8 loads+stores S2 b128", b, [&] { smh_v8<2><<<grid * 2, 128>>>(out, in, R, C); });
  }
  std::printf("SMs %d\n", sms);
  return 0;
}
