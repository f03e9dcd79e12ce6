// gemm_square.cu - naive square SGEMM, C = A * B, one thread per output.
#define CORPUS_NAME "gemm_square"
#define CORPUS_SEED 0x9e3779b9u
#include "corpus_common.h"
#include "cudaopt/gemm.h"

// gemm-specialize: runs a problem on a stream where a GEMM kernel was
// launched; errors also reach cudaGetLastError, as a launch's would.
static cudaError_t cudaoptGemmLaunch(cudaStream_t Stream,
                                     cudaoptGemmProblem Problem) {
  return cudaoptGemm(&Problem, nullptr, 0, Stream);
}

__global__ void matmul(const float *__restrict__ A, const float *__restrict__ B,
                       float *__restrict__ C, int n) {
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
  cudaoptGemmLaunch(0,
                    {/*M=*/n, /*N=*/n, /*K=*/n, CUDAOPT_GEMM_F32,
                     CUDAOPT_GEMM_B_ROW, /*A=*/A, /*Lda=*/n, /*B=*/B, /*Ldb=*/n,
                     /*C=*/C, /*Ldc=*/n, /*Alpha=*/1.0f, /*Beta=*/0.0f});
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hC.data(), C, nn * sizeof(float), cudaMemcpyDeviceToHost));

  // Check a sample of outputs (plus the corners) against a double reference.
  int bad = 0;
  double worst = 0;
  for (int s = 0; s < 8192; ++s) {
    int r = s < 2 ? s * (n - 1) : (int)(frand(0, 1) * n) % n;
    int c = s < 2 ? s * (n - 1) : (int)(frand(0, 1) * n) % n;
    double ref = 0, mag = 0;
    for (int k = 0; k < n; ++k) {
      double p = (double)hA[(size_t)r * n + k] * hB[(size_t)k * n + c];
      ref += p;
      mag += std::fabs(p);
    }
    double err = std::fabs(hC[(size_t)r * n + c] - ref);
    if (err > 1e-4 * mag + 1e-6) {
      if (!bad)
        worst = err;
      ++bad;
    }
  }
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
