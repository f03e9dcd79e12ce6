// chain3_fp16.cu - out = hardswish(x * y + z) over 64M __half values, written
// as three elementwise kernels launched back to back through two temporaries:
// mul writes t1 = x * y (__hmul), add writes t2 = t1 + z (__hadd), hardswish
// writes out = t2 * min(max(t2 + 3, 0), 6) / 6 (in float, rounded to __half).
// t1 and t2 are cudaMalloc'ed for the chain and freed after it (dead
// afterwards). The launch-fusion case of issue 14 with three launches and
// fp16 data: the chain moves 1 GB (128 MB per array access: 3 + 3 + 2) where
// the fused floor is 512 MB (x, y, z read once, out written once).
#define CORPUS_NAME "chain3_fp16"
#define CORPUS_SEED 0x983e5152u
#include "corpus_common.h"

__global__ void mul(__half *t1, const __half *x, const __half *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t1[i] = __hmul(x[i], y[i]);
}

__global__ void add(__half *t2, const __half *t1, const __half *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t2[i] = __hadd(t1[i], z[i]);
}

__global__ void hardswish(__half *out, const __half *t2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = __half2float(t2[i]);
    float r6 = fminf(fmaxf(v + 3.0f, 0.0f), 6.0f);
    out[i] = __float2half(v * r6 / 6.0f);
  }
}

int main() {
  const int n = 1 << 26;
  std::vector<__half> hx(n), hy(n), hz(n), hout(n);
  fill_uniform(hx, -2.0f, 2.0f);
  fill_uniform(hy, -2.0f, 2.0f);
  fill_uniform(hz, -1.0f, 1.0f);
  __half *x, *y, *z, *t1, *t2, *out;
  CK(cudaMalloc(&x, (size_t)n * sizeof(__half)));
  CK(cudaMalloc(&y, (size_t)n * sizeof(__half)));
  CK(cudaMalloc(&z, (size_t)n * sizeof(__half)));
  CK(cudaMalloc(&out, (size_t)n * sizeof(__half)));
  CK(cudaMemcpy(x, hx.data(), (size_t)n * sizeof(__half),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(y, hy.data(), (size_t)n * sizeof(__half),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(z, hz.data(), (size_t)n * sizeof(__half),
                cudaMemcpyHostToDevice));
  CK(cudaMalloc(&t1, (size_t)n * sizeof(__half)));
  CK(cudaMalloc(&t2, (size_t)n * sizeof(__half)));
  mul<<<(n + 255) / 256, 256>>>(t1, x, y, n);
  CK(cudaGetLastError());
  add<<<(n + 255) / 256, 256>>>(t2, t1, z, n);
  CK(cudaGetLastError());
  hardswish<<<(n + 255) / 256, 256>>>(out, t2, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaFree(t1));
  CK(cudaFree(t2));
  CK(cudaMemcpy(hout.data(), out, (size_t)n * sizeof(__half),
                cudaMemcpyDeviceToHost));
  // Reference in double from the __half inputs: 1e-2 relative to the output
  // (fp16), plus 3e-3 of the terms' magnitudes, since t1 and t2 are rounded
  // to __half (2^-11 relative each, at most 2^-11 * (2 |x y| + |z|) in t2)
  // where x * y + z cancels, and hardswish's slope is at most 1.5.
  long long bad = 0;
  for (int i = 0; i < n; ++i) {
    double xy = (double)__half2float(hx[i]) * __half2float(hy[i]);
    double zi = __half2float(hz[i]);
    double t = xy + zi;
    double ref = t * std::fmin(std::fmax(t + 3.0, 0.0), 6.0) / 6.0;
    double got = __half2float(hout[i]);
    double tol = 1e-2 * std::fabs(ref) +
                 3e-3 * (std::fabs(xy) + std::fabs(zi)) + 1e-6;
    bad += !(std::fabs(got - ref) <= tol);
  }
  CK(cudaFree(x));
  CK(cudaFree(y));
  CK(cudaFree(z));
  CK(cudaFree(out));
  if (bad) {
    std::printf("chain3_fp16: FAILED (%lld of %d outputs wrong)\n", bad, n);
    return 1;
  }
  std::printf("chain3_fp16: ok\n");
  return 0;
}
