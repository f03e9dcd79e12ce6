// The same two kernels as two_kernels.cu, laid out differently and with
// comments: their AST hashes are the same.
__global__
void saxpy( float* y,   float *x, float a,
            int n )  /* the signature */
{
    int i = blockIdx.x*blockDim.x
          + threadIdx.x;   // one element per thread
    if ( i<n ) y[i] = a*x[i] + y[i];
}

__global__ void negate(float *y, const float *x, int n)
{
  // A comment inside.
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = -x[i];
}
