// examples/stencil_lib.cu - a 5-point Jacobi step on a w x h grid, as a
// library kernel; tune it in spec mode with stencil_lib.tune.json.
__global__ void jacobi5(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1)
    return;
  int i = y * w + x;
  out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
}
