// RUN: cuda-opt --passes='temporal-block' --kernel=jacobi %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --fp-model=strict --passes='temporal-block{sweeps=2,tile=32,rows=16,threads=128}' --kernel=star9 %s | FileCheck %s --check-prefix=STAR
// RUN: cuda-opt --passes='temporal-block{sweeps=5}' --kernel=jacobi %s | FileCheck %s --check-prefix=EVEN
// RUN: not cuda-opt --passes='temporal-block{sweeps=10}' --kernel=jacobi %s 2>&1 | FileCheck %s --check-prefix=PARITY
// RUN: cuda-opt --passes='temporal-block{sweeps=3,tile=0}' --kernel=jacobi %s | FileCheck %s --check-prefix=AUTO
// RUN: cuda-opt --passes='temporal-block{walk=0}' --kernel=jacobi %s -o %t0.cu
// RUN: FileCheck %s --check-prefix=CELLS < %t0.cu
// RUN: %cuda_compile %t0.cu

// temporal-block: a host time loop launching one stencil sweep per
// iteration into ping-pong buffers becomes a loop launching a kernel that
// advances several sweeps per launch through shared-memory tiles. 'jacobi'
// runs 10 sweeps, so 4 per launch runs two launches and the last 2 sweeps
// with the original (an even number of 4-sweep launches keeps the result in
// the buffer that holds it now);
// 'star9' is a radius-2 stencil guarded by ranges, swapped by three
// assignments, with a trip count known only at run time.

#include <cuda_runtime.h>
#include <utility>

__global__ void jacobi(float *next, const float *cur, int nx, int ny) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny) {
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
      next[i] = cur[i];
    else
      next[i] = 0.5f * cur[i] +
                0.125f * (cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx]);
  }
}

__global__ void star9(double *out, const double *in, int w, int h) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < w && row < h) {
    int c = row * w + col;
    if (col >= 2 && col < w - 2 && row >= 2 && row < h - 2)
      out[c] = 0.6 * in[c] + 0.075 * (in[c - 1] + in[c + 1] + in[c - w] +
                                      in[c + w]) +
               0.025 * (in[c - 2] + in[c + 2] + in[c - 2 * w] + in[c + 2 * w]);
    else
      out[c] = in[c];
  }
}

void heat(int nx, int ny) {
  float *cur, *next;
  cudaMalloc(&cur, sizeof(float) * nx * ny);
  cudaMalloc(&next, sizeof(float) * nx * ny);
  dim3 block(32, 8);
  dim3 grid((nx + 31) / 32, (ny + 7) / 8);
  for (int t = 0; t < 10; ++t) {
    jacobi<<<grid, block>>>(next, cur, nx, ny);
    cudaGetLastError();
    std::swap(cur, next);
  }
  cudaDeviceSynchronize();
  cudaFree(cur);
  cudaFree(next);
}

