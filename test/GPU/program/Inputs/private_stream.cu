// The launch goes to a private non-blocking stream and the program does not
// synchronise that stream before the capture's "after" snapshot would be
// taken: the capture must synchronise the whole device, or it would record
// outputs the kernel has not written yet (and replay would compare every
// variant against garbage).
#include <cmath>
#include <cstdio>
#include <vector>

__global__ void slow_square(float *out, const float *in, int n, int reps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i], acc = 0;
  for (int r = 0; r < reps; ++r)
    acc += v * v * (1.0f / reps);
  out[i] = acc;
}

int main() {
  const int n = 1 << 22, reps = 64;
  std::vector<float> h(n), o(n);
  for (int i = 0; i < n; ++i)
    h[i] = static_cast<float>(i % 97) / 97.0f;
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(out, 0, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  slow_square<<<(n + 127) / 128, 128, 0, s>>>(out, in, n, reps);
  cudaStreamSynchronize(s);
  cudaMemcpy(o.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    float want = 0;
    for (int r = 0; r < reps; ++r)
      want += h[i] * h[i] * (1.0f / reps);
    if (std::fabs(o[i] - want) > 1e-5f) {
      std::printf("private_stream: mismatch at %d\n", i);
      return 1;
    }
  }
  std::printf("private_stream: ok\n");
  return 0;
}
