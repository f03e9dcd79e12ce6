// spmv-l2-policy.cu - explore: does an L2 eviction policy keep spmv_csr's
// gathered vector x (32 MB, L2 is 50 MB) resident while the 1 GB of values
// and column indices stream past it? Session 11 measured cuSPARSE ALG1 at
// 0.578 ms and the staged form (stage-segments) at 0.62-0.67 ms, both near
// a ~2.2 GB DRAM floor caused by the random quarter of x re-missing in L2.
// With x held (evict_last) and the streams marked evict_first the floor is
// ~1.14 GB (~0.27 ms at the copy ceiling).
//
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a spmv-l2-policy.cu -lcusparse
//
// Matrix: bench/corpus/spmv_csr.cu's (8M rows, 8-24 nnz per row, a quarter
// of the columns anywhere). Events, L2 flushed before each run, median of 25.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    auto e_ = (x);                                                             \
    if (e_ != 0) {                                                             \
      std::printf("%s:%d error %d\n", __FILE__, __LINE__, (int)e_);            \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// L2 policies (createpolicy, sm_80+) and loads that carry one.
__device__ __forceinline__ uint64_t policyEvictLast() {
  uint64_t P;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;"
               : "=l"(P));
  return P;
}
__device__ __forceinline__ uint64_t policyEvictFirst() {
  uint64_t P;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;"
               : "=l"(P));
  return P;
}
__device__ __forceinline__ float ldf(const float *A, uint64_t P) {
  float V;
  asm volatile("ld.global.nc.L2::cache_hint.f32 %0, [%1], %2;"
               : "=f"(V)
               : "l"(A), "l"(P));
  return V;
}
__device__ __forceinline__ int ldi(const int *A, uint64_t P) {
  int V;
  asm volatile("ld.global.nc.L2::cache_hint.s32 %0, [%1], %2;"
               : "=r"(V)
               : "l"(A), "l"(P));
  return V;
}

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

// Mode 0: stage-segments{stream=1} as emitted (values/columns __ldcs, x
// plain). 1: x through an evict_last policy. 2: as 1 and the streams through
// an evict_first policy instead of __ldcs. 3: x evict_last, streams plain.
template <int B, int K, int Mode>
__global__ void __launch_bounds__(B) spmv_stage(float *__restrict__ y, const int *__restrict__ rp,
                           const int *__restrict__ ci,
                           const float *__restrict__ v,
                           const float *__restrict__ x, int rows) {
  __shared__ float vs[B * K];
  __shared__ float xs[B * K];
  __shared__ int range[2];
  const uint64_t keep = policyEvictLast(), pass = policyEvictFirst();
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  bool active = row < rows;
  int lo = active ? rp[row] : 0, hi = active ? rp[row + 1] : 0;
  if (threadIdx.x == 0)
    range[0] = range[1] = lo;
  __syncthreads();
  if (active) {
    atomicMin(&range[0], lo);
    atomicMax(&range[1], hi);
  }
  float sum = 0.f;
  if (__syncthreads_and(!active || lo <= hi)) {
    for (int c = range[0]; c < range[1]; c += blockDim.x * K) {
      const int end = min(range[1], c + (int)(blockDim.x * K));
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const int j = c + threadIdx.x + k * blockDim.x;
        if (j < end) {
          if (Mode == 0) {
            vs[j - c] = __ldcs(&v[j]);
            xs[j - c] = x[__ldcs(&ci[j])];
          } else if (Mode == 1) {
            vs[j - c] = __ldcs(&v[j]);
            xs[j - c] = ldf(&x[__ldcs(&ci[j])], keep);
          } else if (Mode == 2) {
            vs[j - c] = ldf(&v[j], pass);
            xs[j - c] = ldf(&x[ldi(&ci[j], pass)], keep);
          } else {
            vs[j - c] = v[j];
            xs[j - c] = ldf(&x[ci[j]], keep);
          }
        }
      }
      __syncthreads();
      for (int j = max(lo, c); j < min(hi, end); ++j)
        sum += vs[j - c] * xs[j - c];
      __syncthreads();
    }
  } else if (active) {
    for (int j = lo; j < hi; ++j)
      sum += v[j] * x[ci[j]];
  }
  if (active)
    y[row] = sum;
}

