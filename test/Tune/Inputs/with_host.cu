// A program: host headers and main(), which NVRTC cannot build; nvcc does.
#include <cstdio>
#include <vector>

__global__ void inc(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] += 1;
}

int main() {
  std::vector<int> h(256, 1);
  int *d;
  cudaMalloc(&d, 256 * sizeof(int));
  cudaMemcpy(d, h.data(), 256 * sizeof(int), cudaMemcpyHostToDevice);
  inc<<<1, 256>>>(d, 256);
  cudaMemcpy(h.data(), d, 256 * sizeof(int), cudaMemcpyDeviceToHost);
  std::printf("%d\n", h[0]);
  return 0;
}
