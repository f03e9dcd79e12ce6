// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=32,vec=1,cache=16,scale-grid=1}' %s
// RUN: %gpu_equiv --fp-model=reassoc --passes='cooperative-rows{lanes=16,vec=1,cache=32}' %s
// Planted bugs, each caught only if its path runs: a column swapped in the
// conversion (every cached row), the alignment test made true for the
// buffers one element in (their rows must take the uncached form), and the
// row's last vector not stored.
// RUN: %gpu_equiv --fp-model=reassoc --plant='__half2float(inVecs[k / 8].v[k % 8])=>__half2float(inVecs[k / 8].v[(k + 1) % 8])' --passes='cooperative-rows{lanes=32,vec=1,cache=16,scale-grid=1}' %s
// RUN: %gpu_equiv --fp-model=reassoc --plant='if (cols <= 512 &&=>if (cols == 512 ||' --passes='cooperative-rows{lanes=32,vec=1,cache=16,scale-grid=1}' %s
// RUN: %gpu_equiv --fp-model=reassoc --plant='if (j0 >= cols)=>if (j0 >= cols - 8)' --passes='cooperative-rows{lanes=32,vec=1,cache=16,scale-grid=1}' %s

// vec=1 with cache=S holds a 16-bit row as vectors of 8 consecutive
// columns. The same softmax runs on rows of 512 columns (every row aligned),
// on the same rows one element into the buffers (no row aligned: the
// uncached form), on rows of 264 columns
// (a whole number of vectors that leaves lanes without a second one) and on
// rows of 700 columns (not a whole number of vectors: the uncached form).
// Each output is compared against an fp64 reference of the original.

#include "gpu_check.h"
#include <cmath>
#include <string>
#include <vector>

__global__ void softmax_fp16(__half *__restrict__ out,
                             const __half *__restrict__ in, int rows,
                             int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float m = __half2float(in[r * cols]);
    for (int j = 1; j < cols; ++j)
      m = fmaxf(m, __half2float(in[r * cols + j]));
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j)
      sum += expf(__half2float(in[r * cols + j]) - m);
    for (int j = 0; j < cols; ++j)
      out[r * cols + j] =
          __float2half(expf(__half2float(in[r * cols + j]) - m) / sum);
  }
}

// Runs softmax over rows x cols starting Offset elements into the buffers
// and dumps the output and its fp64 reference as Name and Name.fp64.
static void runCase(int argc, char **argv, const char *Name, int rows,
                    int cols, int Offset, unsigned Seed) {
  const size_t total = (size_t)rows * cols;
  std::vector<float> InF(total);
  gpu_check::fill_uniform(InF.data(), total, Seed, -4.0f, 4.0f);
  std::vector<__half> InH(total + Offset);
  for (size_t K = 0; K < total; ++K)
    InH[Offset + K] = __float2half(InF[K]);
  __half *DIn, *DOut;
  GPU_CHECK(cudaMalloc(&DIn, (total + Offset) * sizeof(__half)));
  GPU_CHECK(cudaMalloc(&DOut, (total + Offset) * sizeof(__half)));
  GPU_CHECK(cudaMemcpy(DIn, InH.data(), (total + Offset) * sizeof(__half),
                       cudaMemcpyHostToDevice));
  softmax_fp16<<<(rows + 255) / 256, 256>>>(DOut + Offset, DIn + Offset, rows,
                                            cols);
  gpu_check::check_launch(Name);
  std::vector<__half> OutH(total);
  GPU_CHECK(cudaMemcpy(OutH.data(), DOut + Offset, total * sizeof(__half),
                       cudaMemcpyDeviceToHost));
  std::vector<float> Out(total);
  std::vector<double> Ref(total);
  for (int R = 0; R < rows; ++R) {
    const __half *Row = InH.data() + Offset + (size_t)R * cols;
    double M = __half2float(Row[0]), Sum = 0;
    for (int J = 1; J < cols; ++J)
      M = std::fmax(M, (double)__half2float(Row[J]));
    for (int J = 0; J < cols; ++J)
      Sum += std::exp(__half2float(Row[J]) - M);
    for (int J = 0; J < cols; ++J) {
      Ref[(size_t)R * cols + J] = std::exp(__half2float(Row[J]) - M) / Sum;
      Out[(size_t)R * cols + J] = __half2float(OutH[(size_t)R * cols + J]);
    }
  }
  std::string RefName = std::string(Name) + ".fp64";
  gpu_check::dump(argc, argv, Name, Out.data(), total);
  gpu_check::dump(argc, argv, RefName.c_str(), Ref.data(), total);
  GPU_CHECK(cudaFree(DIn));
  GPU_CHECK(cudaFree(DOut));
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  runCase(argc, argv, "aligned", 1000, 512, 0, Seed);
  runCase(argc, argv, "unaligned", 1000, 512, 1, Seed + 1);
  runCase(argc, argv, "short", 999, 264, 0, Seed + 2);
  runCase(argc, argv, "odd", 333, 700, 0, Seed + 3);
  return 0;
}