// L lanes per row (cooperative-rows' shape); Keep: x through evict_last and
// the streams through evict_first.
template <int L, bool Keep>
__global__ void spmv_lanes(float *__restrict__ y, const int *__restrict__ rp,
                           const int *__restrict__ ci,
                           const float *__restrict__ v,
                           const float *__restrict__ x, int rows) {
  const uint64_t keep = policyEvictLast(), pass = policyEvictFirst();
  const int lane = threadIdx.x % L;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / L; r < rows;
       r += blockDim.x / L * gridDim.x) {
    int b = rp[r], e = rp[r + 1];
    float sum = 0.f;
    for (int j = b + lane; j < e; j += L)
      sum += Keep ? ldf(&v[j], pass) * ldf(&x[ldi(&ci[j], pass)], keep)
                  : __ldcs(v + j) * __ldg(x + __ldcs(ci + j));
    for (int o = L / 2; o > 0; o /= 2)
      sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (lane == 0)
      y[r] = sum;
  }
}

static float *flushBuf;
template <typename F> static float timeIt(const char *name, double bytes, F f) {
  std::vector<float> t;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i)
    f();
  for (int i = 0; i < 25; ++i) {
    CK(cudaMemset(flushBuf, 0, 256 << 20));
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
  std::printf("%-36s median %.4f ms  p10 %.4f p90 %.4f  %.0f GB/s\n", name,
              t[12], t[2], t[22], bytes / t[12] / 1e6);
  return t[12];
}

static uint32_t rngState = 0x428a2f98u;
static uint32_t urand() {
  rngState ^= rngState << 13;
  rngState ^= rngState >> 17;
  rngState ^= rngState << 5;
  return rngState;
}

int main() {
  CK(cudaMalloc(&flushBuf, 256 << 20));
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
  const double bytes = (double)nnz * 8 + (rows + 1) * 4.0 + rows * 8.0;
  std::printf("spmv %d rows, %d nnz, %.2f GB compulsory\n", rows, nnz,
              bytes / 1e9);
  std::vector<float> ref(rows), got(rows);
  auto check = [&](bool bitwise) {
    CK(cudaMemcpy(got.data(), y, rows * 4, cudaMemcpyDeviceToHost));
    double d = 0;
    for (int i = 0; i < rows; ++i)
      d = std::max(d, (double)std::fabs(got[i] - ref[i]));
    std::printf("  max diff %.3g%s\n", d,
                bitwise ? (d == 0 ? " (bitwise equal)" : " (NOT EQUAL)") : "");
  };
  timeIt("orig", bytes, [&] {
    spmv_orig<<<(rows + 255) / 256, 256>>>(yr, ptr, col, val, x, rows);
  });
  CK(cudaMemcpy(ref.data(), yr, rows * 4, cudaMemcpyDeviceToHost));
#define STAGE(B, K, M)                                                         \
  timeIt("stage b=" #B " K=" #K " mode=" #M, bytes, [&] {                      \
    spmv_stage<B, K, M><<<(rows + B - 1) / B, B>>>(y, ptr, col, val, x, rows);    \
  });                                                                          \
  check(true);
  STAGE(1024, 4, 0)
  STAGE(1024, 4, 1)
  STAGE(1024, 4, 2)
  STAGE(1024, 4, 3)
  STAGE(256, 8, 0)
  STAGE(256, 8, 1)
  STAGE(256, 8, 2)
  STAGE(512, 8, 2)
#define LANES(L, KEEP)                                                         \
  timeIt("lanes=" #L " keep=" #KEEP, bytes, [&] {                              \
    spmv_lanes<L, KEEP><<<(rows + 255) / 256 * L, 256>>>(y, ptr, col, val, x,  \
                                                        rows);                 \
  });                                                                          \
  check(false);
  LANES(4, false)
  LANES(4, true)
  LANES(8, true)
  LANES(16, true)
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
    size_t ws = 0;
    CK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx,
                               &zero, vy, CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1,
                               &ws));
    void *wsp = nullptr;
    if (ws)
      CK(cudaMalloc(&wsp, ws));
    timeIt("cusparse alg1", bytes, [&] {
      CK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero,
                      vy, CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, wsp));
    });
    check(false);
  }
  return 0;
}
