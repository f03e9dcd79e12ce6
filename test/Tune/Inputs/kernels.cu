__global__ void scale(float *out, const float *in, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = s * in[i];
}

template <typename T> __global__ void tscale(T *out, const T *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + in[i];
}

struct Pair { float a, b; };
__global__ void pairs(Pair *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i].a = p[i].b;
}

void run(float *out, const float *in, int n) {
  scale<<<(n + 255) / 256, 256>>>(out, in, 2.0f, n);
}
