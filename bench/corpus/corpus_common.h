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
