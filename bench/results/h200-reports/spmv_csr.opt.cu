// spmv_csr.cu - y = A * x for an 8M x 8M sparse matrix in CSR format with 8 to
// 24 non-zeros per row (~134M in all), one thread per row.
#define CORPUS_NAME "spmv_csr"
#define CORPUS_SEED 0x428a2f98u
#include "corpus_common.h"

__global__ void spmv_csr(float *y, const int *row_ptr, const int *col_idx,
                         const float *vals, const float *x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float sum = 0.0f;
    for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j)
      sum += vals[j] * x[col_idx[j]];
    y[row] = sum;
  }
}

int main() {
  const int rows = 1 << 23, cols = 1 << 23;
  std::vector<int> hptr(rows + 1);
  hptr[0] = 0;
  for (int r = 0; r < rows; ++r)
    hptr[r + 1] = hptr[r] + 8 + (int)(urand() % 17);
  const int nnz = hptr[rows];
  std::vector<int> hcol(nnz);
  std::vector<float> hval(nnz), hx(cols), hy(rows);
  for (int r = 0; r < rows; ++r)
    for (int j = hptr[r]; j < hptr[r + 1]; ++j) {
      // Mostly near the diagonal, some anywhere (as in a mesh with a few
      // long-range couplings).
      uint32_t u = urand();
      int c = (u & 3) == 0 ? (int)(urand() % cols)
                           : r + (int)(urand() % 4097) - 2048;
      hcol[j] = c < 0 ? c + cols : c >= cols ? c - cols : c;
      hval[j] = frand(-1.0f, 1.0f);
    }
  fill_uniform(hx, -2.0f, 2.0f);
  int *ptr, *col;
  float *val, *x, *y;
  CK(cudaMalloc(&ptr, (rows + 1) * sizeof(int)));
  CK(cudaMalloc(&col, (size_t)nnz * sizeof(int)));
  CK(cudaMalloc(&val, (size_t)nnz * sizeof(float)));
  CK(cudaMalloc(&x, cols * sizeof(float)));
  CK(cudaMalloc(&y, rows * sizeof(float)));
  CK(cudaMemcpy(ptr, hptr.data(), (rows + 1) * sizeof(int),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(col, hcol.data(), (size_t)nnz * sizeof(int),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(val, hval.data(), (size_t)nnz * sizeof(float),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(x, hx.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
  spmv_csr<<<(rows + 1023) / 1024, 1024>>>(y, ptr, col, val, x, rows);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hy.data(), y, rows * sizeof(float), cudaMemcpyDeviceToHost));
  long long bad = 0;
  for (int r = 0; r < rows; ++r) {
    double ref = 0, mag = 0;
    for (int j = hptr[r]; j < hptr[r + 1]; ++j) {
      double p = (double)hval[j] * hx[hcol[j]];
      ref += p;
      mag += std::fabs(p);
    }
    bad += !(std::fabs(hy[r] - ref) <= 1e-5 * mag + 1e-6);
  }
  CK(cudaFree(ptr));
  CK(cudaFree(col));
  CK(cudaFree(val));
  CK(cudaFree(x));
  CK(cudaFree(y));
  if (bad) {
    std::printf("spmv_csr: FAILED (%lld of %d rows wrong)\n", bad, rows);
    return 1;
  }
  std::printf("spmv_csr: ok\n");
  return 0;
}
