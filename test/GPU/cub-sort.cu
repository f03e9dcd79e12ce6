// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=strict --passes=cub-sort --kernel=bitonic_step %s
// RUN: %gpu_equiv --fp-model=strict --passes=cub-sort --kernel=step_desc %s
// RUN: %gpu_equiv --fp-model=fast --passes=cub-sort --kernel=step_f %s
// RUN: %gpu_equiv --fp-model=strict --passes=cub-sort --kernel=step_guard %s
// Planted bugs: the last key left out of the sort, the order reversed, and
// a wrong condition (n = 1000, where the loops do not sort, then gets CUB's
// sorted keys; dropping only the power-of-two test is no bug there: the grid
// of 3 x 256 threads fails the coverage test too).
// RUN: %gpu_equiv --fp-model=strict --kernel=bitonic_step --plant='cudaoptSortKeys(d, (long long)(n), false)=>cudaoptSortKeys(d, (long long)(n) - 1, false)' --passes=cub-sort %s
// RUN: %gpu_equiv --fp-model=strict --kernel=step_desc --plant='cudaoptSortKeys(keys, (long long)(n), true)=>cudaoptSortKeys(keys, (long long)(n), false)' --passes=cub-sort %s
// RUN: %gpu_equiv --fp-model=strict --kernel=bitonic_step --plant='if (N < 2)=>if (N < 2 || N == 1000)' --passes=cub-sort %s

// cub-sort: the bitonic network's loops and CUB's radix sort must leave the
// same keys, bit for bit, for int keys ascending and descending and float
// keys (no NaN, so --fp-model=fast compares them exactly too), and with a
// guard on the threads (a grid rounded up past n), on one key,
// two, a block, many blocks and 256K keys (the dumps are compared element
// by element in Python: sizes stay small); and for n = 1000 (not a power of
// two: the loops run, partly sorting, past n too) the rewrite must take the
// loops. The whole buffer is compared: nothing past n may change.

#include "gpu_check.h"
#include <string>
#include <vector>

__global__ void bitonic_step(int *values, int j, int k) {
  unsigned int i, ixj;
  i = threadIdx.x + blockDim.x * blockIdx.x;
  ixj = i ^ j;
  if ((ixj) > i) {
    if ((i & k) == 0) {
      if (values[i] > values[ixj]) {
        int temp = values[i];
        values[i] = values[ixj];
        values[ixj] = temp;
      }
    }
    if ((i & k) != 0) {
      if (values[i] < values[ixj]) {
        int temp = values[i];
        values[i] = values[ixj];
        values[ixj] = temp;
      }
    }
  }
}

static void sort_up(int *d, int n) {
  int threads = n < 256 ? n : 256;
  int j, k;
  for (k = 2; k <= n; k <<= 1) {
    for (j = k >> 1; j > 0; j = j >> 1) {
      bitonic_step<<<n / threads, threads>>>(d, j, k);
    }
  }
}

__global__ void step_desc(int *d, int j, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int partner = i ^ j;
  if (i < partner) {
    if (!(i & k)) {
      if (d[partner] > d[i]) {
        int t = d[partner];
        d[partner] = d[i];
        d[i] = t;
      }
    } else {
      if (d[i] > d[partner]) {
        int t = d[i];
        d[i] = d[partner];
        d[partner] = t;
      }
    }
  }
}

static void sort_down(int *keys, int n) {
  dim3 block(n < 128 ? n : 128);
  for (int k = 2; k <= n; k *= 2)
    for (int j = k / 2; j >= 1; j /= 2) {
      step_desc<<<n / block.x, block>>>(keys, j, k);
      cudaGetLastError();
    }
}

__global__ void step_f(float *d, int j, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) {
        float t = d[i];
        d[i] = d[ixj];
        d[ixj] = t;
      }
    } else {
      if (d[i] < d[ixj]) {
        float t = d[i];
        d[i] = d[ixj];
        d[ixj] = t;
      }
    }
  }
}

static void sort_f(float *d, int n) {
  int threads = n < 256 ? n : 256;
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1)
      step_f<<<n / threads, threads>>>(d, j, k);
}

// Guarded threads: a grid rounded up past n.
__global__ void step_guard(int *d, int j, int k, int n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (d[i] > d[ixj]) {
        int t = d[i];
        d[i] = d[ixj];
        d[ixj] = t;
      }
    } else {
      if (d[i] < d[ixj]) {
        int t = d[i];
        d[i] = d[ixj];
        d[ixj] = t;
      }
    }
  }
}

static void sort_guard(int *d, int n) {
  for (int k = 2; k <= n; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1)
      step_guard<<<(n + 255) / 256, 256>>>(d, j, k, n);
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int Counts[] = {1, 2, 256, 1000, 1024, 1 << 14, 1 << 18};
  const int Max = 1 << 18;
  std::vector<int> In(Max), Out(Max);
  std::vector<float> InF(Max), OutF(Max);
  gpu_check::fill_uniform(In.data(), Max, Seed, -100000, 100000);
  gpu_check::fill_uniform(InF.data(), Max, Seed + 1, -1.0f, 1.0f);
  int *d;
  float *df;
  GPU_CHECK(cudaMalloc(&d, Max * sizeof(int)));
  GPU_CHECK(cudaMalloc(&df, Max * sizeof(float)));
  for (int n : Counts) {
    std::string N = std::to_string(n);
    GPU_CHECK(cudaMemcpy(d, In.data(), Max * sizeof(int),
                         cudaMemcpyHostToDevice));
    sort_up(d, n);
    GPU_CHECK(cudaDeviceSynchronize());
    GPU_CHECK(cudaMemcpy(Out.data(), d, Max * sizeof(int),
                         cudaMemcpyDeviceToHost));
    gpu_check::dump(argc, argv, ("up_" + N).c_str(), Out.data(), Max);

    GPU_CHECK(cudaMemcpy(d, In.data(), Max * sizeof(int),
                         cudaMemcpyHostToDevice));
    sort_down(d, n);
    GPU_CHECK(cudaDeviceSynchronize());
    GPU_CHECK(cudaMemcpy(Out.data(), d, Max * sizeof(int),
                         cudaMemcpyDeviceToHost));
    gpu_check::dump(argc, argv, ("down_" + N).c_str(), Out.data(), Max);

    GPU_CHECK(cudaMemcpy(d, In.data(), Max * sizeof(int),
                         cudaMemcpyHostToDevice));
    sort_guard(d, n);
    GPU_CHECK(cudaDeviceSynchronize());
    GPU_CHECK(cudaMemcpy(Out.data(), d, Max * sizeof(int),
                         cudaMemcpyDeviceToHost));
    gpu_check::dump(argc, argv, ("guard_" + N).c_str(), Out.data(), Max);

    GPU_CHECK(cudaMemcpy(df, InF.data(), Max * sizeof(float),
                         cudaMemcpyHostToDevice));
    sort_f(df, n);
    GPU_CHECK(cudaDeviceSynchronize());
    GPU_CHECK(cudaMemcpy(OutF.data(), df, Max * sizeof(float),
                         cudaMemcpyDeviceToHost));
    gpu_check::dump(argc, argv, ("float_" + N).c_str(), OutF.data(), Max);
  }
  return 0;
}
