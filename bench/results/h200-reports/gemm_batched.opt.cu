// gemm_batched.cu - naive batched SGEMM: for each b, C[b] = A[b] * B[b]
// (M x K times K x N), one thread per output, the batch in blockIdx.z.
#define CORPUS_NAME "gemm_batched"
#define CORPUS_SEED 0xdeadbeefu
#include "corpus_common.h"
#include "cudaopt/gemm.h"

// gemm-specialize: runs a problem on a stream where a GEMM kernel was
// launched; errors also reach cudaGetLastError, as a launch's would.
static cudaError_t cudaoptGemmLaunch(cudaStream_t Stream,
                                     cudaoptGemmProblem Problem) {
  return cudaoptGemm(&Problem, nullptr, 0, Stream);
}

__global__ void batched_gemm(const float *__restrict__ A,
                             const float *__restrict__ B, float *__restrict__ C,
                             int batch, int M, int N, int K) {
  int b = blockIdx.z;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < batch && row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
      sum += A[b * M * K + row * K + k] * B[b * K * N + k * N + col];
    C[b * M * N + row * N + col] = sum;
  }
}

int main() {
  const int batch = 64, M = 512, N = 512, K = 512;
  std::vector<float> hA((size_t)batch * M * K), hB((size_t)batch * K * N),
      hC((size_t)batch * M * N);
  fill_uniform(hA, -1.0f, 1.0f);
  fill_uniform(hB, -1.0f, 1.0f);
  float *A, *B, *C;
  CK(cudaMalloc(&A, hA.size() * sizeof(float)));
  CK(cudaMalloc(&B, hB.size() * sizeof(float)));
  CK(cudaMalloc(&C, hC.size() * sizeof(float)));
  CK(cudaMemcpy(A, hA.data(), hA.size() * sizeof(float),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(B, hB.data(), hB.size() * sizeof(float),
                cudaMemcpyHostToDevice));
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16, batch);
  cudaoptGemmLaunch(0, {/*M=*/M, /*N=*/N, /*K=*/K, CUDAOPT_GEMM_F32,
                        CUDAOPT_GEMM_B_ROW, /*A=*/A, /*Lda=*/K, /*B=*/B,
                        /*Ldb=*/N, /*C=*/C, /*Ldc=*/N, /*Alpha=*/1.0f,
                        /*Beta=*/0.0f, /*Batch=*/batch,
                        /*StrideA=*/static_cast<long long>(M) * (K),
                        /*StrideB=*/static_cast<long long>(K) * (N),
                        /*StrideC=*/static_cast<long long>(M) * (N)});
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hC.data(), C, hC.size() * sizeof(float),
                cudaMemcpyDeviceToHost));

  int bad = 0;
  double first = 0;
  const int samples = 16384;
  for (int s = 0; s < samples; ++s) {
    int b = s == 1 ? batch - 1 : (int)(frand(0, 1) * batch) % batch;
    int r = s == 1 ? M - 1 : (int)(frand(0, 1) * M) % M;
    int c = s == 1 ? N - 1 : (int)(frand(0, 1) * N) % N;
    const float *a = &hA[(size_t)b * M * K];
    const float *bb = &hB[(size_t)b * K * N];
    double ref = 0, mag = 0;
    for (int k = 0; k < K; ++k) {
      double p = (double)a[(size_t)r * K + k] * bb[(size_t)k * N + c];
      ref += p;
      mag += std::fabs(p);
    }
    double err = std::fabs(hC[(size_t)b * M * N + (size_t)r * N + c] - ref);
    if (err > 1e-4 * mag + 1e-6) {
      if (!bad)
        first = err;
      ++bad;
    }
  }
  CK(cudaFree(A));
  CK(cudaFree(B));
  CK(cudaFree(C));
  if (bad) {
    std::printf("gemm_batched: FAILED (%d of %d sampled outputs wrong, first "
                "error %g)\n", bad, samples, first);
    return 1;
  }
  std::printf("gemm_batched: ok\n");
  return 0;
}
