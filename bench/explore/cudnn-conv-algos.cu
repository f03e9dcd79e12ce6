// cudnn-conv-algos.cu - every cuDNN forward algorithm for one fp32
// convolution, timed by cuDNN's own search and then by CUDA events (median
// of 50 after 10 warm-ups): the reference "cuDNN's best algorithm" for
// conv-cudnn (issue 14). FMA math (exact fp32 products, no TF32) is what
// conv-cudnn may use under --fp-model=reassoc; the TF32 (default math)
// algorithms are listed for comparison only.
//   cudnn-conv-algos N C H W K R S pad stride
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <vector>

#define CK(x) do { auto e = (x); if (e != 0) { std::printf("%s: %d\n", #x, (int)e); std::exit(1); } } while (0)

int main(int argc, char **argv) {
  int v[9] = {8, 64, 128, 128, 64, 3, 3, 1, 1};
  for (int i = 1; i < argc && i <= 9; ++i) v[i - 1] = std::atoi(argv[i]);
  int N = v[0], C = v[1], H = v[2], W = v[3], K = v[4], R = v[5], S = v[6], pad = v[7], stride = v[8];
  cudnnHandle_t h;
  CK(cudnnCreate(&h));
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  CK(cudnnCreateTensorDescriptor(&x));
  CK(cudnnCreateTensorDescriptor(&y));
  CK(cudnnCreateFilterDescriptor(&w));
  CK(cudnnCreateConvolutionDescriptor(&conv));
  CK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
  CK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, S));
  CK(cudnnSetConvolution2dDescriptor(conv, pad, pad, stride, stride, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  int on, oc, oh, ow;
  CK(cudnnGetConvolution2dForwardOutputDim(conv, x, w, &on, &oc, &oh, &ow));
  CK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, on, oc, oh, ow));
  float *dx, *dw, *dy;
  CK(cudaMalloc(&dx, sizeof(float) * N * C * H * W));
  CK(cudaMalloc(&dw, sizeof(float) * K * C * R * S));
  CK(cudaMalloc(&dy, sizeof(float) * on * oc * oh * ow));
  CK(cudaMemset(dx, 0, sizeof(float) * N * C * H * W));
  CK(cudaMemset(dw, 0, sizeof(float) * K * C * R * S));
  double flops = 2.0 * on * oc * oh * ow * C * R * S;
  std::printf("conv N=%d C=%d H=%d W=%d K=%d R=%d S=%d pad=%d stride=%d (%.2f GFLOP)\n", N, C, H, W, K, R, S, pad, stride, flops / 1e9);
  std::printf("%-5s %-8s %12s %12s %10s\n", "algo", "math", "find ms", "median ms", "TFLOP/s");
  double best_fma = 1e30;
  for (cudnnMathType_t math : {CUDNN_FMA_MATH, CUDNN_DEFAULT_MATH}) {
    CK(cudnnSetConvolutionMathType(conv, math));
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int count = 0;
    CK(cudnnFindConvolutionForwardAlgorithm(h, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf));
    for (int i = 0; i < count; ++i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].mathType != math) continue;
      void *ws = nullptr;
      if (perf[i].memory) CK(cudaMalloc(&ws, perf[i].memory));
      const float one = 1, zero = 0;
      cudaEvent_t a, b;
      cudaEventCreate(&a);
      cudaEventCreate(&b);
      std::vector<float> t;
      for (int r = 0; r < 60; ++r) {
        cudaEventRecord(a);
        CK(cudnnConvolutionForward(h, &one, x, dx, w, dw, conv, perf[i].algo, ws, perf[i].memory, &zero, y, dy));
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        if (r >= 10) t.push_back(ms);
      }
      std::sort(t.begin(), t.end());
      double med = t[t.size() / 2];
      if (math == CUDNN_FMA_MATH) best_fma = std::min(best_fma, med);
      std::printf("%-5d %-8s %12.4f %12.4f %10.1f\n", (int)perf[i].algo, math == CUDNN_FMA_MATH ? "fma" : "default", perf[i].time, med, flops / med / 1e9);
      if (ws) cudaFree(ws);
    }
  }
  std::printf("best fp32 FMA algorithm: %.4f ms\n", best_fma);
  return 0;
}
