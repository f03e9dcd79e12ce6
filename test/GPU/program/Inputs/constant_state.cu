// The kernel reads __constant__ state the program sets with
// cudaMemcpyToSymbol. Replaying the launch from its pointer arguments alone
// cannot reproduce that (the replayed module's constant bank is its static
// initialiser), so the tuner must say the replay differs from the program.
#include <cstdio>
#include <vector>

__constant__ float scale_by[1] = {0.0f};

__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = scale_by[0] * in[i];
}

int main() {
  const int n = 1 << 20;
  std::vector<float> h(n, 1.5f), o(n);
  float *in, *out, three = 3.0f;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpyToSymbol(scale_by, &three, sizeof(float));
  scale<<<(n + 255) / 256, 256>>>(out, in, n);
  cudaMemcpy(o.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    if (o[i] != 4.5f) {
      std::printf("constant_state: mismatch at %d\n", i);
      return 1;
    }
  std::printf("constant_state: ok\n");
  return 0;
}
