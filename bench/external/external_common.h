// external_common.h - the host-side helpers every bench/external program
// shares (this suite's own code, not upstream's): a checked CUDA call for
// main(), stand-ins for helper_cuda.h's checks, a deterministic generator
// and a failure report. Each program defines EXT_NAME and EXT_SEED and
// includes <cstdio>, <cstdint> and <cstdlib> before this header.
#ifndef CUDA_OPT_BENCH_EXTERNAL_COMMON_H
#define CUDA_OPT_BENCH_EXTERNAL_COMMON_H

// Checks a CUDA runtime call in main(); prints "NAME: FAILED (...)" and
// returns 1.
#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("%s: FAILED (%s: %s)\n", EXT_NAME, #call,                    \
                  cudaGetErrorString(e_));                                     \
      return 1;                                                                \
    }                                                                          \
  } while (0)

// Stand-ins for the helper_cuda.h checks the upstream host wrappers call.
[[maybe_unused]] static void ext_check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::printf("%s: FAILED (%s: %s)\n", EXT_NAME, what, cudaGetErrorString(e));
    std::exit(1);
  }
}
#define checkCudaErrors(call) ext_check((call), #call)
#define getLastCudaError(msg) ext_check(cudaGetLastError(), msg)

// Deterministic xorshift32 generator (as bench/corpus/corpus_common.h).
static uint32_t ext_rng = EXT_SEED;
[[maybe_unused]] static uint32_t urand() {
  ext_rng ^= ext_rng << 13;
  ext_rng ^= ext_rng >> 17;
  ext_rng ^= ext_rng << 5;
  return ext_rng;
}
// Uniform float in [lo, hi).
[[maybe_unused]] static float frand(float lo, float hi) {
  return lo + (hi - lo) * (float)(urand() * (1.0 / 4294967296.0));
}
[[maybe_unused]] static int fail(const char *what, long long i, double got, double want) {
  std::printf("%s: FAILED (%s at %lld: got %.9g, want %.9g)\n", EXT_NAME, what,
              i, got, want);
  return 1;
}

#endif // CUDA_OPT_BENCH_EXTERNAL_COMMON_H
