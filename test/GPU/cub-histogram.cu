// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=strict --passes=cub-histogram --kernel=hist8 %s
// RUN: %gpu_equiv --fp-model=strict --passes=cub-histogram --kernel=hist_guarded %s
// RUN: %gpu_equiv --fp-model=strict --passes=cub-histogram --kernel=hist_float %s
// RUN: %gpu_equiv --fp-model=strict --passes=cub-histogram --kernel=hist_weighted %s
// RUN: %gpu_equiv --fp-model=strict --passes=cub-histogram --kernel=hist_stride %s
// Planted bugs: CUB's counts written over the histogram instead of added
// to it, and a sample that reaches no update counted in bin 0.
// RUN: %gpu_equiv --fp-model=strict --kernel=hist8 --plant='Hist[B] = (Counter)((unsigned long long)Hist[B] +=>Hist[B] = (Counter)(0ULL +' --passes=cub-histogram %s
// RUN: %gpu_equiv --fp-model=strict --kernel=hist_guarded --plant='return -1;=>return 0;' --passes=cub-histogram %s

// cub-histogram: the counts must be the original's bit for bit, added to
// histograms that already hold counts (or written into one zeroed just
// before), on counts of zero, one, a block plus
// one and millions of elements; int data with values outside [0, nbins),
// float data with NaN, infinities and values past the clamp (also through a
// grid-stride loop over a grid of 132 blocks), and a 64-bit histogram with a
// weight.

#include "gpu_check.h"
#include <cmath>
#include <string>
#include <vector>

#define CK(call)                                                               \
  do {                                                                         \
    if ((call) != cudaSuccess)                                                 \
      return 1;                                                                \
  } while (0)

__global__ void hist8(unsigned int *bins, const unsigned char *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1u);
}

static int count_bytes(unsigned int *bins, const unsigned char *data, int n) {
  hist8<<<(n + 255) / 256, 256>>>(bins, data, n);
  CK(cudaGetLastError());
  return 0;
}

// The histogram zeroed just before: CUB writes its counts there.
static int count_bytes_fresh(unsigned int *bins, const unsigned char *data,
                             int n) {
  CK(cudaMemset(bins, 0, 256 * sizeof(unsigned int)));
  hist8<<<(n + 255) / 256, 256>>>(bins, data, n);
  CK(cudaGetLastError());
  return 0;
}

__global__ void hist_guarded(int *bins, const int *data, int nbins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = data[i];
    if (v >= 0 && v < nbins)
      atomicAdd(&bins[v], 1);
  }
}

static void count_ints(int *bins, const int *data, int nbins, int n) {
  hist_guarded<<<(n + 127) / 128, 128>>>(bins, data, nbins, n);
}

__global__ void hist_float(unsigned int *bins, const float *x, float lo,
                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] >= lo) {
    int b = min(max((int)((x[i] - lo) * 64.0f), 0), 63);
    atomicAdd(&bins[b], 1u);
  }
}

static void count_floats(unsigned int *bins, const float *x, int n) {
  hist_float<<<(n + 255) / 256, 256>>>(bins, x, -0.5f, n);
}

__global__ void hist_weighted(unsigned long long *bins,
                              const unsigned int *data, unsigned long long w,
                              long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  atomicAdd(bins + ((data[i] >> 4) & 7), w);
}

static void weigh(unsigned long long *bins, const unsigned int *data,
                  unsigned long long w, long long n) {
  hist_weighted<<<(n + 255) / 256, 256>>>(bins, data, w, n);
}

__global__ void hist_stride(int *bins, const float *x, int nbins, int n) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    int b = (int)(x[i] * nbins);
    if (b >= 0 && b < nbins)
      atomicAdd(&bins[b], 1);
  }
}

