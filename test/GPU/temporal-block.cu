// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=strict --passes='temporal-block' --kernel=jacobi %s
// RUN: %gpu_equiv --fp-model=strict --passes='temporal-block{walk=0}' --kernel=jacobi %s
// RUN: %gpu_equiv --fp-model=strict --passes='temporal-block{sweeps=2,tile=32,rows=16,threads=128}' --kernel=star9 %s
// RUN: %gpu_equiv --fp-model=strict --passes='temporal-block{sweeps=2,tile=32,rows=16,threads=128,walk=0}' --kernel=star9 %s
// RUN: %gpu_equiv --fp-model=strict --passes='temporal-block{sweeps=3,tile=0,rows=16}' --kernel=jacobi %s
// Planted bugs: a halo one cell short of the sweeps, the last sweep reading
// the tile of the sweep before, the remainder loop dropping its last sweep,
// a radius-2 read shifted by a row (walk=0), and in the walk a window that
// does not move and a column read from the wrong window slot. (A missing
// barrier is a race that need not show; it is not planted.)
// RUN: %gpu_equiv --fp-model=strict --kernel=jacobi --plant='constexpr int cudaopt_halo = 4;=>constexpr int cudaopt_halo = 3;' --passes='temporal-block' %s
// RUN: %gpu_equiv --fp-model=strict --kernel=jacobi --plant='next[i] = 0.5f * cudaopt_tile[1][cudaopt_ly][cudaopt_lx] +=>next[i] = 0.5f * cudaopt_tile[0][cudaopt_ly][cudaopt_lx] +' --passes='temporal-block{walk=0}' %s
// RUN: %gpu_equiv --fp-model=strict --kernel=jacobi --plant='cudaopt_tile[1][cudaopt_ly + 1]=>cudaopt_tile[0][cudaopt_ly + 1]' --passes='temporal-block' %s
// RUN: %gpu_equiv --fp-model=strict --kernel=jacobi --plant='for (; t < steps; ++t)=>for (; t + 1 < steps; ++t)' --passes='temporal-block' %s
// RUN: %gpu_equiv --fp-model=strict --kernel=star9 --plant='[cudaopt_ly - 2]=>[cudaopt_ly - 1]' --passes='temporal-block{sweeps=2,tile=32,rows=16,threads=128,walk=0}' %s
// RUN: %gpu_equiv --fp-model=strict --kernel=jacobi --plant='cudaopt_col[cudaopt_c][cudaopt_k + 1];=>cudaopt_col[cudaopt_c][cudaopt_k];' --passes='temporal-block' %s
// RUN: %gpu_equiv --fp-model=strict --kernel=star9 --plant='cudaopt_col[0][2]=>cudaopt_col[1][2]' --passes='temporal-block{sweeps=2,tile=32,rows=16,threads=128}' %s

// temporal-block: a time loop of stencil sweeps must give the same grid bit
// for bit when several sweeps run per launch, for grids that are and are
// not multiples of the tile, thinner than the halo, and trip counts that
// the sweeps per launch do and do not divide (known only at run time).
// Also tile=0 (the shared tile 128 cells wide) with an odd sweep count.

#include "gpu_check.h"
#include <string>
#include <utility>
#include <vector>

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

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int Shapes[][2] = {{1000, 700}, {37, 1500}, {2048, 3}, {64, 32}, {1, 1}};
  const int Max = 1000 * 1500;
  std::vector<float> In(Max), Out(Max);
  std::vector<double> InD(Max), OutD(Max);
  gpu_check::fill_uniform(In.data(), Max, Seed, -1.0f, 1.0f);
  for (int I = 0; I < Max; ++I)
    InD[I] = In[(I * 7 + 3) % Max];
  for (const auto &S : Shapes)
    for (int steps : {10, 7, 17, 1}) {
      int nx = S[0], ny = S[1];
      float *cur, *next;
      GPU_CHECK(cudaMalloc(&cur, Max * sizeof(float)));
      GPU_CHECK(cudaMalloc(&next, Max * sizeof(float)));
      GPU_CHECK(cudaMemcpy(cur, In.data(), Max * sizeof(float),
                           cudaMemcpyHostToDevice));
      dim3 block(32, 8);
      dim3 grid((nx + 31) / 32, (ny + 7) / 8);
      for (int t = 0; t < steps; ++t) {
        jacobi<<<grid, block>>>(next, cur, nx, ny);
        GPU_CHECK(cudaGetLastError());
        std::swap(cur, next);
      }
      GPU_CHECK(cudaMemcpy(Out.data(), cur, (size_t)nx * ny * sizeof(float),
                           cudaMemcpyDeviceToHost));
      std::string Name = "jacobi_" + std::to_string(nx) + "x" +
                         std::to_string(ny) + "_t" + std::to_string(steps);
      gpu_check::dump(argc, argv, Name.c_str(), Out.data(), nx * ny);
      GPU_CHECK(cudaFree(cur));
      GPU_CHECK(cudaFree(next));

      double *a, *b;
      GPU_CHECK(cudaMalloc(&a, Max * sizeof(double)));
      GPU_CHECK(cudaMalloc(&b, Max * sizeof(double)));
      GPU_CHECK(cudaMemcpy(a, InD.data(), Max * sizeof(double),
                           cudaMemcpyHostToDevice));
      for (int s = 0; s < steps; s++) {
        star9<<<dim3((nx + 15) / 16, (ny + 15) / 16), dim3(16, 16)>>>(b, a, nx,
                                                                      ny);
        double *t = a;
        a = b;
        b = t;
      }
      GPU_CHECK(cudaMemcpy(OutD.data(), a, (size_t)nx * ny * sizeof(double),
                           cudaMemcpyDeviceToHost));
      Name = "star9_" + std::to_string(nx) + "x" + std::to_string(ny) + "_t" +
             std::to_string(steps);
      gpu_check::dump(argc, argv, Name.c_str(), OutD.data(), nx * ny);
      GPU_CHECK(cudaFree(a));
      GPU_CHECK(cudaFree(b));
    }
  return 0;
}
