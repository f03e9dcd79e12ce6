// relu.cu - elementwise ReLU over 256M floats, one element per thread.
#define CORPUS_NAME "relu"
#define CORPUS_SEED 0xabcdef1u
#include "corpus_common.h"

__global__ void relu(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4 && reinterpret_cast<size_t>(out) % sizeof(float4) == 0 &&
      reinterpret_cast<size_t>(in) % sizeof(float4) == 0) {
    float4 out4;
    const float4 in4 = reinterpret_cast<const float4 *>(in)[i];
    out4.x = in4.x > 0.0f ? in4.x : 0.0f;
    out4.y = in4.y > 0.0f ? in4.y : 0.0f;
    out4.z = in4.z > 0.0f ? in4.z : 0.0f;
    out4.w = in4.w > 0.0f ? in4.w : 0.0f;
    reinterpret_cast<float4 *>(out)[i] = out4;
  } else if (i <= n / 4) {
    for (int k = i * 4; k < n && k < i * 4 + 4; ++k) {
      out[k] = in[k] > 0.0f ? in[k] : 0.0f;
    }
  }
}

int main() {
  const int n = 1 << 28;
  std::vector<float> hin(n), hout(n);
  fill_uniform(hin, -2.0f, 2.0f);
  float *in, *out;
  CK(cudaMalloc(&in, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)n * sizeof(float)));
  CK(cudaMemcpy(in, hin.data(), (size_t)n * sizeof(float),
                cudaMemcpyHostToDevice));
  relu<<<((n + 255) / 256 + 3) / 4, 256>>>(out, in, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout.data(), out, (size_t)n * sizeof(float),
                cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int i = 0; i < n; ++i) {
    float ref = hin[i] > 0.0f ? hin[i] : 0.0f;
    bad += hout[i] != ref;
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  if (bad) {
    std::printf("relu: FAILED (%lld of %d outputs wrong)\n", bad, n);
    return 1;
  }
  std::printf("relu: ok\n");
  return 0;
}
