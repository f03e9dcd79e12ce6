// gemm_fp16.cu - naive half-precision GEMM (__half in and out, fp32
// accumulation), one thread per output: C[M x N] = A[M x K] * B[K x N].
#define CORPUS_NAME "gemm_fp16"
#define CORPUS_SEED 0x1234567u
#include "corpus_common.h"
#include "cudaopt/gemm.h"

// gemm-specialize: runs a problem on a stream where a GEMM kernel was
// launched; errors also reach cudaGetLastError, as a launch's would.
static cudaError_t cudaoptGemmLaunch(cudaStream_t Stream,
                                     cudaoptGemmProblem Problem) {
  return cudaoptGemm(&Problem, nullptr, 0, Stream);
}

__global__ void hgemm(const __half *A, const __half *B, __half *C, int M,
                      int N, int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += __half2float(A[row * K + k]) * __half2float(B[k * N + col]);
    C[row * N + col] = __float2half(acc);
  }
}

int main() {
  const int M = 4096, N = 4096, K = 1024;
  std::vector<__half> hA((size_t)M * K), hB((size_t)K * N), hC((size_t)M * N);
  std::vector<float> fA(hA.size()), fB(hB.size());
  fill_uniform(hA, -1.0f, 1.0f);
  fill_uniform(hB, -1.0f, 1.0f);
  for (size_t i = 0; i < hA.size(); ++i)
    fA[i] = __half2float(hA[i]);
  for (size_t i = 0; i < hB.size(); ++i)
    fB[i] = __half2float(hB[i]);
  __half *A, *B, *C;
  CK(cudaMalloc(&A, hA.size() * sizeof(__half)));
  CK(cudaMalloc(&B, hB.size() * sizeof(__half)));
  CK(cudaMalloc(&C, hC.size() * sizeof(__half)));
  CK(cudaMemcpy(A, hA.data(), hA.size() * sizeof(__half),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(B, hB.data(), hB.size() * sizeof(__half),
                cudaMemcpyHostToDevice));
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  cudaoptGemmLaunch(0,
                    {/*M=*/M, /*N=*/N, /*K=*/K, CUDAOPT_GEMM_F16,
                     CUDAOPT_GEMM_B_ROW, /*A=*/A, /*Lda=*/K, /*B=*/B, /*Ldb=*/N,
                     /*C=*/C, /*Ldc=*/N, /*Alpha=*/1.0f, /*Beta=*/0.0f});
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hC.data(), C, hC.size() * sizeof(__half),
                cudaMemcpyDeviceToHost));

  // fp16 output: 1e-2 relative to the value, plus a small share of the sum of
  // magnitudes for outputs near zero.
  int bad = 0;
  double first = 0;
  const int samples = 8192;
  for (int s = 0; s < samples; ++s) {
    int r = s == 0 ? 0 : s == 1 ? M - 1 : (int)(frand(0, 1) * M) % M;
    int c = s == 0 ? 0 : s == 1 ? N - 1 : (int)(frand(0, 1) * N) % N;
    double ref = 0, mag = 0;
    for (int k = 0; k < K; ++k) {
      double p = (double)fA[(size_t)r * K + k] * fB[(size_t)k * N + c];
      ref += p;
      mag += std::fabs(p);
    }
    double got = __half2float(hC[(size_t)r * N + c]);
    double err = std::fabs(got - ref);
    if (!(err <= 1e-2 * std::fabs(ref) + 1e-3 * mag)) {
      if (!bad)
        first = err;
      ++bad;
    }
  }
  CK(cudaFree(A));
  CK(cudaFree(B));
  CK(cudaFree(C));
  if (bad) {
    std::printf("gemm_fp16: FAILED (%d of %d sampled outputs wrong, first "
                "error %g)\n", bad, samples, first);
    return 1;
  }
  std::printf("gemm_fp16: ok\n");
  return 0;
}
