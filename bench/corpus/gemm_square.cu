// gemm_square.cu - naive square SGEMM, C = A * B, one thread per output.
#define CORPUS_NAME "gemm_square"
#define CORPUS_SEED 0x9e3779b9u
#include "corpus_common.h"

__global__ void matmul(const float *A, const float *B, float *C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    float sum = 0.0f;
    for (int k = 0; k < n; ++k)
      sum += A[row * n + k] * B[k * n + col];
    C[row * n + col] = sum;
  }
}

int main() {
  const int n = 2048;
  const size_t nn = (size_t)n * n;
  std::vector<float> hA(nn), hB(nn), hC(nn);
  fill_uniform(hA, -1.0f, 1.0f);
  fill_uniform(hB, -1.0f, 1.0f);
  float *A, *B, *C;
  CK(cudaMalloc(&A, nn * sizeof(float)));
  CK(cudaMalloc(&B, nn * sizeof(float)));
  CK(cudaMalloc(&C, nn * sizeof(float)));
  CK(cudaMemcpy(A, hA.data(), nn * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(B, hB.data(), nn * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(16, 16);
  dim3 grid((n + 15) / 16, (n + 15) / 16);
  matmul<<<grid, block>>>(A, B, C, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hC.data(), C, nn * sizeof(float), cudaMemcpyDeviceToHost));

  // Check a sample of outputs (plus the corners) against a double reference.
  double worst = 0;
  int bad = check_gemm_samples(hA, hB, hC, n, n, n, &worst);
  CK(cudaFree(A));
  CK(cudaFree(B));
  CK(cudaFree(C));
  if (bad) {
    std::printf("gemm_square: FAILED (%d of 8192 sampled outputs wrong, first "
                "error %g)\n", bad, worst);
    return 1;
  }
  std::printf("gemm_square: ok\n");
  return 0;
}
