// The row kernel of rowscale.cu with its launch, for cuda-opt tune
// (test/GPU/measure/fp64-rows.test): the rows of 'out' (cols elements each,
// row r scaled by 2^(r % 20)) are checked one by one against the fp64
// reference.

__global__ void rowscale(float *__restrict__ out, const float *__restrict__ in,
                         int rows, int cols) {
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

void launchRowscale(float *out, const float *in, int rows, int cols) {
  rowscale<<<(rows + 255) / 256, 256>>>(out, in, rows, cols);
}
