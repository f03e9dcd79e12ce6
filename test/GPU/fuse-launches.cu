// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=strict --passes='fuse-launches' --kernel=scale %s
// RUN: %gpu_equiv --fp-model=strict --passes='fuse-launches' --kernel=square %s
// RUN: %gpu_equiv --fp-model=strict --passes='fuse-launches' --kernel=sq_map %s
// Planted bugs: the fused kernel reads the next element of x, its guard
// drops the last element, and its second part reads the stored
// intermediate of the next thread (a cross-thread dependence fusion must
// never create), and the fused reduction squares the next element.
// RUN: %gpu_equiv --fp-model=strict --kernel=sq_map --plant='(__fmul_rn(x[j], x[j]))=>(__fmul_rn(x[j], x[j + 1 < count ? j + 1 : j]))' --passes='fuse-launches' %s
// RUN: %gpu_equiv --fp-model=strict --kernel=scale --plant='float tmp_i = __fmul_rn(alpha, x[i]);=>float tmp_i = __fmul_rn(alpha, x[i + 1 < n ? i + 1 : i]);' --passes='fuse-launches' %s
// RUN: %gpu_equiv --fp-model=strict --kernel=scale --plant='  if (i < n) {=>  if (i < n - 1) {' --passes='fuse-launches' %s
// RUN: %gpu_equiv --fp-model=strict --kernel=square --plant='      float v = mid[j];=>      float v = mid[j + (j + 1 < count)];' --passes='fuse-launches' %s

// fuse-launches: two back-to-back map launches become one kernel. The
// fused result must equal the two launches' bit for bit (strict) for sizes
// that are and are not multiples of the block, with the dead intermediate kept in a local
// (scale/bias_relu) and with a live one stored (square/add_one).

#include "gpu_check.h"
#include <string>
#include <vector>

__global__ void scale(float *tmp, const float *x, float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    tmp[i] = alpha * x[i];
}

__global__ void bias_relu(float *y, const float *tmp, float beta, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = tmp[i] + beta;
  y[i] = v > 0.0f ? v : 0.0f;
}

__global__ void square(float *mid, const float *x, int count) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < count) {
    float v = x[j];
    mid[j] = v * v;
  }
}

__global__ void add_one(float *out, const float *mid, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count) {
    float v = mid[k];
    out[k] = v + 1.0f;
  }
}

// Map -> consumer: a block tree sum of the squares, one sum per block
// (deterministic, so strict applies).
__global__ void sq_map(float *sq, const float *x, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    sq[i] = x[i] * x[i];
}

__global__ void block_tree(float *sums, const float *in, int count) {
  __shared__ float part[256];
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  part[threadIdx.x] = j < count ? in[j] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    sums[blockIdx.x] = part[0];
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int Max = (1 << 20) + 77;
  std::vector<float> In(Max), Out(Max), Mid(Max);
  gpu_check::fill_uniform(In.data(), Max, Seed, -4.0f, 4.0f);
  float *x, *y, *tmp, *mid, *out, *sq, *sums;
  GPU_CHECK(cudaMalloc(&sq, Max * sizeof(float)));
  GPU_CHECK(cudaMalloc(&sums, Max * sizeof(float)));
  GPU_CHECK(cudaMalloc(&x, Max * sizeof(float)));
  GPU_CHECK(cudaMalloc(&y, Max * sizeof(float)));
  GPU_CHECK(cudaMalloc(&tmp, Max * sizeof(float)));
  GPU_CHECK(cudaMalloc(&mid, Max * sizeof(float)));
  GPU_CHECK(cudaMalloc(&out, Max * sizeof(float)));
  GPU_CHECK(cudaMemcpy(x, In.data(), Max * sizeof(float), cudaMemcpyHostToDevice));
  for (int n : {Max, 1 << 20, 1000, 1}) {
    GPU_CHECK(cudaMemset(y, 0, Max * sizeof(float)));
    GPU_CHECK(cudaMemset(out, 0, Max * sizeof(float)));
    GPU_CHECK(cudaMemset(mid, 0, Max * sizeof(float)));
    float alpha = 1.5f, beta = -0.25f;
    scale<<<(n + 255) / 256, 256>>>(tmp, x, alpha, n);
    bias_relu<<<(n + 255) / 256, 256>>>(y, tmp, beta, n);
    gpu_check::check_launch("scale/bias_relu");
    int count = n, blocks = (n + 127) / 128;
    square<<<blocks, 128>>>(mid, x, count);
    add_one<<<blocks, 128>>>(out, mid, count);
    gpu_check::check_launch("square/add_one");
    GPU_CHECK(cudaMemcpy(Out.data(), y, Max * sizeof(float), cudaMemcpyDeviceToHost));
    std::string Name = "y_n" + std::to_string(n);
    gpu_check::dump(argc, argv, Name.c_str(), Out.data(), Max);
    GPU_CHECK(cudaMemcpy(Out.data(), out, Max * sizeof(float), cudaMemcpyDeviceToHost));
    Name = "out_n" + std::to_string(n);
    gpu_check::dump(argc, argv, Name.c_str(), Out.data(), Max);
    GPU_CHECK(cudaMemcpy(Mid.data(), mid, Max * sizeof(float), cudaMemcpyDeviceToHost));
    Name = "mid_n" + std::to_string(n);
    gpu_check::dump(argc, argv, Name.c_str(), Mid.data(), Max);
    GPU_CHECK(cudaMemset(sums, 0, Max * sizeof(float)));
    sq_map<<<(n + 255) / 256, 256>>>(sq, x, count);
    block_tree<<<(n + 255) / 256, 256>>>(sums, sq, count);
    gpu_check::check_launch("sq_map/block_tree");
    GPU_CHECK(cudaMemcpy(Out.data(), sums, Max * sizeof(float), cudaMemcpyDeviceToHost));
    Name = "sums_n" + std::to_string(n);
    gpu_check::dump(argc, argv, Name.c_str(), Out.data(), (n + 255) / 256);
  }
  GPU_CHECK(cudaFree(tmp));
  GPU_CHECK(cudaFree(sq));
  return 0;
}
