//===- gpu_check.h - Helpers for GPU equivalence test programs --*- CUDA -*-===//
//
// Part of cuda-opt's test suite. A GPU equivalence test is a complete program
// that fills its inputs from a seed, runs its kernels, and dumps every output
// with gpu_check::dump. utils/gpu_equivalence.py builds and runs the original
// and the rewritten program on several seeds and compares the dumps.
//
//   prog OUT_FILE SEED
//
// Dump file format (little endian): per record, u32 name length, name bytes,
// u32 dtype (0 f32, 1 f64, 2 f16, 3 i32), u64 count, count elements.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TEST_GPU_CHECK_H
#define CUDA_OPT_TEST_GPU_CHECK_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace gpu_check {

#define GPU_CHECK(call)                                                        \
  do {                                                                         \
    cudaError_t Err_ = (call);                                                 \
    if (Err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d: CUDA error: %s\n", __FILE__, __LINE__,      \
                   cudaGetErrorString(Err_));                                  \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

/// Launch-error and completion check to call after each kernel launch.
inline void check_launch(const char *What) {
  cudaError_t E = cudaGetLastError();
  if (E == cudaSuccess)
    E = cudaDeviceSynchronize();
  if (E != cudaSuccess) {
    std::fprintf(stderr, "kernel %s failed: %s\n", What, cudaGetErrorString(E));
    std::exit(3);
  }
}

inline unsigned seed(int argc, char **argv) {
  return argc > 2 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10))
                  : 1u;
}

/// xorshift32: the same sequence on every platform.
inline uint32_t next(uint32_t &S) {
  S ^= S << 13;
  S ^= S >> 17;
  S ^= S << 5;
  return S;
}

inline void fill_uniform(float *Host, size_t N, unsigned Seed, float Lo,
                         float Hi) {
  uint32_t S = Seed * 2654435761u + 12345u;
  if (S == 0)
    S = 1;
  for (size_t I = 0; I < N; ++I)
    Host[I] = Lo + (Hi - Lo) * (next(S) >> 8) * (1.0f / 16777216.0f);
}

inline void fill_uniform(double *Host, size_t N, unsigned Seed, double Lo,
                         double Hi) {
  uint32_t S = Seed * 2654435761u + 777u;
  if (S == 0)
    S = 1;
  for (size_t I = 0; I < N; ++I)
    Host[I] = Lo + (Hi - Lo) * (next(S) >> 8) * (1.0 / 16777216.0);
}

inline void fill_uniform(int *Host, size_t N, unsigned Seed, int Lo, int Hi) {
  uint32_t S = Seed * 2654435761u + 99u;
  if (S == 0)
    S = 1;
  for (size_t I = 0; I < N; ++I)
    Host[I] = Lo + static_cast<int>(next(S) % static_cast<uint32_t>(Hi - Lo + 1));
}

inline void fill_uniform(__half *Host, size_t N, unsigned Seed, float Lo,
                         float Hi) {
  uint32_t S = Seed * 2654435761u + 4242u;
  if (S == 0)
    S = 1;
  for (size_t I = 0; I < N; ++I)
    Host[I] = __float2half(Lo + (Hi - Lo) * (next(S) >> 8) * (1.0f / 16777216.0f));
}

inline void write_record(int argc, char **argv, const char *Name,
                         uint32_t DType, const void *Data, uint64_t Count,
                         size_t ElemSize) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT_FILE [SEED]\n", argv[0]);
    std::exit(64);
  }
  // The first dump of a run truncates the file; later ones append.
  static bool First = true;
  FILE *F = std::fopen(argv[1], First ? "wb" : "ab");
  First = false;
  if (!F) {
    std::perror(argv[1]);
    std::exit(65);
  }
  uint32_t Len = static_cast<uint32_t>(std::strlen(Name));
  std::fwrite(&Len, 4, 1, F);
  std::fwrite(Name, 1, Len, F);
  std::fwrite(&DType, 4, 1, F);
  std::fwrite(&Count, 8, 1, F);
  std::fwrite(Data, ElemSize, Count, F);
  std::fclose(F);
}

inline void dump(int argc, char **argv, const char *Name, const float *H,
                 size_t N) {
  write_record(argc, argv, Name, 0, H, N, sizeof(float));
}
inline void dump(int argc, char **argv, const char *Name, const double *H,
                 size_t N) {
  write_record(argc, argv, Name, 1, H, N, sizeof(double));
}
inline void dump(int argc, char **argv, const char *Name, const __half *H,
                 size_t N) {
  write_record(argc, argv, Name, 2, H, N, sizeof(__half));
}
inline void dump(int argc, char **argv, const char *Name, const int *H,
                 size_t N) {
  write_record(argc, argv, Name, 3, H, N, sizeof(int));
}

} // namespace gpu_check

#endif // CUDA_OPT_TEST_GPU_CHECK_H
