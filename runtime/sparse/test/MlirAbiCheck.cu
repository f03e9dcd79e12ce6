//===- MlirAbiCheck.cu - GPU check of the MLIR ABI's host functions -------===//
//
// tls-mlir-abi-check: calls the host functions that `cuda-opt
// --lower-sparse-matmul` emits calls to (TlsMlirAbi.cu, TlsMlirAbi.h) the
// way the lowered module does: memref descriptors of host arrays and X^T
// (N x K, here with a padded row stride), and compares the returned Y^T
// (N x M) with a double-precision CPU reference. Covers
//   - cuda_opt_tls_spmm[_bf16]: a weight encoded beforehand (the compile-time
//     constants), reused from its cache with new activations and another N;
//   - cuda_opt_tls_spmm_dense_weight[_bf16]: a dense weight encoded at its
//     first use, again from the cache, through a transposed (strided) view,
//     after cuda_opt_tls_forget_weight and a change, and a changed weight
//     without forget, which must stop the program (in a child process);
//   - cuda_opt_tls_spmm_csr_weight[_bf16]: CSR arrays;
//   - four threads calling with one weight at once.
// Prints one line per call and PASS, or what failed.
//
//===----------------------------------------------------------------------===//

#include "TlsFormat.h"
#include "TlsMlirAbi.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace cudaopt::sparse;

