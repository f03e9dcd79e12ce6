// row-kernels.cu - exploration bench (not part of the corpus): what separates
// cuda-opt's row kernels from PyTorch eager on softmax (fp32, fp16) and on a
// column-wise matrix-vector product (gemv_t). Times cuda-opt's generated
// kernels (generated.cuh, made by gen.py) beside hand-written forms of the
// same rewrites, with CUDA events, L2 flushed before each run, median of 25.
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a row-kernels.cu -o rk && ./rk
#include "generated.cuh"
#include "variants.cuh"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));   \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

// Softmax with the row in registers and each exponential computed once
// (the form PyTorch's warp softmax has): 32 lanes, S slots of 4-byte loads.
template <int S>
__global__ void sm_hand_exp_once(float *__restrict__ out,
                                 const float *__restrict__ in, int rows,
                                 int cols) {
  const int lane = threadIdx.x % 32;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
       r += blockDim.x / 32 * gridDim.x) {
    float v[S];
    float m = -INFINITY;
#pragma unroll
    for (int s = 0; s < S; ++s) {
      int j = lane + 32 * s;
      v[s] = j < cols ? in[(size_t)r * cols + j] : -INFINITY;
      m = fmaxf(m, v[s]);
    }
    m = cudaOptRowFmax(m, 0xffffffffu, 32);
    float sum = 0.f;
#pragma unroll
    for (int s = 0; s < S; ++s) {
      v[s] = expf(v[s] - m);
      sum += lane + 32 * s < cols ? v[s] : 0.f;
    }
    sum = cudaOptRowSum(sum, 0xffffffffu, 32);
#pragma unroll
    for (int s = 0; s < S; ++s) {
      int j = lane + 32 * s;
      if (j < cols)
        out[(size_t)r * cols + j] = v[s] / sum;
    }
  }
}

// The same with 16-byte loads and stores: slot s holds columns
// 4 * (lane + 32 * s) .. +3 (cols a multiple of 4, rows 16-byte aligned).
template <int S>
__global__ void sm_hand_exp_once_v4(float *__restrict__ out,
                                    const float *__restrict__ in, int rows,
                                    int cols) {
  const int lane = threadIdx.x % 32;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
       r += blockDim.x / 32 * gridDim.x) {
    float4 v[S];
    float m = -INFINITY;
#pragma unroll
    for (int s = 0; s < S; ++s) {
      int q = lane + 32 * s;
      if (4 * q < cols)
        v[s] = reinterpret_cast<const float4 *>(in + (size_t)r * cols)[q];
      else
        v[s] = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
      m = fmaxf(fmaxf(m, v[s].x), fmaxf(v[s].y, fmaxf(v[s].z, v[s].w)));
    }
    m = cudaOptRowFmax(m, 0xffffffffu, 32);
    float sum = 0.f;
#pragma unroll
    for (int s = 0; s < S; ++s) {
      v[s].x = expf(v[s].x - m);
      v[s].y = expf(v[s].y - m);
      v[s].z = expf(v[s].z - m);
      v[s].w = expf(v[s].w - m);
      if (4 * (lane + 32 * s) < cols)
        sum += v[s].x + v[s].y + v[s].z + v[s].w;
    }
    sum = cudaOptRowSum(sum, 0xffffffffu, 32);
#pragma unroll
    for (int s = 0; s < S; ++s) {
      int q = lane + 32 * s;
      if (4 * q < cols) {
        float4 o = make_float4(v[s].x / sum, v[s].y / sum, v[s].z / sum,
                               v[s].w / sum);
        reinterpret_cast<float4 *>(out + (size_t)r * cols)[q] = o;
      }
    }
  }
}

// fp16 softmax, row in registers as floats, exponentials once, 16-byte
// loads/stores of 8 halves (cols a multiple of 8).
template <int S>
__global__ void smh_hand_exp_once_v8(__half *__restrict__ out,
                                     const __half *__restrict__ in, int rows,
                                     int cols) {
  const int lane = threadIdx.x % 32;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
       r += blockDim.x / 32 * gridDim.x) {
    float v[S][8];
    float m = -INFINITY;
#pragma unroll
    for (int s = 0; s < S; ++s) {
      int q = lane + 32 * s;
      cudaOptVec<__half, 8> h;
      if (8 * q < cols)
        h = reinterpret_cast<const cudaOptVec<__half, 8> *>(
            in + (size_t)r * cols)[q];
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        v[s][k] = 8 * q < cols ? __half2float(h.v[k]) : -INFINITY;
        m = fmaxf(m, v[s][k]);
      }
    }
    m = cudaOptRowFmax(m, 0xffffffffu, 32);
    float sum = 0.f;
