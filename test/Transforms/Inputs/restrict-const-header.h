// A prototype of a kernel defined in restrict-const-illegal.cu.
__global__ void in_header(float *dst, float *src);
