// RUN: cuda-opt --passes='coarsen{factor=4,axis=y}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu

// A 5-point stencil: the row index becomes the first of four consecutive
// rows; a thread whose rows are all below the bound and inside the columns
// runs them without a guard, the others test the whole guard per row.
// CHECK-LABEL: {{^}}__global__ void stencil(
// CHECK-NEXT: {{^}}  int x = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * 4;
// CHECK-NEXT: {{^}}  if (y0 + 3 < h && x < w) {
// CHECK-NEXT: {{^}}#pragma unroll
// CHECK-NEXT: {{^}}    for (int c = 0; c < 4; ++c) {
// CHECK-NEXT: {{^}}      int y = y0 + c;
// CHECK-NEXT: {{^}}      int i = y * w + x;
// CHECK-NEXT: {{^}}      if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
// CHECK-NEXT: {{^}}        out[i] = in[i];
// CHECK-NEXT: {{^}}      else
// CHECK-NEXT: {{^}}        out[i] = 0.5f * in[i] +
// CHECK-NEXT: {{^}}                 0.125f * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}  } else {
// CHECK-NEXT: {{^}}#pragma unroll
// CHECK-NEXT: {{^}}    for (int c = 0; c < 4; ++c) {
// CHECK-NEXT: {{^}}      int y = y0 + c;
// CHECK-NEXT: {{^}}      if (x < w && y < h) {
// CHECK-NEXT: {{^}}        int i = y * w + x;
// CHECK:      {{^}}      }
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
__global__ void stencil(float *out, const float *in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
      out[i] = in[i];
    else
      out[i] = 0.5f * in[i] +
               0.125f * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
  }
}

// Pooling over planes in blockIdx.z: the plane index is the same for all of
// a thread's rows, so it is computed once and joins the row-invariant test;
// grid.z keeps its planes.
// CHECK-LABEL: {{^}}__global__ void pool(
// CHECK:      {{^}}  int ox = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}  const int oy0 = (blockIdx.y * blockDim.y + threadIdx.y) * 4;
// CHECK-NEXT: {{^}}  int p = blockIdx.z;
// CHECK-NEXT: {{^}}  if (oy0 + 3 < oh && ox < ow && p < planes) {
// CHECK-NEXT: {{^}}#pragma unroll
// CHECK-NEXT: {{^}}    for (int c = 0; c < 4; ++c) {
// CHECK-NEXT: {{^}}      int oy = oy0 + c;
// CHECK-NEXT: {{^}}      float m = -1e30f;
// CHECK:      {{^}}  } else {
// CHECK-NEXT: {{^}}#pragma unroll
// CHECK-NEXT: {{^}}    for (int c = 0; c < 4; ++c) {
// CHECK-NEXT: {{^}}      int oy = oy0 + c;
// CHECK-NEXT: {{^}}      if (ox < ow && oy < oh && p < planes) {
__global__ void pool(float *out, const float *in, int planes, int h, int w,
                     int oh, int ow) {
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int p = blockIdx.z;
  if (ox < ow && oy < oh && p < planes) {
    float m = -1e30f;
    for (int ky = 0; ky < 2; ++ky)
      for (int kx = 0; kx < 2; ++kx)
        m = fmaxf(m, in[(p * h + 2 * oy + ky) * w + 2 * ox + kx]);
    out[(p * oh + oy) * ow + ox] = m;
  }
}

// Row index first, operands swapped, an early-return guard with a per-row
// condition left in the guard-free loop, and a return in the work: both
// returns become continue. The column index, declared after the row index,
// is the same for all rows and is computed once. A 64-bit row index starts
// in 64 bits.
// CHECK-LABEL: {{^}}__global__ void blur(
// CHECK-NEXT: {{^}}  const size_t row0 =
// CHECK-NEXT: {{^}}      (static_cast<size_t>(blockIdx.y) * blockDim.y + threadIdx.y) * 4;
// CHECK-NEXT: {{^}}  int col = threadIdx.x + blockIdx.x * blockDim.x;
// CHECK-NEXT: {{^}}  if (row0 + 3 < rows && col < cols) {
// CHECK-NEXT: {{^}}#pragma unroll
// CHECK-NEXT: {{^}}    for (int c = 0; c < 4; ++c) {
// CHECK-NEXT: {{^}}      size_t row = row0 + c;
// CHECK-NEXT: {{^}}      size_t at = row * cols + col;
// CHECK-NEXT: {{^}}      if (row % 2 == 1)
// CHECK-NEXT: {{^}}        continue;
// CHECK-NEXT: {{^}}      if (a[at] == 0.0f)
// CHECK-NEXT: {{^}}        continue;
// CHECK-NEXT: {{^}}      a[at] = 0.5f * (a[at] + b[at + cols]);
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}  } else {
// CHECK-NEXT: {{^}}#pragma unroll
// CHECK-NEXT: {{^}}    for (int c = 0; c < 4; ++c) {
// CHECK-NEXT: {{^}}      size_t row = row0 + c;
// CHECK-NEXT: {{^}}      size_t at = row * cols + col;
// CHECK-NEXT: {{^}}      if (col >= cols || rows <= row || row % 2 == 1)
// CHECK-NEXT: {{^}}        continue;
// CHECK-NEXT: {{^}}      if (a[at] == 0.0f)
// CHECK-NEXT: {{^}}        continue;
__global__ void blur(float *a, const float *b, int cols, size_t rows) {
  size_t row = threadIdx.y + blockDim.y * blockIdx.y;
  int col = threadIdx.x + blockIdx.x * blockDim.x;
  size_t at = row * cols + col;
  if (col >= cols || rows <= row || row % 2 == 1)
    return;
  if (a[at] == 0.0f)
    return;
  a[at] = 0.5f * (a[at] + b[at + cols]);
}

// Launches: a dim3 written in the launch, dim3 variables (also a 3-D one).
// CHECK-LABEL: {{^}}void run(
// CHECK-NEXT: {{^}}  stencil<<<dim3((w + 15) / 16, ((h + 15) / 16 + 3) / 4), dim3(16, 16)>>>(
// CHECK-NEXT: {{^}}      out, in, w, h);
// CHECK-NEXT: {{^}}  dim3 block(16, 16);
// CHECK-NEXT: {{^}}  dim3 grid((w / 2 + 15) / 16, (h / 2 + 15) / 16, 8);
// CHECK-NEXT: {{^}}  pool<<<dim3(grid.x, (grid.y + 3) / 4, grid.z), block>>>(out, in, 8, h, w,
// CHECK-NEXT: {{^}}                                                       h / 2, w / 2);
void run(float *out, const float *in, int w, int h) {
  stencil<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(out, in, w, h);
  dim3 block(16, 16);
  dim3 grid((w / 2 + 15) / 16, (h / 2 + 15) / 16, 8);
  pool<<<grid, block>>>(out, in, 8, h, w, h / 2, w / 2);
}

// CHECK-LABEL: {{^}}void runBlur(
// CHECK: {{^}}  blur<<<dim3(grid.x, (grid.y + 3) / 4, grid.z), block>>>(a, b, n, m);
void runBlur(float *a, const float *b, int n, size_t m) {
  dim3 block(32, 4);
  dim3 grid((n + 31) / 32, (m + 3) / 4);
  blur<<<grid, block>>>(a, b, n, m);
}
