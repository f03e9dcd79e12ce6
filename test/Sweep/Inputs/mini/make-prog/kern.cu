// Only included by main.cu (needs its NELEM).
__global__ void kern(float *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < NELEM)
    x[i] *= SCALE;
}
