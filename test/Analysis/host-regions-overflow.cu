// A time loop whose trip count does not fit in 64 bits (INT64_MIN to
// INT64_MAX): the count is unknown; computing it was a signed overflow
// (docs/fuzzing.md, findings). A bound past int64 (__int128) likewise.
// RUN: cuda-opt --list-regions %s | FileCheck %s
// RUN: cuda-opt --list-regions --json %s | FileCheck %s --check-prefix=JSON
#include <cuda_runtime.h>

__global__ void step(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] += 1.0f;
}

// CHECK-LABEL: region in forever at
// CHECK-SAME: 1 launch, in the loop at {{.*}}host-regions-overflow.cu:[[@LINE+3]]:3{{$}}
// JSON-NOT: "trips"
void forever(float *a, int n) {
  for (long long t = -9223372036854775807LL - 1; t < 9223372036854775807LL; ++t)
    step<<<(n + 255) / 256, 256>>>(a, n);
}

// CHECK-LABEL: region in wide at
// CHECK-SAME: 1 launch, in the loop at {{.*}}host-regions-overflow.cu:[[@LINE+2]]:3{{$}}
void wide(float *a, int n) {
  for (__int128 t = 0; t < (__int128(1) << 100); ++t)
    step<<<(n + 255) / 256, 256>>>(a, n);
}
