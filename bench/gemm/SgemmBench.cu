//===- SgemmBench.cu - the exact fp32 GEMM's variants vs cuBLAS SGEMM -----===//
//
// Usage: sgemm-bench [--rounds 20]
//
// For each problem (the corpus's fp32 GEMMs and two more): every compiled
// variant of runtime/gemm/lib/Sgemm.cu must produce C bit for bit equal to
// the naive kernel it replaces (one thread per output, acc = fma(a, b, acc)
// over k in order); then the variants and cublasSgemm (default math mode:
// FFMA, no TF32) are timed interleaved, L2 flushed before each sample
// (bench/gemm/Timer.cpp), median of --rounds. One line per problem and
// variant; exit 1 if any variant is not bit-identical.
//
//===----------------------------------------------------------------------===//

#include "Bench.h"
#include "Internal.h"

#include <cstring>

using namespace bench;

namespace {

struct Problem {
  int M, N, K, Batch;
  bool BRow;
  const char *Name;
};

const Problem Problems[] = {
    {2048, 2048, 2048, 1, true, "gemm_square 2048^3"},
    {4096, 2048, 1024, 1, true, "gemm_rect 4096x2048x1024"},
    {512, 512, 512, 64, true, "gemm_batched 64 x 512^3"},
    {4096, 4096, 4096, 1, true, "4096^3"},
    {1000, 1000, 1000, 1, false, "1000^3 B col (scalar loads)"},
};

/// The kernel gemm-specialize replaces: C[m][n] = sum over k in order.
__global__ void naiveSgemm(int M, int N, int K, const float *A, const float *B,
                           bool BRow, float *C, long long SA, long long SB,
                           long long SC) {
  A += blockIdx.z * SA;
  B += blockIdx.z * SB;
  C += blockIdx.z * SC;
  int Col = blockIdx.x * blockDim.x + threadIdx.x;
  int Row = blockIdx.y * blockDim.y + threadIdx.y;
  if (Row >= M || Col >= N)
    return;
  float Acc = 0.f;
  for (int Kk = 0; Kk < K; ++Kk)
    Acc = fmaf(A[(long long)Row * K + Kk],
               BRow ? B[(long long)Kk * N + Col] : B[(long long)Col * K + Kk],
               Acc);
  C[(long long)Row * N + Col] = Acc;
}

} // namespace

