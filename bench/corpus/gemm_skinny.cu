// gemm_skinny.cu - naive tall-skinny SGEMM, C[M x N] = A[M x K] * B[K x N]
// with 16384 rows and 64 columns (a narrow projection).
#define CORPUS_NAME "gemm_skinny"
#define CORPUS_SEED 0x61c88647u
#include "corpus_common.h"

__global__ void gemm(const float *A, const float *B, float *C, int M, int N,
                     int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}

int main() {
  const int M = 16384, N = 64, K = 1024;
  std::vector<float> hA((size_t)M * K), hB((size_t)K * N), hC((size_t)M * N);
  fill_uniform(hA, -1.0f, 1.0f);
  fill_uniform(hB, -0.5f, 1.5f);
  float *A, *B, *C;
  CK(cudaMalloc(&A, hA.size() * sizeof(float)));
  CK(cudaMalloc(&B, hB.size() * sizeof(float)));
  CK(cudaMalloc(&C, hC.size() * sizeof(float)));
  CK(cudaMemcpy(A, hA.data(), hA.size() * sizeof(float),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(B, hB.data(), hB.size() * sizeof(float),
                cudaMemcpyHostToDevice));
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16, (M + 15) / 16);
  gemm<<<grid, block>>>(A, B, C, M, N, K);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hC.data(), C, hC.size() * sizeof(float),
                cudaMemcpyDeviceToHost));

  int bad = 0;
  double first = 0;
  const int samples = 8192;
  for (int s = 0; s < samples; ++s) {
    int r = s == 0 ? 0 : s == 1 ? M - 1 : (int)(frand(0, 1) * M) % M;
    int c = s == 0 ? 0 : s == 1 ? N - 1 : (int)(frand(0, 1) * N) % N;
    double ref = 0, mag = 0;
    for (int k = 0; k < K; ++k) {
      double p = (double)hA[(size_t)r * K + k] * hB[(size_t)k * N + c];
      ref += p;
      mag += std::fabs(p);
    }
    double err = std::fabs(hC[(size_t)r * N + c] - ref);
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
    std::printf("gemm_skinny: FAILED (%d of %d sampled outputs wrong, first "
                "error %g)\n", bad, samples, first);
    return 1;
  }
  std::printf("gemm_skinny: ok\n");
  return 0;
}
