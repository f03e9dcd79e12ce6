// A program whose kernel gets pointers into the middle of allocations, two
// pointers into one allocation, and a struct by value: program-mode capture
// must replay exactly that (offsets, aliasing, raw argument bytes).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Coeffs {
  float a;
  float b;
  int shift;
};

__global__ void blend(float *out, const float *x, const float *y, Coeffs c,
                      int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = c.a * x[i] + c.b * y[i + c.shift];
}

int main() {
  const int n = 1 << 20, pad = 1000, shift = 3;
  std::vector<float> hx(n + 2 * pad), hout(n);
  for (size_t i = 0; i < hx.size(); ++i)
    hx[i] = static_cast<float>((i * 7919) % 1000) / 500.0f - 1.0f;
  float *dx, *dout;
  cudaMalloc(&dx, hx.size() * sizeof(float));
  cudaMalloc(&dout, (n + 64) * sizeof(float));
  cudaMemcpy(dx, hx.data(), hx.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(dout, 0, (n + 64) * sizeof(float));
  Coeffs c{2.0f, -0.5f, shift};
  // x and y both point into dx, at different offsets; out is offset too.
  blend<<<(n + 255) / 256, 256>>>(dout + 16, dx + pad, dx + 2 * pad - 500, c,
                                  n);
  cudaMemcpy(hout.data(), dout + 16, n * sizeof(float),
             cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    float want = c.a * hx[pad + i] + c.b * hx[2 * pad - 500 + i + shift];
    if (std::fabs(hout[i] - want) > 1e-5f) {
      std::printf("offsets: mismatch at %d: %f vs %f\n", i, hout[i], want);
      return 1;
    }
  }
  std::printf("offsets: ok\n");
  return 0;
}
