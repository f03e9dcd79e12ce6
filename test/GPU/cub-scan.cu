// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=strict --passes=cub-scan --kernel=block_scan %s
// RUN: %gpu_equiv --fp-model=reassoc --passes=cub-scan --kernel=block_scan_f %s
// Planted bugs: an exclusive scan in place of the inclusive one, the count
// one short, and (floats) the first output zeroed.
// RUN: %gpu_equiv --fp-model=strict --kernel=block_scan --plant='cub::DeviceScan::InclusiveSum(cudaopt_scan_temp=>cub::DeviceScan::ExclusiveSum(cudaopt_scan_temp' --passes=cub-scan %s
// RUN: %gpu_equiv --fp-model=reassoc --kernel=block_scan_f --plant='cudaFreeAsync(cudaopt_scan_temp, 0);=>cudaFreeAsync(cudaopt_scan_temp, 0); cudaMemsetAsync(out, 0, 4, 0);' --passes=cub-scan %s
// RUN: %gpu_equiv --fp-model=strict --kernel=block_scan --plant='CK(cub::DeviceScan::InclusiveSum(nullptr, cudaopt_scan_bytes, in, out, n));=>CK(cub::DeviceScan::InclusiveSum(nullptr, cudaopt_scan_bytes, in, out, n)); n -= 1;' --passes=cub-scan %s

// cub-scan: a recursive scan-then-propagate prefix sum must give the same
// integers bit for bit, and floats (summed in double by the rewrite) within
// the reassoc rule of an fp64 host reference, on counts that are one block, a block plus one, and deep
// enough for three levels of recursion.

#include "gpu_check.h"
#include <string>
#include <vector>

#define CK(call)                                                               \
  do {                                                                         \
    if ((call) != cudaSuccess)                                                 \
      return 1;                                                                \
  } while (0)

__global__ void block_scan(int *out, int *block_sums, const int *in, int n) {
  __shared__ int temp[256];
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
    block_sums[blockIdx.x] = temp[tid];
}

__global__ void add_offsets(int *out, const int *offsets, int chunk, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i >= chunk)
    out[i] += offsets[i / chunk - 1];
}

static int scan_device(int *out, const int *in, int n) {
  const int chunk = 256;
  int blocks = (n + chunk - 1) / chunk;
  int *sums;
  CK(cudaMalloc(&sums, blocks * sizeof(int)));
  block_scan<<<blocks, chunk>>>(out, sums, in, n);
  CK(cudaGetLastError());
  if (blocks > 1) {
    int *scanned;
    CK(cudaMalloc(&scanned, blocks * sizeof(int)));
    if (scan_device(scanned, sums, blocks))
      return 1;
    add_offsets<<<(n + 127) / 128, 128>>>(out, scanned, chunk, n);
    CK(cudaGetLastError());
    CK(cudaFree(scanned));
  }
  CK(cudaDeviceSynchronize());
  CK(cudaFree(sums));
  return 0;
}

__global__ void block_scan_f(float *out, float *sums, const float *in,
                             int n) {
  __shared__ float t[512];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    t[threadIdx.x] = in[i];
  else
    t[threadIdx.x] = 0.0f;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d *= 2) {
    float v = threadIdx.x >= d ? t[threadIdx.x - d] : 0.0f;
    __syncthreads();
    t[threadIdx.x] += v;
    __syncthreads();
  }
  if (threadIdx.x == blockDim.x - 1)
    sums[blockIdx.x] = t[threadIdx.x];
  if (i < n)
    out[i] = t[threadIdx.x];
}

__global__ void add_sums_f(float *out, const float *scanned, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 512 && i < n)
    out[i] = out[i] + scanned[i / 512 - 1];
}

void scan_f(float *out, const float *in, int n) {
  int blocks = (n + 511) / 512;
  float *sums = nullptr;
  cudaMalloc(&sums, blocks * sizeof(float));
  block_scan_f<<<blocks, 512>>>(out, sums, in, n);
  if (blocks > 1) {
    float *scanned;
    cudaMalloc(&scanned, blocks * sizeof(float));
    scan_f(scanned, sums, blocks);
    add_sums_f<<<blocks, 512>>>(out, scanned, n);
    cudaFree(scanned);
  }
  cudaDeviceSynchronize();
  cudaFree(sums);
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int Counts[] = {1, 255, 256, 257, 512, 513, 70000, (1 << 22) + 5};
  const int Max = (1 << 22) + 5;
  std::vector<int> In(Max), Out(Max);
  std::vector<float> InF(Max), OutF(Max);
  std::vector<double> Ref(Max);
  gpu_check::fill_uniform(In.data(), Max, Seed, -1000, 1000);
  gpu_check::fill_uniform(InF.data(), Max, Seed + 1, -1.0f, 1.0f);
  int *in, *out;
  float *inf, *outf;
  GPU_CHECK(cudaMalloc(&in, Max * sizeof(int)));
  GPU_CHECK(cudaMalloc(&out, Max * sizeof(int)));
  GPU_CHECK(cudaMalloc(&inf, Max * sizeof(float)));
  GPU_CHECK(cudaMalloc(&outf, Max * sizeof(float)));
  GPU_CHECK(cudaMemcpy(in, In.data(), Max * sizeof(int),
                       cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(inf, InF.data(), Max * sizeof(float),
                       cudaMemcpyHostToDevice));
  for (int n : Counts) {
    GPU_CHECK(cudaMemset(out, 0, Max * sizeof(int)));
    if (scan_device(out, in, n)) {
      std::printf("scan_device failed for n = %d\n", n);
      return 1;
    }
    GPU_CHECK(cudaMemcpy(Out.data(), out, Max * sizeof(int),
                         cudaMemcpyDeviceToHost));
    std::string Name = "scan_" + std::to_string(n);
    // The whole buffer: past n must stay untouched.
    gpu_check::dump(argc, argv, Name.c_str(), Out.data(), Max);

    GPU_CHECK(cudaMemset(outf, 0, Max * sizeof(float)));
    scan_f(outf, inf, n);
    GPU_CHECK(cudaGetLastError());
    GPU_CHECK(cudaMemcpy(OutF.data(), outf, n * sizeof(float),
                         cudaMemcpyDeviceToHost));
    double Acc = 0;
    for (int I = 0; I < n; ++I)
      Ref[I] = Acc += InF[I];
    Name = "scan_f_" + std::to_string(n);
    gpu_check::dump(argc, argv, Name.c_str(), OutF.data(), n);
    gpu_check::dump(argc, argv, (Name + ".fp64").c_str(), Ref.data(), n);
  }
  return 0;
}
