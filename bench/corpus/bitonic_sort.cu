// bitonic_sort.cu - sort 16M ints ascending with the textbook global-memory
// bitonic network: one launch per stage (k, j), each thread comparing its
// key with its partner i ^ j and swapping them into the stage's order. The
// keys are random over the whole int range (negatives, duplicates).
#define CORPUS_NAME "bitonic_sort"
#define CORPUS_SEED 0x3c6ef372u
#include "corpus_common.h"

#include <algorithm>

#define THREADS 512
#define NUM_VALS (1 << 24)
#define BLOCKS (NUM_VALS / THREADS)

__global__ void bitonic_step(int *values, int j, int k) {
  unsigned int i, ixj;
  i = threadIdx.x + blockDim.x * blockIdx.x;
  ixj = i ^ j;
  if (ixj > i) {
    if ((i & k) == 0) {
      if (values[i] > values[ixj]) {
        int t = values[i];
        values[i] = values[ixj];
        values[ixj] = t;
      }
    }
    if ((i & k) != 0) {
      if (values[i] < values[ixj]) {
        int t = values[i];
        values[i] = values[ixj];
        values[ixj] = t;
      }
    }
  }
}

static int bitonic_sort(int *values) {
  dim3 blocks(BLOCKS, 1);
  dim3 threads(THREADS, 1);
  int j, k;
  for (k = 2; k <= NUM_VALS; k <<= 1) {
    for (j = k >> 1; j > 0; j = j >> 1) {
      bitonic_step<<<blocks, threads>>>(values, j, k);
    }
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  return 0;
}

int main() {
  const int n = NUM_VALS;
  std::vector<int> h(n), sorted(n);
  for (int &x : h)
    x = (int)urand();
  int *d;
  CK(cudaMalloc(&d, (size_t)n * sizeof(int)));
  CK(cudaMemcpy(d, h.data(), (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
  if (bitonic_sort(d))
    return 1;
  CK(cudaMemcpy(sorted.data(), d, (size_t)n * sizeof(int),
                cudaMemcpyDeviceToHost));
  CK(cudaFree(d));
  std::sort(h.begin(), h.end());
  long long bad = 0, first = -1;
  for (int i = 0; i < n; ++i)
    if (sorted[i] != h[i]) {
      if (first < 0)
        first = i;
      ++bad;
    }
  if (bad) {
    std::printf("bitonic_sort: FAILED (%lld of %d keys out of place, first at "
                "%lld)\n", bad, n, first);
    return 1;
  }
  std::printf("bitonic_sort: ok\n");
  return 0;
}