static void count_stride(int *bins, const float *x, int nbins, int n) {
  hist_stride<<<132, 256>>>(bins, x, nbins, n);
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  // No 0: a grid of no blocks is an invalid launch of the original.
  const int Counts[] = {1, 257, 100000, (1 << 22) + 3};
  const int Max = (1 << 22) + 3, NBins = 1000;
  std::vector<int> Raw(Max), Ints(Max), Prior(4 * NBins);
  std::vector<float> Floats(Max);
  gpu_check::fill_uniform(Raw.data(), Max, Seed, 0, 1 << 30);
  gpu_check::fill_uniform(Ints.data(), Max, Seed + 1, -50, NBins + 50);
  gpu_check::fill_uniform(Floats.data(), Max, Seed + 2, -1.0f, 1.5f);
  gpu_check::fill_uniform(Prior.data(), Prior.size(), Seed + 3, 0, 1 << 20);
  // NaN, infinities, the bins' edges.
  const float Special[] = {NAN, INFINITY, -INFINITY, -0.5f, 0.0f, -0.0f,
                           0.5f - 1.0f / 64, 0.5f, 1e30f, -1e30f};
  for (int I = 0; I < 10; ++I)
    Floats[I * 7] = Special[I];
  std::vector<unsigned char> Bytes(Max);
  for (int I = 0; I < Max; ++I)
    Bytes[I] = (unsigned char)(Raw[I] & 0xff);
  unsigned char *bytes;
  int *ints, *ibins;
  float *floats;
  unsigned int *ubins, *words;
  unsigned long long *lbins;
  GPU_CHECK(cudaMalloc(&bytes, Max));
  GPU_CHECK(cudaMalloc(&ints, Max * sizeof(int)));
  GPU_CHECK(cudaMalloc(&words, Max * sizeof(unsigned)));
  GPU_CHECK(cudaMalloc(&floats, Max * sizeof(float)));
  GPU_CHECK(cudaMalloc(&ibins, 2 * NBins * sizeof(int)));
  GPU_CHECK(cudaMalloc(&ubins, 2 * NBins * sizeof(unsigned)));
  GPU_CHECK(cudaMalloc(&lbins, 2 * NBins * sizeof(unsigned long long)));
  GPU_CHECK(cudaMemcpy(bytes, Bytes.data(), Max, cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(ints, Ints.data(), Max * sizeof(int),
                       cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(words, Raw.data(), Max * sizeof(int),
                       cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(floats, Floats.data(), Max * sizeof(float),
                       cudaMemcpyHostToDevice));
  std::vector<int> Out(4 * NBins);
  auto Reset = [&](void *Bins, size_t Bytes) {
    // Counts already there: the rewrite must add to them. Past the bins
    // too: nothing there may change.
    GPU_CHECK(cudaMemcpy(Bins, Prior.data(), Bytes, cudaMemcpyHostToDevice));
  };
  auto Dump = [&](const std::string &Name, const void *Bins, size_t Bytes) {
    GPU_CHECK(cudaMemcpy(Out.data(), Bins, Bytes, cudaMemcpyDeviceToHost));
    gpu_check::dump(argc, argv, Name.c_str(), Out.data(), Bytes / 4);
  };
  for (int n : Counts) {
    std::string N = std::to_string(n);
    Reset(ubins, 2 * NBins * sizeof(unsigned));
    if (count_bytes(ubins, bytes, n))
      return 1;
    Dump("bytes_" + N, ubins, 2 * NBins * sizeof(unsigned));
    Reset(ubins, 2 * NBins * sizeof(unsigned));
    if (count_bytes_fresh(ubins, bytes, n))
      return 1;
    Dump("bytes_fresh_" + N, ubins, 2 * NBins * sizeof(unsigned));

    Reset(ibins, 2 * NBins * sizeof(int));
    count_ints(ibins, ints, NBins, n);
    Dump("ints_" + N, ibins, 2 * NBins * sizeof(int));

    Reset(ubins, 2 * NBins * sizeof(unsigned));
    count_floats(ubins, floats, n);
    Dump("floats_" + N, ubins, 2 * NBins * sizeof(unsigned));

    Reset(ibins, 2 * NBins * sizeof(int));
    count_stride(ibins, floats, NBins, n);
    Dump("stride_" + N, ibins, 2 * NBins * sizeof(int));

    Reset(lbins, 2 * NBins * sizeof(unsigned long long));
    weigh(lbins, words, 0x100000003ULL, n);
    Dump("weighted_" + N, lbins, 2 * NBins * sizeof(unsigned long long));
  }
  GPU_CHECK(cudaDeviceSynchronize());
  return 0;
}