#pragma unroll
    for (int s = 0; s < S; ++s)
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        v[s][k] = expf(v[s][k] - m);
        sum += 8 * (lane + 32 * s) < cols ? v[s][k] : 0.f;
      }
    sum = cudaOptRowSum(sum, 0xffffffffu, 32);
#pragma unroll
    for (int s = 0; s < S; ++s) {
      int q = lane + 32 * s;
      if (8 * q < cols) {
        cudaOptVec<__half, 8> o;
#pragma unroll
        for (int k = 0; k < 8; ++k)
          o.v[k] = __float2half(v[s][k] / sum);
        reinterpret_cast<cudaOptVec<__half, 8> *>(out + (size_t)r * cols)[q] = o;
      }
    }
  }
}

// Original column-wise matrix-vector product (corpus gemv_t).
__global__ void gt_orig(float *y, const float *A, const float *x, int rows,
                        int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r)
      sum += A[r * cols + c] * x[r];
    y[c] = sum;
  }
}

// Split across warps: block (X, Ways); thread (tx, ty) keeps its column c and
// sums rows ty, ty + Ways, ...; the Ways partials meet in shared memory and
// thread ty == 0 adds them in order.
__global__ void gt_split(float *__restrict__ y, const float *__restrict__ A,
                         const float *__restrict__ x, int rows, int cols) {
  __shared__ float part[1024];
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  if (c < cols)
    for (int r = threadIdx.y; r < rows; r += blockDim.y)
      sum += A[r * cols + c] * x[r];
  part[threadIdx.y * blockDim.x + threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    float t = part[threadIdx.x];
    for (int w = 1; w < blockDim.y; ++w)
      t += part[w * blockDim.x + threadIdx.x];
    y[c] = t;
  }
}

// Split across warps with contiguous chunks of rows per ty (each warp streams
// its own block of rows), unrolled 4 for loads in flight.
__global__ void gt_split_chunk(float *__restrict__ y,
                               const float *__restrict__ A,
                               const float *__restrict__ x, int rows,
                               int cols) {
  __shared__ float part[1024];
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.0f;
  int chunk = (rows + blockDim.y - 1) / blockDim.y;
  int r0 = threadIdx.y * chunk, r1 = min(rows, r0 + chunk);
  if (c < cols) {
#pragma unroll 4
    for (int r = r0; r < r1; ++r)
      sum += A[r * cols + c] * x[r];
  }
  part[threadIdx.y * blockDim.x + threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    float t = part[threadIdx.x];
    for (int w = 1; w < blockDim.y; ++w)
      t += part[w * blockDim.x + threadIdx.x];
    y[c] = t;
  }
}

static float *flushBuf;
static void flushL2() { CK(cudaMemset(flushBuf, 0, 256 << 20)); }

