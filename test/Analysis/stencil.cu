// RUN: cuda-opt --analyze %s --kernel jacobi --json | FileCheck %s --check-prefix=JACOBI
// RUN: cuda-opt --analyze %s --kernel stencil_1d --json | FileCheck %s --check-prefix=SHARED
// RUN: cuda-opt --analyze %s --kernel conv1d --json | FileCheck %s --check-prefix=CONV

// Five-point Jacobi update on a 2-D grid.
__global__ void jacobi(const float *in, float *out, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1)
    out[j * nx + i] = 0.25f * (in[j * nx + i - 1] + in[j * nx + i + 1] +
                               in[(j - 1) * nx + i] + in[(j + 1) * nx + i]);
}

// 1-D three-point stencil through a shared tile with halo.
#define RADIUS 1
#define BLOCK 128
__global__ void stencil_1d(const float *in, float *out, int n) {
  __shared__ float tile[BLOCK + 2 * RADIUS];
  int g = blockIdx.x * BLOCK + threadIdx.x;
  int l = threadIdx.x + RADIUS;
  tile[l] = in[g];
  if (threadIdx.x < RADIUS) {
    tile[l - RADIUS] = g >= RADIUS ? in[g - RADIUS] : 0.0f;
    tile[l + BLOCK] = g + BLOCK < n ? in[g + BLOCK] : 0.0f;
  }
  __syncthreads();
  out[g] = tile[l - 1] + tile[l] + tile[l + 1];
}

// Convolution written as a loop over the filter taps.
#define TAPS 7
__global__ void conv1d(const float *in, const float *w, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - TAPS)
    return;
  float acc = 0.0f;
  for (int t = 0; t < TAPS; ++t)
    acc += in[i + t] * w[t];
  out[i] = acc;
}

// JACOBI:     "idiom": {
// JACOBI-NEXT:  "evidence": "4 reads of 'in' at constant offsets from the same point: in[j * nx + i - 1], in[j * nx + i + 1], in[(j - 1) * nx + i], in[(j + 1) * nx + i]",
// JACOBI-NEXT:  "kind": "stencil"

// SHARED:     "index_form": "128*blockIdx.x + threadIdx.x - 1",
// SHARED:     "text": "in[g - RADIUS]"
// SHARED:     "idiom": {
// SHARED-NEXT:  "evidence": "3 reads of 'tile' at constant offsets from the same point: tile[l - 1], tile[l], tile[l + 1]",
// SHARED-NEXT:  "kind": "stencil"
// SHARED:       "bytes": 520,
// SHARED:       "name": "g",
// SHARED-NEXT:  "role": "global linear index x (block size 128)",

// CONV:       "idiom": {
// CONV-NEXT:    "evidence": "'acc += in[i + t] * w[t]' in the loop over 't' (line 37): 'in[i + t]' slides with the loop (convolution window)",
// CONV-NEXT:    "kind": "stencil"
// CONV:         "trip_count": 7,
