// two_kernels.cu with one operator of saxpy changed (+ -> -): its hash
// changes, negate's does not.
__global__ void saxpy(float *y, float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] - y[i];
}

__global__ void negate(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = -x[i];
}
