// REQUIRES: cuda-device
// RUN: %gpu_equiv --fp-model=strict --passes=cub-segmented-reduce --kernel=row_max %s
// RUN: %gpu_equiv --fp-model=strict --passes=cub-segmented-reduce --kernel=seg_count %s
// RUN: %gpu_equiv --fp-model=reassoc --passes=cub-segmented-reduce --kernel=seg_sum %s
// RUN: %gpu_equiv --fp-model=reassoc --passes=cub-segmented-reduce --kernel=seg_fmin %s
// Planted bugs: rows one element short, the maximum for the minimum, and
// (floats) the first sum zeroed.
// RUN: %gpu_equiv --fp-model=strict --kernel=row_max --plant='cudaopt_segred_rows.len = cols;=>cudaopt_segred_rows.len = cols - 1;' --passes=cub-segmented-reduce %s
// RUN: %gpu_equiv --fp-model=reassoc --kernel=seg_fmin --plant='return fminf(a, b);=>return fmaxf(a, b);' --passes=cub-segmented-reduce %s
// RUN: %gpu_equiv --fp-model=reassoc --kernel=seg_sum --plant='cudaFreeAsync(cudaopt_segred_temp, 0);=>cudaFreeAsync(cudaopt_segred_temp, 0); cudaMemsetAsync(out, 0, 4, 0);' --passes=cub-segmented-reduce %s

// cub-segmented-reduce: integer maxima and sums bit for bit, float sums
// within the reassoc rule of an fp64 host reference, float minima (fminf,
// NaNs among the data) as the original, on segments of random lengths with
// empty ones among them, and rows of 1, 7 and 5000 elements.

#include "gpu_check.h"
#include <cmath>
#include <string>
#include <vector>

#define CK(call)                                                               \
  do {                                                                         \
    if ((call) != cudaSuccess)                                                 \
      return 1;                                                                \
  } while (0)

__global__ void row_max(const int *__restrict__ in, int *__restrict__ out,
                        int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  int m = -2147483647 - 1;
  for (int j = 0; j < cols; ++j)
    m = max(m, in[r * cols + j]);
  out[r] = m;
}

static int row_maxima(const int *x, int *y, int rows, int cols) {
  row_max<<<(rows + 255) / 256, 256>>>(x, y, rows, cols);
  CK(cudaGetLastError());
  return 0;
}

__global__ void seg_count(const unsigned *__restrict__ vals,
                          const int *__restrict__ rowptr,
                          unsigned *__restrict__ sums, int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    unsigned c = 1u;
    for (int j = rowptr[s]; j < rowptr[s + 1]; ++j)
      c = c + vals[j];
    sums[s] = c;
  }
}

static void count_rows(const unsigned *vals, const int *rowptr,
                       unsigned *sums, int n) {
  seg_count<<<(n + 255) / 256, 256>>>(vals, rowptr, sums, n);
}

__global__ void seg_sum(const float *__restrict__ in,
                        const int *__restrict__ offsets,
                        float *__restrict__ out, int nseg) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < nseg) {
    float acc = 0.0f;
    for (int j = offsets[s]; j < offsets[s + 1]; ++j)
      acc += in[j];
    out[s] = acc;
  }
}

static void csr_sums(const float *in, const int *off, float *out, int nseg) {
  seg_sum<<<(nseg + 127) / 128, 128>>>(in, off, out, nseg);
}

__global__ void seg_fmin(const float *__restrict__ in,
                         const long long *__restrict__ begin,
                         const long long *__restrict__ end,
                         float *__restrict__ out, int n) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < n) {
    long long b = begin[s], e = end[s];
    float m = INFINITY;
    for (long long j = b; j < e; j++)
      m = fminf(m, in[j]);
    out[s] = m;
  }
}

static void minima(const float *v, const long long *starts,
                   const long long *ends, float *m, int k) {
  seg_fmin<<<(k + 255) / 256, 256>>>(v, starts, ends, m, k);
}

