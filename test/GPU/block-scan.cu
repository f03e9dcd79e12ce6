// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=strict --passes='block-scan' --kernel=scan_int %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='block-scan' %s
// Planted bugs: a lane that skips its first shuffle step, blocks of two
// warps (40 threads: a partial second warp) returning before the second
// adds the first's total, and each warp adding its own total instead of the
// ones before it. (The last warp's total is never read, so a plant there,
// e.g. a partial warp not writing it, is not a bug.)
// RUN: %gpu_equiv --fp-model=strict --kernel=scan_int --plant='if (Lane >= Offset)=>if (Lane > Offset)' --passes='block-scan' %s
// RUN: %gpu_equiv --fp-model=strict --kernel=scan_int --plant='if (Warps == 1)=>if (Warps <= 2)' --passes='block-scan' %s
// RUN: %gpu_equiv --fp-model=strict --kernel=scan_int --plant='V += WarpTotal[Warp - 1];=>V += WarpTotal[Warp];' --passes='block-scan' %s

// block-scan turns the shared-memory prefix sum of a block into warp
// shuffles. The integer scan must stay bitwise equal (strict) for blocks of
// 1024, 256, 1000 (a partial last warp), 40, 17 (one partial warp) and 1
// thread (2-D blocks keep the original loop, verbatim); the float
// scan is checked against its fp64 reference under reassoc.

#include "gpu_check.h"
#include <string>
#include <vector>

__global__ void scan_int(int *out, int *sums, const int *in, int n) {
  __shared__ int temp[1024];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  temp[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset *= 2) {
    int v = 0;
    if (tid >= offset)
      v = temp[tid - offset];
    __syncthreads();
    temp[tid] += v;
    __syncthreads();
  }
  if (i < n)
    out[i] = temp[tid];
  if (tid == blockDim.x - 1)
    sums[blockIdx.x] = temp[tid];
}

__global__ void scan_float(float *out, const float *in, int n) {
  __shared__ float buf[512];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d <<= 1) {
    float v = threadIdx.x >= d ? buf[threadIdx.x - d] : 0.0f;
    __syncthreads();
    buf[threadIdx.x] = buf[threadIdx.x] + v;
    __syncthreads();
  }
  if (i < n)
    out[i] = buf[threadIdx.x];
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int n = 1 << 20;
  std::vector<int> In(n);
  gpu_check::fill_uniform(In.data(), n, Seed, -1000, 1000);
  int *DIn, *DOut, *DSums;
  GPU_CHECK(cudaMalloc(&DIn, n * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DOut, n * sizeof(int)));
  GPU_CHECK(cudaMalloc(&DSums, n * sizeof(int)));
  GPU_CHECK(cudaMemcpy(DIn, In.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int> Out(n), Sums(n);
  for (int Block : {1024, 256, 1000, 40, 17, 1}) {
    const int m = Block == 1 ? 4096 : n; // one-thread blocks: a short input
    GPU_CHECK(cudaMemset(DOut, 0, n * sizeof(int)));
    GPU_CHECK(cudaMemset(DSums, 0, n * sizeof(int)));
    scan_int<<<(m + Block - 1) / Block, Block>>>(DOut, DSums, DIn, m);
    gpu_check::check_launch("scan_int");
    GPU_CHECK(cudaMemcpy(Out.data(), DOut, n * sizeof(int), cudaMemcpyDeviceToHost));
    GPU_CHECK(cudaMemcpy(Sums.data(), DSums, n * sizeof(int), cudaMemcpyDeviceToHost));
    std::string Name = "out_b" + std::to_string(Block);
    gpu_check::dump(argc, argv, Name.c_str(), Out.data(), n);
    Name = "sums_b" + std::to_string(Block);
    gpu_check::dump(argc, argv, Name.c_str(), Sums.data(), n);
  }
  // The float scan, with its fp64 reference per block of 512.
  std::vector<float> F(n), FOut(n);
  std::vector<double> Ref(n);
  gpu_check::fill_uniform(F.data(), n, Seed + 7, -1.0f, 1.0f);
  for (int K = 0; K < n; ++K)
    Ref[K] = (K % 512 ? Ref[K - 1] : 0.0) + F[K];
  float *DF, *DFOut;
  GPU_CHECK(cudaMalloc(&DF, n * sizeof(float)));
  GPU_CHECK(cudaMalloc(&DFOut, n * sizeof(float)));
  GPU_CHECK(cudaMemcpy(DF, F.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  scan_float<<<n / 512, 512>>>(DFOut, DF, n);
  gpu_check::check_launch("scan_float");
  GPU_CHECK(cudaMemcpy(FOut.data(), DFOut, n * sizeof(float), cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, "fout", FOut.data(), n);
  gpu_check::dump(argc, argv, "fout.fp64", Ref.data(), n);
  return 0;
}