int main(int Argc, char **Argv) {
  int Rounds = 20;
  for (int I = 1; I < Argc; ++I) {
    if (!std::strcmp(Argv[I], "--rounds") && I + 1 < Argc)
      Rounds = std::atoi(Argv[++I]);
    else {
      std::fprintf(stderr, "usage: sgemm-bench [--rounds N]\n");
      return 2;
    }
  }
  cudaStream_t S;
  BENCH_CHECK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking));
  cublasHandle_t H;
  if (cublasCreate(&H) != CUBLAS_STATUS_SUCCESS)
    return 2;
  cublasSetStream(H, S);
  Timer T(S, 256u << 20);
  const int Variants = cudaopt::gemm::sgemmVariantCount();
  int Mismatches = 0;
  std::printf("%-30s %-16s %10s %9s %9s %s\n", "problem", "variant", "ms",
              "TFLOP/s", "vs cuBLAS", "exact");
  for (const Problem &Pr : Problems) {
    const long long SA = (long long)Pr.M * Pr.K, SB = (long long)Pr.K * Pr.N,
                    SC = (long long)Pr.M * Pr.N;
    float *A, *B, *C, *Ref;
    BENCH_CHECK(cudaMalloc(&A, SA * Pr.Batch * 4));
    BENCH_CHECK(cudaMalloc(&B, SB * Pr.Batch * 4));
    BENCH_CHECK(cudaMalloc(&C, SC * Pr.Batch * 4));
    BENCH_CHECK(cudaMalloc(&Ref, SC * Pr.Batch * 4));
    fillUniformF32(A, SA * Pr.Batch, 1, -1.f, 1.f, S);
    fillUniformF32(B, SB * Pr.Batch, 2, -1.f, 1.f, S);
    naiveSgemm<<<dim3((Pr.N + 15) / 16, (Pr.M + 15) / 16, Pr.Batch),
                 dim3(16, 16), 0, S>>>(Pr.M, Pr.N, Pr.K, A, B, Pr.BRow, Ref,
                                       SA, SB, SC);
    BENCH_CHECK(cudaStreamSynchronize(S));
    cudaoptGemmProblem P = {};
    P.M = Pr.M;
    P.N = Pr.N;
    P.K = Pr.K;
    P.Type = CUDAOPT_GEMM_F32;
    P.LayoutB = Pr.BRow ? CUDAOPT_GEMM_B_ROW : CUDAOPT_GEMM_B_COL;
    P.A = A;
    P.B = B;
    P.C = C;
    P.Lda = Pr.K;
    P.Ldb = Pr.BRow ? Pr.N : Pr.K;
    P.Ldc = Pr.N;
    P.Alpha = 1.f;
    P.Beta = 0.f;
    P.Batch = Pr.Batch;
    P.StrideA = SA;
    P.StrideB = SB;
    P.StrideC = SC;

    std::vector<cudaGraphExec_t> Graphs;
    std::vector<std::string> Names;
    std::vector<bool> Exact;
    std::vector<float> Host(SC * Pr.Batch), HostRef(SC * Pr.Batch);
    BENCH_CHECK(cudaMemcpy(HostRef.data(), Ref, SC * Pr.Batch * 4,
                           cudaMemcpyDeviceToHost));
    for (int V = 0; V < Variants; ++V) {
      BENCH_CHECK(cudaMemsetAsync(C, 0xFF, SC * Pr.Batch * 4, S)); // NaN
      BENCH_CHECK(cudaopt::gemm::launchSgemmVariant(P, V, S));
      BENCH_CHECK(cudaStreamSynchronize(S));
      BENCH_CHECK(cudaMemcpy(Host.data(), C, SC * Pr.Batch * 4,
                             cudaMemcpyDeviceToHost));
      bool Same = !std::memcmp(Host.data(), HostRef.data(), Host.size() * 4);
      Mismatches += !Same;
      cudaGraphExec_t G;
      if (!T.build(
              [&](cudaStream_t St, int) {
                return cudaopt::gemm::launchSgemmVariant(P, V, St) ==
                       cudaSuccess;
              },
              1, 1, &G))
        return 2;
      Graphs.push_back(G);
      Names.push_back(cudaopt::gemm::sgemmVariantName(V));
      Exact.push_back(Same);
    }
    // cuBLAS, row-major C = A B as column-major C^T = B^T A^T.
    const float One = 1.f, Zero = 0.f;
    cudaGraphExec_t G;
    if (!T.build(
            [&](cudaStream_t, int) {
              cublasOperation_t OpB = Pr.BRow ? CUBLAS_OP_N : CUBLAS_OP_T;
              return cublasSgemmStridedBatched(
                         H, OpB, CUBLAS_OP_N, Pr.N, Pr.M, Pr.K, &One, B,
                         Pr.BRow ? Pr.N : Pr.K, SB, A, Pr.K, SA, &Zero, C,
                         Pr.N, SC, Pr.Batch) == CUBLAS_STATUS_SUCCESS;
            },
            1, 1, &G))
      return 2;
    Graphs.push_back(G);
    Names.push_back("cublasSgemm");
    Exact.push_back(false);
    std::vector<Stats> Times = T.run(Graphs, 1, Rounds);
    const double Flop = 2.0 * Pr.M * Pr.N * Pr.K * Pr.Batch;
    const double Cublas = Times.back().Median;
    for (size_t I = 0; I < Graphs.size(); ++I) {
      const bool IsCublas = I + 1 == Graphs.size();
      std::printf("%-30s %-16s %10.4f %9.2f %9.3f %s%s\n", Pr.Name,
                  Names[I].c_str(), Times[I].Median,
                  Flop / Times[I].Median / 1e9, Cublas / Times[I].Median,
                  IsCublas ? "-" : Exact[I] ? "yes" : "NO",
                  int(I) == cudaopt::gemm::sgemmDefaultVariant() ? " (default)"
                                                                 : "");
      cudaGraphExecDestroy(Graphs[I]);
    }
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(Ref);
  }
  std::printf("%d variant(s) not bit-identical\n", Mismatches);
  return Mismatches ? 1 : 0;
}