int main(int argc, char **argv) {
  unsigned Seed = gpu_check::seed(argc, argv);
  const int Segments = 20000, MaxLen = 600;
  // Segment lengths 0..MaxLen, one in eight empty.
  std::vector<int> Len(Segments), Off(Segments + 1, 0);
  gpu_check::fill_uniform(Len.data(), Segments, Seed, -MaxLen / 7, MaxLen);
  for (int S = 0; S < Segments; ++S)
    Off[S + 1] = Off[S] + (Len[S] > 0 ? Len[S] : 0);
  const int Total = Off[Segments] + 5000 * 7;
  std::vector<int> Ints(Total);
  std::vector<float> Floats(Total);
  gpu_check::fill_uniform(Ints.data(), Total, Seed + 1, -1 << 30, 1 << 30);
  gpu_check::fill_uniform(Floats.data(), Total, Seed + 2, -1.0f, 1.0f);
  for (int I = 0; I < Total; I += 997)
    Floats[I] = NAN;
  std::vector<long long> Begin(Segments), End(Segments);
  for (int S = 0; S < Segments; ++S) {
    // Even segments end half-way: begin and end arrays need not be one
    // offsets array.
    Begin[S] = Off[S];
    End[S] = S % 2 ? Off[S + 1] : Off[S] + (Off[S + 1] - Off[S]) / 2;
  }
  int *ints, *off, *iout;
  unsigned *uout;
  float *floats, *fout;
  long long *begin, *end;
  GPU_CHECK(cudaMalloc(&ints, Total * sizeof(int)));
  GPU_CHECK(cudaMalloc(&floats, Total * sizeof(float)));
  GPU_CHECK(cudaMalloc(&off, (Segments + 1) * sizeof(int)));
  GPU_CHECK(cudaMalloc(&begin, Segments * sizeof(long long)));
  GPU_CHECK(cudaMalloc(&end, Segments * sizeof(long long)));
  GPU_CHECK(cudaMalloc(&iout, Total * sizeof(int)));
  GPU_CHECK(cudaMalloc(&uout, Segments * sizeof(unsigned)));
  GPU_CHECK(cudaMalloc(&fout, Segments * sizeof(float)));
  GPU_CHECK(cudaMemcpy(ints, Ints.data(), Total * sizeof(int),
                       cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(floats, Floats.data(), Total * sizeof(float),
                       cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(off, Off.data(), (Segments + 1) * sizeof(int),
                       cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(begin, Begin.data(), Segments * sizeof(long long),
                       cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemcpy(end, End.data(), Segments * sizeof(long long),
                       cudaMemcpyHostToDevice));
  std::vector<int> OutI(Total);
  std::vector<float> OutF(Segments);
  std::vector<double> Ref(Segments);

  const int Shapes[][2] = {{Total, 1}, {Total / 7, 7}, {7, 5000}};
  for (const auto &Shape : Shapes) {
    GPU_CHECK(cudaMemset(iout, 0x5a, Total * sizeof(int)));
    if (row_maxima(ints, iout, Shape[0], Shape[1]))
      return 1;
    GPU_CHECK(cudaMemcpy(OutI.data(), iout, Total * sizeof(int),
                         cudaMemcpyDeviceToHost));
    std::string Name = "rowmax_" + std::to_string(Shape[0]) + "x" +
                       std::to_string(Shape[1]);
    gpu_check::dump(argc, argv, Name.c_str(), OutI.data(), Total);
  }

  GPU_CHECK(cudaMemset(uout, 0x5a, Segments * sizeof(unsigned)));
  count_rows(reinterpret_cast<const unsigned *>(ints), off, uout, Segments);
  GPU_CHECK(cudaMemcpy(OutI.data(), uout, Segments * sizeof(unsigned),
                       cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, "counts", OutI.data(), Segments);

  // Float sums without the NaNs (the fp64 reference is per segment).
  std::vector<float> Clean(Floats);
  for (float &F : Clean)
    if (std::isnan(F))
      F = 0.25f;
  float *clean;
  GPU_CHECK(cudaMalloc(&clean, Total * sizeof(float)));
  GPU_CHECK(cudaMemcpy(clean, Clean.data(), Total * sizeof(float),
                       cudaMemcpyHostToDevice));
  GPU_CHECK(cudaMemset(fout, 0, Segments * sizeof(float)));
  csr_sums(clean, off, fout, Segments);
  GPU_CHECK(cudaGetLastError());
  GPU_CHECK(cudaMemcpy(OutF.data(), fout, Segments * sizeof(float),
                       cudaMemcpyDeviceToHost));
  for (int S = 0; S < Segments; ++S) {
    double Acc = 0;
    for (int J = Off[S]; J < Off[S + 1]; ++J)
      Acc += Clean[J];
    Ref[S] = Acc;
  }
  gpu_check::dump(argc, argv, "sums", OutF.data(), Segments);
  gpu_check::dump(argc, argv, "sums.fp64", Ref.data(), Segments);

  GPU_CHECK(cudaMemset(fout, 0, Segments * sizeof(float)));
  minima(floats, begin, end, fout, Segments);
  GPU_CHECK(cudaGetLastError());
  GPU_CHECK(cudaMemcpy(OutF.data(), fout, Segments * sizeof(float),
                       cudaMemcpyDeviceToHost));
  gpu_check::dump(argc, argv, "minima", OutF.data(), Segments);
  GPU_CHECK(cudaDeviceSynchronize());
  return 0;
}
