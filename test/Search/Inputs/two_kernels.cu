// Two kernels: the tuning database of the tests knows saxpy only.
__global__ void saxpy(float *y, float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void negate(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = -x[i];
}

void run(float *y, float *x, int n) {
  saxpy<<<(n + 255) / 256, 256>>>(y, x, 2.0f, n);
  negate<<<(n + 255) / 256, 256>>>(y, x, n);
}
