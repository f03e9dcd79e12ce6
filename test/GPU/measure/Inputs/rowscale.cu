// Rows of very different magnitudes: row r is centred and scaled by
// 2^(r % 20). As the original (a thread per row), a copy, a correct
// warp-per-row rewrite (another summation order), and a planted bug that
// drops the last term of the mean in the rows of scale 1 only: its error
// (~1e-4) is far below the per-buffer bound set by the rows of scale 2^19
// (2 ulp of 2^19 = 0.125) but far above those rows' own bound.
// test/GPU/measure/fp64-rows.test runs them through the worker and tune.

extern "C" __global__ void original(float *__restrict__ out,
                                    const float *__restrict__ in, int rows,
                                    int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float scale = (float)(1 << (r % 20));
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += in[(size_t)r * cols + j];
    float mean = s / cols;
    for (int j = 0; j < cols; ++j)
      out[(size_t)r * cols + j] = (in[(size_t)r * cols + j] - mean) * scale;
  }
}

// Same operations as the original.
extern "C" __global__ void same(float *__restrict__ out,
                                const float *__restrict__ in, int rows,
                                int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float scale = (float)(1 << (r % 20));
    float s = 0.0f;
    for (int j = 0; j < cols; ++j)
      s += in[(size_t)r * cols + j];
    float mean = s / cols;
    for (int j = 0; j < cols; ++j)
      out[(size_t)r * cols + j] = (in[(size_t)r * cols + j] - mean) * scale;
  }
}

template <bool DropInSmallRows>
__device__ void warpRows(float *out, const float *in, int rows, int cols) {
  int lane = threadIdx.x & 31;
  int warps = gridDim.x * blockDim.x / 32;
  for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
       r += warps) {
    const float *x = in + (size_t)r * cols;
    float scale = (float)(1 << (r % 20));
    int n = DropInSmallRows && r % 20 == 0 ? cols - 1 : cols;
    float s = 0.0f;
    for (int j = lane; j < n; j += 32)
      s += x[j];
    for (int o = 16; o; o >>= 1)
      s += __shfl_xor_sync(0xffffffffu, s, o);
    float mean = s / cols;
    for (int j = lane; j < cols; j += 32)
      out[(size_t)r * cols + j] = (x[j] - mean) * scale;
  }
}

// Correct: the row's sum in another order.
extern "C" __global__ void warp_rows(float *out, const float *in, int rows,
                                     int cols) {
  warpRows<false>(out, in, rows, cols);
}

// Planted: the rows of scale 1 lose their last term.
extern "C" __global__ void drops_in_small_rows(float *out, const float *in,
                                               int rows, int cols) {
  warpRows<true>(out, in, rows, cols);
}
