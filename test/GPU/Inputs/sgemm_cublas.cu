// The fp32 path that may reassociate (runtime/gemm/lib/CublasSgemm.cpp,
// gemm-specialize{f32-cublas=1,lt-algo=k}) must compute the same GEMM as the
// naive kernel it replaces, to the precision rule of --fp-model=reassoc: its
// largest error against an fp64 host reference is at most twice the naive
// kernel's plus 2 ulp of the largest reference value. Odd shapes, both B
// layouts, padded leading dimensions, alpha/beta, batches; each with
// cublasSgemm (LibraryAlgo 0) and the first three cuBLASLt candidates
// (LibraryAlgo 1..3), each of which the heuristic must offer on some shape
// (else the call is cublasSgemm again and cuBLASLt goes untested);
// and the check itself must reject a call with B's layout flipped (a planted
// bug), on both routes.
#include "Internal.h"

#include <cmath>
#include <cstdio>
#include <vector>

__global__ void naive(const float *A, long long Lda, const float *B,
                      long long Ldb, bool BRow, float *C, long long Ldc, int M,
                      int N, int K, float Alpha, float Beta, long long SA,
                      long long SB, long long SC) {
  A += blockIdx.z * SA;
  B += blockIdx.z * SB;
  C += blockIdx.z * SC;
  int Row = blockIdx.y * blockDim.y + threadIdx.y;
  int Col = blockIdx.x * blockDim.x + threadIdx.x;
  if (Row < M && Col < N) {
    float Acc = 0.0f;
    for (int k = 0; k < K; ++k)
      Acc += A[Row * Lda + k] * (BRow ? B[k * Ldb + Col] : B[Col * Ldb + k]);
    C[Row * Ldc + Col] = Alpha * Acc + Beta * C[Row * Ldc + Col];
  }
}

static unsigned Seed = 4242;
static float frand() {
  Seed = Seed * 1664525u + 1013904223u;
  return static_cast<float>(Seed >> 8) / 16777216.0f * 2.0f - 1.0f;
}

/// Per LibraryAlgo: whether some call had that many cuBLASLt candidates, so
/// that it ran one rather than falling back to cublasSgemm (0: cublasSgemm).
static bool LtRan[4] = {true, false, false, false};

/// Runs one problem both ways; \p Algo is the problem's LibraryAlgo,
/// \p FlipLayout plants a bug in the library call. Returns whether the
/// library result passes the rule.
static bool check(int M, int N, int K, bool BRow, int Pad, int Batch,
                  float Alpha, float Beta, int Algo, bool FlipLayout) {
  const long long Lda = K + Pad, Ldb = (BRow ? N : K) + Pad, Ldc = N + Pad;
  const long long SA = M * Lda, SB = (BRow ? K : N) * Ldb, SC = M * Ldc;
  std::vector<float> HA(Batch * SA), HB(Batch * SB), HC(Batch * SC);
  for (float &V : HA)
    V = frand();
  for (float &V : HB)
    V = frand();
  for (float &V : HC)
    V = frand();
  float *A, *B, *C1, *C2;
  cudaMalloc(&A, HA.size() * 4);
  cudaMalloc(&B, HB.size() * 4);
  cudaMalloc(&C1, HC.size() * 4);
  cudaMalloc(&C2, HC.size() * 4);
  cudaMemcpy(A, HA.data(), HA.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(B, HB.data(), HB.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(C1, HC.data(), HC.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(C2, HC.data(), HC.size() * 4, cudaMemcpyHostToDevice);
  dim3 Block(16, 16), Grid((N + 15) / 16, (M + 15) / 16, Batch);
  naive<<<Grid, Block>>>(A, Lda, B, Ldb, BRow, C1, Ldc, M, N, K, Alpha, Beta,
                         SA, SB, SC);
  bool LibRow = FlipLayout ? !BRow : BRow;
  cudaoptGemmProblem P{M, N, K, CUDAOPT_GEMM_F32,
                       LibRow ? CUDAOPT_GEMM_B_ROW : CUDAOPT_GEMM_B_COL,
                       A, Lda, B, Ldb, C2, Ldc, Alpha, Beta, Batch, SA, SB,
                       SC, /*Reassociate=*/1, /*LibraryAlgo=*/Algo};
  const int Candidates = cudaopt::gemm::cublasLtCandidateCount(P);
  if (Algo >= 1 && Algo <= Candidates)
    LtRan[Algo] = true;
  cudaError_t E = cudaopt::gemm::launchFallback(P, 0);
  cudaError_t S = cudaDeviceSynchronize();
  std::vector<float> H1(HC.size()), H2(HC.size());
  cudaMemcpy(H1.data(), C1, H1.size() * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(H2.data(), C2, H2.size() * 4, cudaMemcpyDeviceToHost);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C1);
  cudaFree(C2);
  double ErrNaive = 0, ErrLib = 0, MaxRef = 0;
  for (int b = 0; b < Batch; ++b)
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        double Acc = 0;
        for (int k = 0; k < K; ++k)
          Acc += (double)HA[b * SA + m * Lda + k] *
                 (BRow ? HB[b * SB + k * Ldb + n] : HB[b * SB + n * Ldb + k]);
        size_t I = b * SC + m * Ldc + n;
        double Ref = Alpha * Acc + Beta * (double)HC[I];
        MaxRef = std::fmax(MaxRef, std::fabs(Ref));
        ErrNaive = std::fmax(ErrNaive, std::fabs(H1[I] - Ref));
        ErrLib = std::fmax(ErrLib, std::fabs(H2[I] - Ref));
      }
  double Ulp = std::ldexp(1.0, std::ilogb(MaxRef) - 23);
  bool Pass = E == cudaSuccess && S == cudaSuccess &&
              ErrLib <= 2 * ErrNaive + 2 * Ulp;
  std::printf("%dx%dx%d x%d B %s pad %d alpha %g beta %g algo %d (%d "
              "cuBLASLt candidates)%s: naive err %.3g, library err %.3g: %s\n",
              M, N, K, Batch, BRow ? "row" : "col", Pad, Alpha, Beta, Algo,
              Candidates, FlipLayout ? " (planted: layout flipped)" : "",
              ErrNaive, ErrLib, Pass ? "within the rule" : "OUTSIDE the rule");
  return Pass;
}

int main() {
  bool Ok = true;
  for (int Algo = 0; Algo <= 3; ++Algo)
    for (bool BRow : {true, false}) {
      Ok &= check(257, 129, 300, BRow, 0, 1, 1.0f, 0.0f, Algo, false);
      Ok &= check(64, 1000, 33, BRow, 3, 1, 0.5f, 0.25f, Algo, false);
      Ok &= check(100, 70, 50, BRow, 1, 3, 1.0f, 0.0f, Algo, false);
      Ok &= check(4096, 8, 64, BRow, 0, 1, 1.0f, 1.0f, Algo, false);
    }
  for (int Algo = 1; Algo <= 3; ++Algo) {
    std::printf("algo %d: cuBLASLt %s\n", Algo,
                LtRan[Algo] ? "ran" : "NEVER ran (always cublasSgemm)");
    Ok &= LtRan[Algo];
  }
  // The planted bug must be caught (square, so the flipped call is legal).
  bool Caught = !check(96, 96, 96, true, 0, 1, 1.0f, 0.0f, 0, true) &&
                !check(96, 96, 96, true, 0, 1, 1.0f, 0.0f, 1, true);
  std::printf("planted bug %s\n", Caught ? "caught" : "NOT caught");
  if (Ok && Caught)
    std::printf("sgemm cublas: all passed\n");
  return Ok && Caught ? 0 : 1;
}
