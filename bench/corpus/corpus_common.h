// corpus_common.h - host-side helpers shared by the benchmark corpus programs
// (bench/corpus/*.cu). Kernels and launches stay in the programs themselves.
//
// Before including this header, a program defines
//   CORPUS_NAME  its name as a string literal, used in "NAME: FAILED (...)"
//   CORPUS_SEED  the seed of its xorshift32 generator (a uint32_t literal)
// The generator is per program (one translation unit each), so every program
// keeps its own input sequence.
#ifndef CORPUS_COMMON_H
#define CORPUS_COMMON_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cuda_fp16.h>
#include <vector>

#ifndef CORPUS_NAME
#error "define CORPUS_NAME before including corpus_common.h"
#endif
#ifndef CORPUS_SEED
#error "define CORPUS_SEED before including corpus_common.h"
#endif

// Checks a CUDA runtime call; on failure prints "NAME: FAILED (call: error)"
// and returns 1 from the enclosing function (main).
#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("%s: FAILED (%s: %s)\n", CORPUS_NAME, #call,                 \
                  cudaGetErrorString(e_));                                     \
      return 1;                                                                \
    }                                                                          \
  } while (0)

// Deterministic xorshift32 generator.
static uint32_t rng = CORPUS_SEED;

static uint32_t urand() {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

// Uniform float in [lo, hi), one generator step.
static float frand(float lo, float hi) {
  return lo + (hi - lo) * (float)(urand() * (1.0 / 4294967296.0));
}

// Checks 8192 outputs of a row-major fp32 GEMM C[M x N] = A[M x K] *
// B[K x N] (the first and last corners, then random cells) against a double
// dot product: an output is wrong when it is more than 1e-4 of the sum of
// the terms' magnitudes (plus 1e-6) away. Returns how many are wrong;
// *first gets the first wrong one's error.
static int check_gemm_samples(const std::vector<float> &A,
                              const std::vector<float> &B,
                              const std::vector<float> &C, int M, int N,
                              int K, double *first) {
  int bad = 0;
  for (int s = 0; s < 8192; ++s) {
    int r = s == 0 ? 0 : s == 1 ? M - 1 : (int)(frand(0, 1) * M) % M;
    int c = s == 0 ? 0 : s == 1 ? N - 1 : (int)(frand(0, 1) * N) % N;
    double ref = 0, mag = 0;
    for (int k = 0; k < K; ++k) {
      double p = (double)A[(size_t)r * K + k] * B[(size_t)k * N + c];
      ref += p;
      mag += std::fabs(p);
    }
    double err = std::fabs(C[(size_t)r * N + c] - ref);
    if (err > 1e-4 * mag + 1e-6) {
      if (!bad)
        *first = err;
      ++bad;
    }
  }
  return bad;
}

// Fill every element, in order, with frand(lo, hi) (one step per element).
static void fill_uniform(std::vector<float> &v, float lo, float hi) {
  for (float &x : v)
    x = frand(lo, hi);
}

// Same, rounded to __half.
static void fill_uniform(std::vector<__half> &v, float lo, float hi) {
  for (__half &x : v)
    x = __float2half(frand(lo, hi));
}

// Fill every element, in order, with an int in [lo, hi]:
// (int)(urand() % (hi - lo + 1)) + lo (one step per element).
static void fill_int(std::vector<int> &v, int lo, int hi) {
  for (int &x : v)
    x = (int)(urand() % (uint32_t)(hi - lo + 1)) + lo;
}

#endif // CORPUS_COMMON_H