namespace {

template <typename T> MemRef<T, 1> view(std::vector<T> &V) {
  return {V.data(), V.data(), 0, {int64_t(V.size())}, {1}};
}

uint16_t toBits(float F, bool BF16) {
  return BF16 ? __bfloat16_as_ushort(__float2bfloat16_rn(F))
              : __half_as_ushort(__float2half_rn(F));
}
float fromBits(uint16_t H, bool BF16) {
  return BF16 ? __bfloat162float(__ushort_as_bfloat16(H))
              : __half2float(__ushort_as_half(H));
}

std::atomic<int> Failures{0};

/// A Rows x Cols weight at about 50 % sparsity.
std::vector<uint16_t> randomWeight(int M, int K, bool BF16, uint64_t Seed) {
  std::mt19937_64 Rng(Seed);
  std::normal_distribution<float> Normal(0.f, 1.f);
  std::uniform_real_distribution<float> P(0.f, 1.f);
  std::vector<uint16_t> Dense(size_t(M) * K);
  for (auto &V : Dense)
    V = P(Rng) < 0.5 ? 0 : toBits(Normal(Rng), BF16);
  return Dense;
}

using Entry =
    std::function<void(MemRef<uint16_t, 2> *Result, MemRef<uint16_t, 2> *Xt)>;

/// Calls \p Call with random X^T (N x K, padded rows) and checks Y^T against
/// Dense (row-major M x K) * X.
void runCall(const char *What, const Entry &Call,
             const std::vector<uint16_t> &Dense, int M, int K, int N, bool BF16,
             uint64_t Seed) {
  const int Pitch = K + 8;
  std::mt19937_64 Rng(Seed);
  std::uniform_real_distribution<float> U(-1.f, 1.f);
  std::vector<uint16_t> Xt(size_t(N) * Pitch + 1, 0xFFFF); // NaN padding
  for (int Nn = 0; Nn < N; ++Nn)
    for (int Kk = 0; Kk < K; ++Kk)
      Xt[size_t(Nn) * Pitch + Kk] = toBits(U(Rng), BF16);
  MemRef<uint16_t, 2> XtRef{Xt.data(), Xt.data(), 0, {N, K}, {Pitch, 1}};
  MemRef<uint16_t, 2> Result{};
  Call(&Result, &XtRef);
  if (Result.Sizes[0] != N || Result.Sizes[1] != M || Result.Strides[0] != M ||
      Result.Strides[1] != 1) {
    std::printf("FAIL: %s N=%d: result descriptor %lld x %lld, strides %lld, "
                "%lld\n",
                What, N, (long long)Result.Sizes[0], (long long)Result.Sizes[1],
                (long long)Result.Strides[0], (long long)Result.Strides[1]);
    ++Failures;
    return;
  }
  double Num = 0, Den = 0;
  bool Bad = false;
  for (int Nn = 0; Nn < N; ++Nn)
    for (int R = 0; R < M; ++R) {
      double S = 0;
      for (int Kk = 0; Kk < K; ++Kk)
        if (Dense[size_t(R) * K + Kk])
          S += double(fromBits(Dense[size_t(R) * K + Kk], BF16)) *
               fromBits(Xt[size_t(Nn) * Pitch + Kk], BF16);
      float Y =
          fromBits(Result.Aligned[Result.Offset + size_t(Nn) * M + R], BF16);
      Bad |= !std::isfinite(Y);
      Num += (Y - S) * (Y - S);
      Den += S * S;
    }
  double Err = Den > 0 ? std::sqrt(Num / Den) : std::sqrt(Num);
  const double Tol = BF16 ? 2e-2 : 1e-2;
  bool Fail = Bad || Err > Tol;
  std::printf("%s %s M=%d K=%d N=%d: rel err %.2e%s\n", Fail ? "FAIL" : "ok",
              What, M, K, N, Err, Bad ? " (non-finite output)" : "");
  Failures += Fail;
  std::free(Result.Allocated);
}

/// A weight encoded beforehand, as the pass does at compile time.
void checkEncoded(bool BF16) {
  const int M = 200, K = 1032; // K % 8 == 0, not a multiple of 256
  std::vector<uint16_t> Dense = randomWeight(M, K, BF16, 7);
  TlsMatrix W =
      encode(Dense.data(), M, K, BF16 ? ElemType::BF16 : ElemType::F16);
  auto Values = view(W.Values);
  auto Bitmap = view(W.Bitmap);
  auto Offsets = view(W.ResidualOffsets);
  auto Residual = view(W.Residual);
  const int32_t MaxRes = int32_t(computeStats(W).MaxBlockResidual);
  Entry Call = [&](MemRef<uint16_t, 2> *Result, MemRef<uint16_t, 2> *Xt) {
    (BF16 ? _mlir_ciface_cuda_opt_tls_spmm_bf16
          : _mlir_ciface_cuda_opt_tls_spmm)(Result, &Values, &Bitmap, &Offsets,
                                            &Residual, M, K, MaxRes, Xt);
  };
  const char *What = BF16 ? "encoded bf16" : "encoded f16";
  runCall(What, Call, Dense, M, K, 8, BF16, 1);
  runCall(What, Call, Dense, M, K, 8, BF16, 2);  // the cached upload
  runCall(What, Call, Dense, M, K, 37, BF16, 3); // another N
}

/// A dense weight encoded at its first use.
void checkDense(bool BF16) {
  const int M = 136, K = 520;
  std::vector<uint16_t> Dense = randomWeight(M, K, BF16, 11);
  auto Fn = BF16 ? _mlir_ciface_cuda_opt_tls_spmm_dense_weight_bf16
                 : _mlir_ciface_cuda_opt_tls_spmm_dense_weight;
  MemRef<uint16_t, 2> WRef{Dense.data(), Dense.data(), 0, {M, K}, {K, 1}};
  Entry Call = [&](MemRef<uint16_t, 2> *Result, MemRef<uint16_t, 2> *Xt) {
    Fn(Result, &WRef, Xt);
  };
  const char *What = BF16 ? "dense-weight bf16" : "dense-weight f16";
  runCall(What, Call, Dense, M, K, 8, BF16, 4);
  runCall(What, Call, Dense, M, K, 16, BF16, 5); // from the cache
  runCall(What, Call, Dense, M, K, 1, BF16, 6);

  // The same matrix stored column-major: a strided view, another key.
  std::vector<uint16_t> ColMajor(size_t(M) * K);
  for (int R = 0; R < M; ++R)
    for (int C = 0; C < K; ++C)
      ColMajor[size_t(C) * M + R] = Dense[size_t(R) * K + C];
  MemRef<uint16_t, 2> TRef{ColMajor.data(), ColMajor.data(), 0, {M, K}, {1, M}};
  Entry CallT = [&](MemRef<uint16_t, 2> *Result, MemRef<uint16_t, 2> *Xt) {
    Fn(Result, &TRef, Xt);
  };
  runCall(BF16 ? "dense-weight bf16, strided view"
               : "dense-weight f16, strided view",
          CallT, Dense, M, K, 8, BF16, 7);

  // Forget, change, use again: the new weight is encoded.
  int Dropped = cuda_opt_tls_forget_weight(Dense.data());
  if (Dropped != 1) {
    std::printf("FAIL: forget dropped %d entries, not 1\n", Dropped);
    ++Failures;
  }
  for (size_t I = 0; I < Dense.size(); I += 3)
    Dense[I] = Dense[I] ? 0 : toBits(0.5f, BF16);
  runCall(BF16 ? "dense-weight bf16, changed after forget"
               : "dense-weight f16, changed after forget",
          Call, Dense, M, K, 8, BF16, 8);

  // The lifetime rule holds for the test too: a weight is forgotten before
  // its buffer is freed, or a later test's weight allocated at the same
  // address meets the stale entry (forget would then drop two).
  auto ForgetBuffers = [&] {
    cuda_opt_tls_forget_weight(Dense.data());
    cuda_opt_tls_forget_weight(ColMajor.data());
  };
  // A change without forget stops the program (checked in a child: the
  // check runs before any CUDA call).
  if (BF16) {
    ForgetBuffers();
    return;
  }
  std::fflush(stdout);
  pid_t Child = fork();
  if (Child == 0) {
    Dense[0] ^= 0x0101; // element 0 is always fingerprinted
    MemRef<uint16_t, 2> Result{};
    std::vector<uint16_t> Xt(size_t(8) * K, 0);
    MemRef<uint16_t, 2> XtRef{Xt.data(), Xt.data(), 0, {8, K}, {K, 1}};
    Fn(&Result, &WRef, &XtRef);
    _exit(0); // not stopped: a failure
  }
  int Status = 0;
  waitpid(Child, &Status, 0);
  bool Aborted = WIFSIGNALED(Status) && WTERMSIG(Status) == SIGABRT;
  std::printf("%s dense-weight f16: a weight changed without forget stops "
              "the program\n",
              Aborted ? "ok" : "FAIL");
  Failures += !Aborted;
  ForgetBuffers();
}

/// A CSR weight encoded at its first use.
void checkCsr(bool BF16) {
  const int M = 72, K = 264;
  std::vector<uint16_t> Dense = randomWeight(M, K, BF16, 13);
  std::vector<int64_t> Pos(M + 1, 0), Crd;
  std::vector<uint16_t> Vals;
  for (int R = 0; R < M; ++R) {
    for (int C = 0; C < K; ++C)
      if (Dense[size_t(R) * K + C]) {
        Crd.push_back(C);
        Vals.push_back(Dense[size_t(R) * K + C]);
      }
    Pos[R + 1] = int64_t(Crd.size());
  }
  auto PosRef = view(Pos), CrdRef = view(Crd);
  auto ValRef = view(Vals);
  Entry Call = [&](MemRef<uint16_t, 2> *Result, MemRef<uint16_t, 2> *Xt) {
    (BF16 ? _mlir_ciface_cuda_opt_tls_spmm_csr_weight_bf16
          : _mlir_ciface_cuda_opt_tls_spmm_csr_weight)(Result, &PosRef, &CrdRef,
                                                       &ValRef, M, K, Xt);
  };
  const char *What = BF16 ? "csr-weight bf16" : "csr-weight f16";
  runCall(What, Call, Dense, M, K, 8, BF16, 9);
  runCall(What, Call, Dense, M, K, 24, BF16, 10); // from the cache
}

/// Four threads call the dense-weight entry point with one weight at once
/// (the entry points serialise on one mutex; the first call encodes).
void checkThreads() {
  const int M = 64, K = 256;
  std::vector<uint16_t> Dense = randomWeight(M, K, false, 17);
  MemRef<uint16_t, 2> WRef{Dense.data(), Dense.data(), 0, {M, K}, {K, 1}};
  Entry Call = [&](MemRef<uint16_t, 2> *Result, MemRef<uint16_t, 2> *Xt) {
    _mlir_ciface_cuda_opt_tls_spmm_dense_weight(Result, &WRef, Xt);
  };
  std::fflush(stdout);
  std::vector<std::thread> Threads;
  for (int T = 0; T < 4; ++T)
    Threads.emplace_back([&, T] {
      for (int I = 0; I < 2; ++I)
        runCall("dense-weight f16, 4 threads", Call, Dense, M, K, 8 + T, false,
                uint64_t(100 + 10 * T + I));
    });
  for (std::thread &T : Threads)
    T.join();
}

} // namespace

int main() {
  checkEncoded(false);
  checkEncoded(true);
  checkDense(false);
  checkDense(true);
  checkCsr(false);
  checkCsr(true);
  checkThreads();
  if (Failures) {
    std::printf("%d FAILED\n", Failures.load());
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
