// examples/relu_lib.cu - a library kernel with no driver program: tune it in
// spec mode with relu_lib.tune.json.
__global__ void relu(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}
