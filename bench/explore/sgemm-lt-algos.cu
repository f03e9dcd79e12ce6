// sgemm-lt-algos.cu - can an fp32 GEMM route beat cublasSgemm by picking a
// cuBLASLt algorithm? (issue 14: fp32 GEMMs >= 1.0x cublasSgemm.)
// For each shape: cublasSgemm exactly as runtime/gemm/lib/CublasSgemm.cpp
// calls it (C row-major computed as C^T = B^T A^T, B row-major), then every
// cuBLASLt heuristic candidate (CUBLAS_COMPUTE_32F: fp32 FFMA, no TF32; a
// 32 MiB workspace) with the same operands. Each candidate's result is
// compared with cublasSgemm's (max |diff| / max |C|); all are timed with CUDA
// events, one call per sample, a 512 MiB L2 flush before each, methods
// interleaved per round, median of 30 rounds after 3 warm-up rounds.
//   sgemm-lt-algos [M N K BATCH]...   (default: the corpus's fp32 GEMMs)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <string>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    auto e = (x);                                                              \
    if (e != 0) {                                                              \
      std::printf("%s:%d %s: %d\n", __FILE__, __LINE__, #x, (int)e);           \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct Shape {
  const char *Name;
  int M, N, K, Batch;
};

static float median(std::vector<float> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

__global__ void fillKernel(float *P, size_t N, unsigned Seed) {
  for (size_t I = blockIdx.x * (size_t)blockDim.x + threadIdx.x; I < N;
       I += (size_t)gridDim.x * blockDim.x) {
    unsigned X = (unsigned)I * 2654435761u ^ Seed;
    X ^= X >> 13;
    X *= 0x5bd1e995u;
    X ^= X >> 15;
    P[I] = (float)(X & 0xffff) / 32768.0f - 1.0f;
  }
}

int main(int argc, char **argv) {
  std::vector<Shape> Shapes = {{"gemm_square", 2048, 2048, 2048, 1},
                               {"gemm_rect", 4096, 2048, 1024, 1},
                               {"gemm_batched", 512, 512, 512, 64},
                               {"gemm_skinny", 16384, 64, 1024, 1},
                               {"gemm_smallk", 4096, 4096, 32, 1},
                               {"gemm_irregular", 3001, 1999, 777, 1}};
  if (argc > 1) {
    Shapes.clear();
    for (int I = 1; I + 3 < argc; I += 4)
      Shapes.push_back({"arg", std::atoi(argv[I]), std::atoi(argv[I + 1]),
                        std::atoi(argv[I + 2]), std::atoi(argv[I + 3])});
  }
  cublasHandle_t H;
  CK(cublasCreate(&H));
  cublasLtHandle_t Lt;
  CK(cublasLtCreate(&Lt));
  const size_t FlushBytes = 512u << 20, WsBytes = 32u << 20;
  void *Flush, *Ws;
  CK(cudaMalloc(&Flush, FlushBytes));
  CK(cudaMalloc(&Ws, WsBytes));
  cudaEvent_t E0, E1;
  CK(cudaEventCreate(&E0));
  CK(cudaEventCreate(&E1));
  std::printf("%-15s %6s %6s %6s %4s | %10s | %10s %5s %10s | %s\n", "shape",
              "M", "N", "K", "b", "sgemm ms", "best lt ms", "algo",
              "sgemm/lt", "candidates (ms, rel diff)");
  for (const Shape &S : Shapes) {
    const long long SA = (long long)S.M * S.K, SB = (long long)S.K * S.N,
                    SC = (long long)S.M * S.N;
    float *A, *B, *C, *Ref;
    CK(cudaMalloc(&A, sizeof(float) * SA * S.Batch));
    CK(cudaMalloc(&B, sizeof(float) * SB * S.Batch));
    CK(cudaMalloc(&C, sizeof(float) * SC * S.Batch));
    CK(cudaMalloc(&Ref, sizeof(float) * SC * S.Batch));
    fillKernel<<<1024, 256>>>(A, SA * S.Batch, 1);
    fillKernel<<<1024, 256>>>(B, SB * S.Batch, 2);
    const float One = 1, Zero = 0;
    // C^T (N x M, col-major) = B^T (N x K, col-major = B row-major) x A^T.
    auto RunSgemm = [&](float *Out) {
      if (S.Batch > 1)
        return (int)cublasSgemmStridedBatched(
            H, CUBLAS_OP_N, CUBLAS_OP_N, S.N, S.M, S.K, &One, B, S.N, SB, A,
            S.K, SA, &Zero, Out, S.N, SC, S.Batch);
      return (int)cublasSgemm(H, CUBLAS_OP_N, CUBLAS_OP_N, S.N, S.M, S.K, &One,
                              B, S.N, A, S.K, &Zero, Out, S.N);
    };
    CK(RunSgemm(Ref));
    cublasLtMatmulDesc_t Op;
    CK(cublasLtMatmulDescCreate(&Op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasLtMatrixLayout_t LA, LB, LC;
    CK(cublasLtMatrixLayoutCreate(&LB, CUDA_R_32F, S.N, S.K, S.N));
    CK(cublasLtMatrixLayoutCreate(&LA, CUDA_R_32F, S.K, S.M, S.K));
    CK(cublasLtMatrixLayoutCreate(&LC, CUDA_R_32F, S.N, S.M, S.N));
    if (S.Batch > 1) {
      for (auto [L, Stride] : {std::pair{LA, SA}, {LB, SB}, {LC, SC}}) {
        CK(cublasLtMatrixLayoutSetAttribute(
            L, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &S.Batch, sizeof(int)));
        CK(cublasLtMatrixLayoutSetAttribute(
            L, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &Stride,
            sizeof(long long)));
      }
    }
    cublasLtMatmulPreference_t Pref;
    CK(cublasLtMatmulPreferenceCreate(&Pref));
    CK(cublasLtMatmulPreferenceSetAttribute(
        Pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &WsBytes,
        sizeof(WsBytes)));
    cublasLtMatmulHeuristicResult_t Res[32];
    int Count = 0;
    CK(cublasLtMatmulAlgoGetHeuristic(Lt, Op, LB, LA, LC, LC, Pref, 32, Res,
                                      &Count));
    // Check each candidate against cublasSgemm's result.
    std::vector<float> HostRef(SC * S.Batch), HostC(SC * S.Batch);
    CK(cudaMemcpy(HostRef.data(), Ref, sizeof(float) * SC * S.Batch,
                  cudaMemcpyDeviceToHost));
    double MaxRef = 0;
    for (float V : HostRef)
      MaxRef = std::max(MaxRef, (double)std::fabs(V));
    std::vector<double> RelDiff(Count, -1);
    for (int I = 0; I < Count; ++I) {
      CK(cudaMemset(C, 0xff, sizeof(float) * SC * S.Batch));
      if (cublasLtMatmul(Lt, Op, &One, B, LB, A, LA, &Zero, C, LC, C, LC,
                         &Res[I].algo, Ws, WsBytes, 0) != CUBLAS_STATUS_SUCCESS)
        continue;
      CK(cudaMemcpy(HostC.data(), C, sizeof(float) * SC * S.Batch,
                    cudaMemcpyDeviceToHost));
      double D = 0;
      for (size_t J = 0; J < HostC.size(); ++J) {
        double X = std::fabs((double)HostC[J] - HostRef[J]);
        D = std::isnan(X) ? INFINITY : std::max(D, X);
      }
      RelDiff[I] = D / MaxRef;
    }
    std::vector<std::vector<float>> T(Count + 1);
    for (int Round = 0; Round < 33; ++Round) {
      for (int I = -1; I < Count; ++I) {
        if (I >= 0 && (RelDiff[I] < 0 || RelDiff[I] > 1e-4))
          continue;
        CK(cudaMemsetAsync(Flush, Round & 0xff, FlushBytes, 0));
        CK(cudaEventRecord(E0, 0));
        if (I < 0)
          CK(RunSgemm(C));
        else
          CK(cublasLtMatmul(Lt, Op, &One, B, LB, A, LA, &Zero, C, LC, C, LC,
                            &Res[I].algo, Ws, WsBytes, 0));
        CK(cudaEventRecord(E1, 0));
        CK(cudaEventSynchronize(E1));
        float Ms;
        CK(cudaEventElapsedTime(&Ms, E0, E1));
        if (Round >= 3)
          T[I + 1].push_back(Ms);
      }
    }
    float Sg = median(T[0]), Best = 1e30f;
    int BestI = -1;
    std::string List;
    for (int I = 0; I < Count; ++I) {
      char Buf[64];
      if (T[I + 1].empty()) {
        std::snprintf(Buf, sizeof Buf, " #%d:skip(%.1e)", I, RelDiff[I]);
      } else {
        float M = median(T[I + 1]);
        if (M < Best)
          Best = M, BestI = I;
        std::snprintf(Buf, sizeof Buf, " #%d:%.4f(%.0e)", I, M, RelDiff[I]);
      }
      List += Buf;
    }
    std::printf("%-15s %6d %6d %6d %4d | %10.4f | %10.4f %5d %9.3fx |%s\n",
                S.Name, S.M, S.N, S.K, S.Batch, Sg, Best, BestI, Sg / Best,
                List.c_str());
    cublasLtMatmulPreferenceDestroy(Pref);
    cublasLtMatrixLayoutDestroy(LA);
    cublasLtMatrixLayoutDestroy(LB);
    cublasLtMatrixLayoutDestroy(LC);
    cublasLtMatmulDescDestroy(Op);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(Ref);
  }
  return 0;
}
