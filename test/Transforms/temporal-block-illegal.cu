// RUN: not cuda-opt --passes='temporal-block' --kernel=unguarded %s 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not cuda-opt --passes='temporal-block' --kernel=interior_only %s 2>&1 | FileCheck %s --check-prefix=ONCE
// RUN: not cuda-opt --passes='temporal-block' --kernel=live_next %s 2>&1 | FileCheck %s --check-prefix=LIVE
// RUN: not cuda-opt --passes='temporal-block' --kernel=uses_step %s 2>&1 | FileCheck %s --check-prefix=STEP
// RUN: not cuda-opt --passes='temporal-block' --kernel=line1d %s 2>&1 | FileCheck %s --check-prefix=RANK
// RUN: not cuda-opt --passes='temporal-block' --kernel=two_launch %s 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not cuda-opt --passes='temporal-block' --kernel=passed_in %s 2>&1 | FileCheck %s --check-prefix=PARAM
// RUN: not cuda-opt --passes='temporal-block{sweeps=16,tile=256,rows=64}' --kernel=ok5 %s 2>&1 | FileCheck %s --check-prefix=SHMEM
// RUN: not cuda-opt --passes='temporal-block' --kernel=reads_next %s 2>&1 | FileCheck %s --check-prefix=READOUT
// RUN: not cuda-opt --passes='temporal-block' --kernel=no_loop %s 2>&1 | FileCheck %s --check-prefix=NOLOOP

// temporal-block refusals: each names the rule that failed.

#include <cuda_runtime.h>
#include <utility>

// The read x - 1 is not proven inside the grid: x == 0 is not excluded.
__global__ void unguarded(float *next, const float *cur, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) {
    int i = y * nx + x;
    if (y == 0 || x == nx - 1 || y == ny - 1)
      next[i] = cur[i];
    else
      next[i] = 0.25f * (cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx]);
  }
}
// GUARD: the read 'cur[i - 1]' at {{.*}} (offset -1, 0) is not guarded to stay inside the grid

// Border cells are never stored: they would keep the value of two sweeps
// before, which a tile does not have.
__global__ void interior_only(float *next, const float *cur, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) {
    int i = y * nx + x;
    if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1)
      next[i] = 0.25f * (cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx]);
  }
}
// ONCE: write 'next' a different number of times; temporal-block needs every cell stored exactly once on every path

__global__ void live_next(float *next, const float *cur, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) {
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
      next[i] = cur[i];
    else
      next[i] = 0.25f * (cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx]);
  }
}
__global__ void uses_step(float *next, const float *cur, int nx, int ny, float k) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) {
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
      next[i] = k * cur[i];
    else
      next[i] = 0.25f * (cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx]);
  }
}
__global__ void two_launch(float *next, const float *cur, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) {
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
      next[i] = cur[i];
    else
      next[i] = 0.25f * (cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx]);
  }
}
__global__ void passed_in(float *next, const float *cur, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) {
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
      next[i] = cur[i];
    else
      next[i] = 0.25f * (cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx]);
  }
}
__global__ void ok5(float *next, const float *cur, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) {
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
      next[i] = cur[i];
    else
      next[i] = 0.25f * (cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx]);
  }
}
__global__ void no_loop(float *next, const float *cur, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) {
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
      next[i] = cur[i];
    else
      next[i] = 0.25f * (cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx]);
  }
}
// LIVE: 'next' is used after the time loop at {{.*}}; with several sweeps per launch it would hold an older sweep than now
// STEP: the body of the time loop at {{.*}} uses 't'; temporal-block launches several sweeps at once
// TWO: the time loop at {{.*}} has 2 launches and 1 swaps
// PARAM: 'next' is a parameter of the launching function
// SHMEM: two 288 x 96 tiles of 4-byte cells take 221184 bytes of shared memory, more than 49152; lower sweeps, tile or rows
// NOLOOP: kernel 'no_loop' is not launched as the body of a counted host loop

__global__ void line1d(float *next, const float *cur, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    next[i] = i == 0 || i == n - 1 ? cur[i] : 0.5f * (cur[i - 1] + cur[i + 1]);
}
// RANK: kernel 'line1d' maps threads in 1-D; temporal-block needs one thread per cell of a 2-D grid

// The sweep reads the grid it writes.
__global__ void reads_next(float *next, const float *cur, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) {
    int i = y * nx + x;
    next[i] = 0.5f * (next[i] + cur[i]);
  }
}
// READOUT: uses 'next' other than as one plain store 'out[index] = value;'

void run(int nx, int ny, float *host) {
  dim3 block(32, 8), grid((nx + 31) / 32, (ny + 7) / 8);
  float *cur, *next;
  cudaMalloc(&cur, sizeof(float) * nx * ny);
  cudaMalloc(&next, sizeof(float) * nx * ny);
  for (int t = 0; t < 8; ++t) {
    unguarded<<<grid, block>>>(next, cur, nx, ny);
    std::swap(cur, next);
  }
  for (int t = 0; t < 8; ++t) {
    interior_only<<<grid, block>>>(next, cur, nx, ny);
    std::swap(cur, next);
  }
  for (int t = 0; t < 8; ++t) {
    reads_next<<<grid, block>>>(next, cur, nx, ny);
    std::swap(cur, next);
  }
  for (int t = 0; t < 8; ++t) {
    line1d<<<(nx + 255) / 256, 256>>>(next, cur, nx);
    std::swap(cur, next);
  }
  for (int t = 0; t < 8; ++t) {
    ok5<<<grid, block>>>(next, cur, nx, ny);
    std::swap(cur, next);
  }
  no_loop<<<grid, block>>>(next, cur, nx, ny);
  for (int t = 0; t < 8; ++t) {
    two_launch<<<grid, block>>>(next, cur, nx, ny);
    two_launch<<<grid, block>>>(cur, next, nx, ny);
    std::swap(cur, next);
  }
  for (int t = 0; t < 8; ++t) {
    live_next<<<grid, block>>>(next, cur, nx, ny);
    std::swap(cur, next);
  }
  cudaMemcpy(host, next, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(cur);
  cudaFree(next);
}

void steps(int nx, int ny) {
  dim3 block(32, 8), grid((nx + 31) / 32, (ny + 7) / 8);
  float *cur, *next;
  cudaMalloc(&cur, sizeof(float) * nx * ny);
  cudaMalloc(&next, sizeof(float) * nx * ny);
  for (int t = 0; t < 8; ++t) {
    uses_step<<<grid, block>>>(next, cur, nx, ny, 0.5f * t);
    std::swap(cur, next);
  }
  cudaFree(cur);
  cudaFree(next);
}

void given(float *cur, float *next, int nx, int ny) {
  dim3 block(32, 8), grid((nx + 31) / 32, (ny + 7) / 8);
  for (int t = 0; t < 8; ++t) {
    passed_in<<<grid, block>>>(next, cur, nx, ny);
    std::swap(cur, next);
  }
}
