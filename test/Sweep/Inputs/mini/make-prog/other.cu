#include "defs.h"
__global__ void other(float *x) { x[threadIdx.x] = SCALE; }

// A function-scope __shared__ object with a non-empty constructor: nvcc
// warns (#20054-D); cuda-opt accepts clang's error with a warning.
struct Slot {
  float v;
  __device__ Slot() : v(1.0f) {}
};
__global__ void slotted(float *x) {
  __shared__ Slot slot;
  x[threadIdx.x] = slot.v;
}
