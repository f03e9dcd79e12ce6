#include "scale.h"
#include <cstdio>
#include <vector>

int main() {
  const int N = 1 << 24;
  std::vector<float> X(N), Y(N);
  for (int I = 0; I < N; ++I) {
    X[I] = (I % 97) * 0.25f;
    Y[I] = (I % 13) - 6.0f;
  }
  float *DX, *DY;
  cudaMalloc(&DX, N * sizeof(float));
  cudaMalloc(&DY, N * sizeof(float));
  cudaMemcpy(DX, X.data(), N * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(DY, Y.data(), N * sizeof(float), cudaMemcpyHostToDevice);
  launch_scale_add(DY, DX, 1.5f, N);
  std::vector<float> Out(N);
  cudaMemcpy(Out.data(), DY, N * sizeof(float), cudaMemcpyDeviceToHost);
  for (int I = 0; I < N; ++I)
    if (Out[I] != 1.5f * X[I] + Y[I]) {
      std::printf("multi: wrong at %d\n", I);
      return 1;
    }
  std::printf("multi: ok\n");
  return 0;
}
