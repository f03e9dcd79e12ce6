// scan.cu - inclusive prefix sum of 256M ints. Pass 1 scans each block of
// 1024 in shared memory (Hillis-Steele) and records the block's total; the
// block totals are scanned the same way (recursively), and pass 2 adds each
// block's offset.
#define CORPUS_NAME "scan"
#define CORPUS_SEED 0xa54ff53au
#include "corpus_common.h"

__global__ void block_scan(int *out, int *block_sums, const int *in, int n) {
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
    block_sums[blockIdx.x] = temp[tid];
}

// offsets[b] is the inclusive scan of the block totals: element i of block
// b > 0 adds offsets[b - 1].
__global__ void add_offsets(int *out, const int *offsets, int chunk, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i >= chunk)
    out[i] += offsets[i / chunk - 1];
}

static int scan_device(int *out, const int *in, int n) {
  const int chunk = 1024;
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
    add_offsets<<<(n + 255) / 256, 256>>>(out, scanned, chunk, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(scanned));
  }
  CK(cudaDeviceSynchronize());
  CK(cudaFree(sums));
  return 0;
}

int main() {
  const int n = 1 << 28;
  std::vector<int> hin(n), hout(n);
  fill_int(hin, -8, 8);
  int *in, *out;
  CK(cudaMalloc(&in, (size_t)n * sizeof(int)));
  CK(cudaMalloc(&out, (size_t)n * sizeof(int)));
  CK(cudaMemcpy(in, hin.data(), (size_t)n * sizeof(int),
                cudaMemcpyHostToDevice));
  if (scan_device(out, in, n))
    return 1;
  CK(cudaMemcpy(hout.data(), out, (size_t)n * sizeof(int),
                cudaMemcpyDeviceToHost));
  long long bad = 0, first = -1;
  long long acc = 0;
  for (int i = 0; i < n; ++i) {
    acc += hin[i];
    if (hout[i] != acc) {
      if (first < 0)
        first = i;
      ++bad;
    }
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad) {
    std::printf("scan: FAILED (%lld of %d outputs wrong, first at %lld)\n",
                bad, n, first);
    return 1;
  }
  std::printf("scan: ok\n");
  return 0;
}
