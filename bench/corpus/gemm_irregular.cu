// gemm_irregular.cu - naive SGEMM, C[M x N] = A[M x K] * B[K x N], on an
// irregular shape: 3001 x 1999 x 777 (no size a multiple of a tile).
#define CORPUS_NAME "gemm_irregular"
#define CORPUS_SEED 0x2f6b1d3bu
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
  const int M = 3001, N = 1999, K = 777;
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

  double first = 0;
  int bad = check_gemm_samples(hA, hB, hC, M, N, K, &first);
  CK(cudaFree(A));
  CK(cudaFree(B));
  CK(cudaFree(C));
  if (bad) {
    std::printf("gemm_irregular: FAILED (%d of %d sampled outputs wrong, first "
                "error %g)\n", bad, 8192, first);
    return 1;
  }
  std::printf("gemm_irregular: ok\n");
  return 0;
}