void smooth(int w, int h, int steps) {
  double *a, *b;
  cudaMalloc(&a, sizeof(double) * w * h);
  cudaMalloc(&b, sizeof(double) * w * h);
  for (int s = 0; s < steps; s++) {
    star9<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(b, a, w, h);
    double *t = a;
    a = b;
    b = t;
  }
  double first;
  cudaMemcpy(&first, a, sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(a);
  cudaFree(b);
}

// CHECK-LABEL: __global__ void jacobi(
// CHECK: /// Added by cuda-opt temporal-block: 4 sweeps of 'jacobi' per launch. Each
// CHECK: __global__ void __launch_bounds__(256)
// CHECK-NEXT:     jacobi_tb(float *next, const float *cur, int nx, int ny) {
// CHECK-NEXT:   constexpr int cudaopt_halo = 4;
// CHECK-NEXT:   constexpr int cudaopt_w = 64 + 2 * cudaopt_halo,
// CHECK-NEXT:                 cudaopt_h = 32 + 2 * cudaopt_halo;
// CHECK-NEXT:   __shared__ float cudaopt_tile[2][cudaopt_h][cudaopt_w];
// CHECK:          cur[(size_t)cudaopt_gy * nx + cudaopt_gx];
// The walk (walk=1, the default): a warp's threads walk runs of rows down
// their columns; every read comes from registers, cudaopt_col[c][r] being the
// tile cell at column lx - 1 + c, row ly - 1 + r.
// A tile inside the grid takes a copy of the sweeps without bounds tests,
// where the compiler may assume the cell is a radius inside the grid.
// CHECK:        if (cudaopt_inside) {
// CHECK:          for (int cudaopt_s = 1; cudaopt_s < 4; ++cudaopt_s) {
// CHECK-NEXT:       const int cudaopt_m = cudaopt_s * 1;
// CHECK-NEXT:       const int cudaopt_run = (cudaopt_h - 2 * cudaopt_m + 7) / 8;
// CHECK-NEXT:     const int cudaopt_ly0 = cudaopt_m + cudaopt_ty * cudaopt_run;
// CHECK:            float cudaopt_col[3][3];
// CHECK:                cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly0 - 1 + cudaopt_k]
// CHECK-NEXT:                       [cudaopt_lx - 1 + cudaopt_c];
// CHECK:              cudaopt_col[cudaopt_c][2] =
// CHECK-NEXT:             cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly + 1]
// CHECK:                int x = cudaopt_gx;
// CHECK-NEXT:           int y = cudaopt_gy;
// CHECK-NEXT:           __builtin_assume(x >= 1 && x < nx - 1 && y >= 1 && y < ny - 1);
// CHECK-NEXT:           {
// CHECK-NEXT:             int i = y * nx + x;
// CHECK-NEXT:             if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
// CHECK-NEXT:               cudaopt_tile[cudaopt_s & 1][cudaopt_ly][cudaopt_lx] =
// CHECK-NEXT:                   cudaopt_col[1][1];
// CHECK:                  0.5f * cudaopt_col[1][1] +
// CHECK-NEXT:             0.125f * (cudaopt_col[0][1] + cudaopt_col[2][1] +
// CHECK-NEXT:                       cudaopt_col[1][0] + cudaopt_col[1][2]);
// CHECK:                    cudaopt_col[cudaopt_c][cudaopt_k] =
// CHECK-NEXT:                   cudaopt_col[cudaopt_c][cudaopt_k + 1];
// CHECK:        // The last sweep stores the block's own cells.
// CHECK:                  next[i] = cudaopt_col[1][1];
// CHECK-NEXT:           else
// CHECK-NEXT:             next[i] = 0.5f * cudaopt_col[1][1] +
// CHECK:        } else {
// CHECK:              if (cudaopt_gx >= 0 && cudaopt_gy >= 0 && cudaopt_gx < nx &&
// CHECK-NEXT:             cudaopt_gy < ny) {
// CHECK-NEXT:           int x = cudaopt_gx;
// CHECK-NEXT:           int y = cudaopt_gy;
// CHECK-NEXT:           {
// CHECK-LABEL: void heat(
// CHECK:      // cuda-opt temporal-block: 4 sweeps of 'jacobi' per launch of 'jacobi_tb' (2
// CHECK-NEXT: // launches; the last 2 sweeps one at a time)
// CHECK-NEXT: {
// CHECK-NEXT:   int t = 0;
// CHECK-NEXT:   for (; t < 8; t += 4) {
// CHECK-NEXT:     jacobi_tb<<<dim3((nx + 63) / 64, (ny + 31) / 32), 256>>>(next, cur, nx,
// CHECK-NEXT:                                                              ny);
// CHECK-NEXT:     cudaGetLastError();
// CHECK-NEXT:     std::swap(cur, next);
// CHECK-NEXT:   }
// CHECK-NEXT:   for (; t < 10; ++t) {
// CHECK-NEXT:     jacobi<<<grid, block>>>(next, cur, nx, ny);

// STAR: __global__ void __launch_bounds__(128)
// STAR-NEXT:     star9_tb(double *out, const double *in, int w, int h) {
// STAR-NEXT:   constexpr int cudaopt_halo = 4;
// STAR-NEXT:   constexpr int cudaopt_w = 32 + 2 * cudaopt_halo,
// STAR-NEXT:                 cudaopt_h = 16 + 2 * cudaopt_halo;
// STAR-NEXT:   __shared__ double cudaopt_tile[2][cudaopt_h][cudaopt_w];
// The radius-2 star reads columns lx - 2 .. lx + 2, rows ly - 2 .. ly + 2.
// STAR:          double cudaopt_col[5][5];
// STAR:          int c = row * w + col;
// STAR:          0.6 * cudaopt_col[2][2] +
// STAR:          0.075 * (cudaopt_col[1][2] + cudaopt_col[3][2] +
// STAR-NEXT:              cudaopt_col[2][1] + cudaopt_col[2][3]) +
// STAR-NEXT:     0.025 * (cudaopt_col[0][2] + cudaopt_col[4][2] +
// STAR-NEXT:              cudaopt_col[2][0] + cudaopt_col[2][4]);
// STAR-LABEL: void smooth(
// STAR:      // sweeps left over run one at a time)
// STAR-NEXT: {
// STAR-NEXT:   int s = 0;
// STAR-NEXT:   const int cudaopt_s_blocked = s + (steps - s) / 4 * 4;
// STAR-NEXT:   for (; s < cudaopt_s_blocked; s += 2) {
// STAR-NEXT:     star9_tb<<<dim3((w + 31) / 32, (h + 15) / 16), 128>>>(b, a, w, h);
// STAR-NEXT:     double *t = a;
// STAR-NEXT:     a = b;
// STAR-NEXT:     b = t;
// STAR-NEXT:   }
// STAR-NEXT:   for (; s < steps; ++s) {

// EVEN:      // cuda-opt temporal-block: 5 sweeps of 'jacobi' per launch of 'jacobi_tb'
// EVEN-NEXT: for (int t = 0; t < 10; t += 5) {
// EVEN-NEXT:   jacobi_tb<<<

// One launch of 10 sweeps would leave the result in the other buffer.
// PARITY: runs 10 sweeps: with 10 sweeps per launch there is no run of launches that keeps which buffer holds the result

// tile=0: the shared tile is 128 cells wide (122 + 2 x 3).
// AUTO: constexpr int cudaopt_w = 122 + 2 * cudaopt_halo,
// AUTO: for (; t < 9; t += 3) {

// walk=0: the cells of a sweep interleaved over the threads, every read from
// the tile.
// CELLS:        for (int cudaopt_s = 1; cudaopt_s < 4; ++cudaopt_s) {
// CELLS-NEXT:     const int cudaopt_m = cudaopt_s * 1;
// CELLS-NEXT:     for (int cudaopt_ly = cudaopt_m + cudaopt_ty;
// CELLS-NOT:    cudaopt_col
// CELLS:                cudaopt_tile[cudaopt_s & 1][cudaopt_ly][cudaopt_lx] =
// CELLS-NEXT:               cudaopt_tile[(cudaopt_s - 1) & 1][cudaopt_ly][cudaopt_lx];
// CELLS-NOT:    cudaopt_col
// CELLS:        // The last sweep stores the block's own cells.
// CELLS-NOT:    cudaopt_col
// CELLS:                  next[i] = cudaopt_tile[1][cudaopt_ly][cudaopt_lx];