template <typename F> static void timeIt(const char *name, double bytes, F f) {
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
  std::printf("%-28s median %.4f ms  min %.4f max %.4f  %.0f GB/s (%.0f%%)\n",
              name, t[12], t[0], t[24], bytes / t[12] / 1e6,
              bytes / t[12] / 1e6 / 4234 * 100);
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

int main() {
  CK(cudaMalloc(&flushBuf, 256 << 20));
  int sms;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int rows = 262144, cols = 512;
  const size_t n = (size_t)rows * cols;
  std::vector<float> h(n);
  srand(1);
  for (auto &v : h)
    v = (rand() / (float)RAND_MAX) * 16.f - 8.f;
  std::vector<__half> hh(n);
  for (size_t i = 0; i < n; ++i)
    hh[i] = __float2half(h[i]);
  float *in, *out, *ref;
  __half *inh, *outh, *refh;
  CK(cudaMalloc(&in, n * 4));
  CK(cudaMalloc(&out, n * 4));
  CK(cudaMalloc(&ref, n * 4));
  CK(cudaMalloc(&inh, n * 2));
  CK(cudaMalloc(&outh, n * 2));
  CK(cudaMalloc(&refh, n * 2));
  CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(inh, hh.data(), n * 2, cudaMemcpyHostToDevice));
  // The generated kernels keep the original launch scaled by cooperative-rows
  // (scale-grid=1: 32x the blocks); the hand ones use the same launch.
  const int grid = (rows + 255) / 256 * 32;
  double b32 = 2.0 * n * 4, b16 = 2.0 * n * 2;
  std::printf("softmax fp32 %d x %d\n", rows, cols);
  timeIt("gen cache0 vec1", b32, [&] { sm_gen_c0v1<<<grid, 256>>>(ref, in, rows, cols); });
  timeIt("gen cache16 vec1", b32, [&] { sm_gen_c16v1<<<grid, 256>>>(out, in, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(out, ref, n));
  timeIt("gen cache16 vec0", b32, [&] { sm_gen_c16v0<<<grid, 256>>>(out, in, rows, cols); });
  timeIt("hand exp-once S16", b32, [&] { sm_hand_exp_once<16><<<grid, 256>>>(out, in, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(out, ref, n));
  timeIt("hand exp-once v4 S4", b32, [&] { sm_hand_exp_once_v4<4><<<grid, 256>>>(out, in, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(out, ref, n));
  timeIt("hand exp-once v4 S4 b128", b32, [&] { sm_hand_exp_once_v4<4><<<grid * 2, 128>>>(out, in, rows, cols); });
  std::printf("softmax fp16\n");
  timeIt("gen cache0 vec1", b16, [&] { smh_gen_c0v1<<<grid, 256>>>(refh, inh, rows, cols); });
  timeIt("gen cache16 vec1", b16, [&] { smh_gen_c16v1<<<grid, 256>>>(outh, inh, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(outh, refh, n));
  timeIt("gen cache16 vec0", b16, [&] { smh_gen_c16v0<<<grid, 256>>>(outh, inh, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(outh, refh, n));
  timeIt("hand exp-once v8 S2", b16, [&] { smh_hand_exp_once_v8<2><<<grid, 256>>>(outh, inh, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(outh, refh, n));
  timeIt("gen c16v1, cached path only", b16, [&] { smh_x_B<<<grid, 256>>>(outh, inh, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(outh, refh, n));
  timeIt("  + fill without fallback", b16, [&] { smh_x_C<<<grid, 256>>>(outh, inh, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(outh, refh, n));
  timeIt("  + max/exp loops without break", b16, [&] { smh_x_D<<<grid, 256>>>(outh, inh, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(outh, refh, n));
  timeIt("  + store loop without break", b16, [&] { smh_x_E<<<grid, 256>>>(outh, inh, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(outh, refh, n));
  timeIt("gen lanes16 cache32 vec1", b16, [&] { smh_gen_l16c32<<<grid / 2, 256>>>(outh, inh, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(outh, refh, n));
  timeIt("c16v1 s11: cached only", b16, [&] { smh_y1<<<grid, 256>>>(outh, inh, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(outh, refh, n));
  timeIt("  + no unaligned fill", b16, [&] { smh_y2<<<grid, 256>>>(outh, inh, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(outh, refh, n));
  timeIt("  + max from -inf", b16, [&] { smh_y3<<<grid, 256>>>(outh, inh, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(outh, refh, n));
  timeIt("  + 64-bit offsets", b16, [&] { smh_y4<<<grid, 256>>>(outh, inh, rows, cols); });
  std::printf("  diff %.3g\n", maxDiff(outh, refh, n));
  timeIt("hand v8 S2 again", b16, [&] { smh_hand_exp_once_v8<2><<<grid, 256>>>(outh, inh, rows, cols); });

  const int R = 16384, C = 16384;
  float *A = in, *x = out, *y, *yr; // reuse: A needs R*C = 268M floats
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaMalloc(&A, (size_t)R * C * 4));
  CK(cudaMalloc(&x, R * 4));
  CK(cudaMalloc(&y, C * 4));
  CK(cudaMalloc(&yr, C * 4));
  CK(cudaMemset(A, 0x3c, (size_t)R * C * 4));
  CK(cudaMemset(x, 0x3c, R * 4));
  double bg = (double)R * C * 4;
  std::printf("gemv_t %d x %d\n", R, C);
  timeIt("orig", bg, [&] { gt_orig<<<(C + 255) / 256, 256>>>(yr, A, x, R, C); });
  timeIt("gen lanes=8", bg, [&] { gt_gen_l8<<<(C + 255) / 256 * 8, 256>>>(y, A, x, R, C); });
  std::printf("  diff %.3g\n", maxDiff(y, yr, C));
  for (int bx : {32, 64})
    for (int ways : {16, 32}) {
      if (bx * ways > 1024)
        continue;
      char name[64];
      std::snprintf(name, sizeof name, "split bx=%d ways=%d", bx, ways);
      std::snprintf(name, sizeof name, "split-chunk bx=%d ways=%d", bx, ways);
      timeIt(name, bg, [&] { gt_split_chunk<<<(C + bx - 1) / bx, dim3(bx, ways)>>>(y, A, x, R, C); });
    }
  std::printf("  diff %.3g\n", maxDiff(y, yr, C));
  std::printf("SMs %d\n", sms);
  return 0;
}
