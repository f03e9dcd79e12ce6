// RUN: cuda-opt --passes='tile-transpose' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// RUN: cuda-opt --passes='tile-transpose{tile=64,pad=0,rows=16}' --kernel=transpose %s | FileCheck %s --check-prefix=T64
// RUN: cuda-opt --passes='tile-transpose' --kernel=transpose %s --emit=report 2>&1 | FileCheck %s --check-prefix=REPORT

#include <cuda_fp16.h>
#include <cstddef>

// CHECK-LABEL: {{^}}__global__ void transpose(
// CHECK-NEXT: {{^}}  // tile-transpose: each block stages a 32x32 tile of (x, y) in shared memory,
// CHECK: {{^}}  __shared__ float tile[32][32 + 1];
// CHECK-NEXT: {{^}}  // Compute each element with threadIdx.x along x.
// CHECK-NEXT: {{^}}  for (int r = 0; r < 32; r += 8) {
// CHECK-NEXT: {{^}}    int x = blockIdx.x * 32 + threadIdx.x;
// CHECK-NEXT: {{^}}    int y = blockIdx.y * 32 + (threadIdx.y + r);
// CHECK-NEXT: {{^}}    if (x < w && y < h)
// CHECK-NEXT: {{^}}      tile[threadIdx.y + r][threadIdx.x] = in[y * w + x];
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}  __syncthreads();
// CHECK-NEXT: {{^}}  // Store each element with threadIdx.x along y.
// CHECK-NEXT: {{^}}  for (int r = 0; r < 32; r += 8) {
// CHECK-NEXT: {{^}}    int x = blockIdx.x * 32 + (threadIdx.y + r);
// CHECK-NEXT: {{^}}    int y = blockIdx.y * 32 + threadIdx.x;
// CHECK-NEXT: {{^}}    if (x < w && y < h)
// CHECK-NEXT: {{^}}      out[x * h + y] = tile[threadIdx.x][threadIdx.y + r];
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}

// The loads run along r (y), the store along c (x); the user's 'r' makes the
// loop counter 'r2'; 64-bit indices start from a widened blockIdx.
// CHECK-LABEL: {{^}}__global__ void gather(
// CHECK: {{^}}  __shared__ int tile[32][32 + 1];
// CHECK-NEXT: {{^}}  // Compute each element with threadIdx.x along r.
// CHECK-NEXT: {{^}}  for (int r2 = 0; r2 < 32; r2 += 8) {
// CHECK-NEXT: {{^}}    size_t c = static_cast<size_t>(blockIdx.x) * 32 + (threadIdx.y + r2);
// CHECK-NEXT: {{^}}    size_t r = static_cast<size_t>(blockIdx.y) * 32 + threadIdx.x;
// CHECK-NEXT: {{^}}    if (c >= cols || r >= rows)
// CHECK-NEXT: {{^}}      continue;
// CHECK-NEXT: {{^}}    tile[threadIdx.x][threadIdx.y + r2] = in[c * rows + r];
// CHECK: {{^}}  __syncthreads();
// CHECK-NEXT: {{^}}  // Store each element with threadIdx.x along c.
// CHECK: {{^}}    if (c >= cols || r >= rows)
// CHECK-NEXT: {{^}}      continue;
// CHECK-NEXT: {{^}}    out[r * cols + c] = tile[threadIdx.y + r2][threadIdx.x];

// CHECK-LABEL: {{^}}__global__ void scaleT(
// CHECK: {{^}}  __shared__ __half tile[32][32 + 1];
// CHECK: {{^}}    if (x < w && y < h) {
// CHECK-NEXT: {{^}}      float v = in[y * w + x] * s;
// CHECK-NEXT: {{^}}      tile[threadIdx.y + r][threadIdx.x] = __float2half(v);
// CHECK-NEXT: {{^}}    }
// CHECK: {{^}}      out[x * h + y] = tile[threadIdx.x][threadIdx.y + r];

// CHECK-LABEL: {{^}}__global__ void transposeRC(
// CHECK: {{^}}  __shared__ double tile[32][32 + 1];
// CHECK-NEXT: {{^}}  // Compute each element with threadIdx.x along col.
// CHECK-NEXT: {{^}}  for (int r = 0; r < 32; r += 8) {
// CHECK-NEXT: {{^}}    int col = blockIdx.x * 32 + threadIdx.x;
// CHECK-NEXT: {{^}}    int row = blockIdx.y * 32 + (threadIdx.y + r);
// CHECK-NEXT: {{^}}    if (row < rows && col < cols)
// CHECK-NEXT: {{^}}      tile[threadIdx.y + r][threadIdx.x] = in[row * cols + col];
// CHECK: {{^}}      out[col * rows + row] = tile[threadIdx.x][threadIdx.y + r];

// CHECK-LABEL: {{^}}void run(
// CHECK: {{^}}  transpose<<<dim3((w + 31) / 32, (h + 31) / 32), dim3(32, 8)>>>(out, in, w, h);
// CHECK-NEXT: {{^}}  gather<<<dim3((cols + 31) / 32, (rows + 31) / 32), dim3(32, 8)>>>(oi, ii,
// CHECK: {{^}}  scaleT<<<dim3((w + 31) / 32, (h + 31) / 32), dim3(32, 8)>>>(oh, in, 0.5f, w,
// CHECK: {{^}}  transposeRC<<<dim3((w + 31) / 32, (h + 31) / 32), dim3(32, 8)>>>(od, id, h,

// T64: {{^}}  __shared__ float tile[64][64];
// T64: {{^}}  for (int r = 0; r < 64; r += 16) {
// T64: {{^}}  transpose<<<dim3((w + 63) / 64, (h + 63) / 64), dim3(64, 16)>>>(out, in, w,

// REPORT: note: tile-transpose: kernel 'transpose': the store 'out[x * h + y]' is contiguous in y and steps by 'h' along x, at least the bound 'h' of y, so each (x, y) stores its own element; the load 'in[y * w + x]' is contiguous in x
// REPORT: tile-transpose{tile=32,pad=1,rows=8} on transpose: applied

// The naive transpose: in is h rows of w, out is w rows of h.
__global__ void transpose(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}

// The other way round: the store is coalesced, the load strided; an
// early-return guard, 64-bit indices.
__global__ void gather(int *out, const int *in, size_t rows, size_t cols) {
  size_t c = blockIdx.x * blockDim.x + threadIdx.x;
  size_t r = blockIdx.y * blockDim.y + threadIdx.y;
  if (c >= cols || r >= rows)
    return;
  out[r * cols + c] = in[c * rows + r];
}

// Work beyond a copy: a local, a conversion and a scale by a parameter.
__global__ void scaleT(__half *out, const float *in, float s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float v = in[y * w + x] * s;
    out[x * h + y] = __float2half(v);
  }
}

// Row and column declared y first; double elements.
__global__ void transposeRC(double *out, const double *in, int rows,
                            int cols) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows && col < cols)
    out[col * rows + row] = in[row * cols + col];
}

void run(float *out, const float *in, int w, int h, int *oi, const int *ii,
         size_t rows, size_t cols, __half *oh, double *od, const double *id) {
  dim3 block(16, 16);
  dim3 grid((w + 15) / 16, (h + 15) / 16);
  transpose<<<grid, block>>>(out, in, w, h);
  gather<<<dim3((cols + 31) / 32, (rows + 7) / 8), dim3(32, 8)>>>(oi, ii, rows,
                                                                  cols);
  scaleT<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(oh, in, 0.5f, w,
                                                               h);
  transposeRC<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(od, id, h,
                                                                    w);
}
