#include "helper.h"
#if !HELPER || APP_DEF != 3 || defined(CXX_ONLY)
#error "flags from CMakeLists.txt"
#endif
__device__ int depth;
__global__ void child(int *p) { p[threadIdx.x] = depth; }
__global__ void parent(int *p) { child<<<1, 32>>>(p); }  // needs -rdc=true
int main() {
  int *d;
  cudaMalloc(&d, 32 * sizeof(int));
  parent<<<1, 1>>>(d);
  return 0;
}
