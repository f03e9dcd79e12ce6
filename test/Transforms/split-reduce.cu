// RUN: cuda-opt --passes='split-reduce{ways=16,block-x=32}' %s -o %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile %t.cu
// Integer reductions are exact in any order, so strict allows them.
// RUN: cuda-opt --fp-model=strict --passes='split-reduce{ways=8,block-x=32}' --kernel=colcount %s -o - | FileCheck %s --check-prefix=STRICT

// Column reductions, one thread per column: 16 thread rows of a block
// split each column's loop into contiguous chunks; thread row 0 combines
// the partials in chunk order and stores.

// CHECK-LABEL: {{^}}__global__ void gemv_t(
// CHECK: {{^}}  int c = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}  // cuda-opt split-reduce{ways=16,block-x=32}: the 16 thread rows of a block
// CHECK-NEXT: {{^}}  // (threadIdx.y) split the loop over 'r' into 16 contiguous chunks;
// CHECK-NEXT: {{^}}  // the partial results meet in shared memory, and thread row 0 combines
// CHECK-NEXT: {{^}}  // them in chunk order and does the rest.
// CHECK-NEXT: {{^}}  const int way = threadIdx.y;
// CHECK-NEXT: {{^}}  __shared__ float sumParts[16][32];
// CHECK-NEXT: {{^}}  float sum;       // declared here: read after the barrier
// CHECK-NEXT: {{^}}  int rChunks = 0; // chunks with at least one iteration
// CHECK-NEXT: {{^}}  if (c < cols) {
// CHECK-NEXT: {{^}}    sum = 0.0f;
// CHECK-NEXT: {{^}}    // Thread row 'way' runs iterations [rLo, rHi): chunk 'way' of 16 contiguous
// CHECK-NEXT: {{^}}    // chunks of ceil(trip / 16) iterations.
// CHECK-NEXT: {{^}}    const int rEnd = rows;
// CHECK-NEXT: {{^}}    const int rTrip = rEnd > 0 ? rEnd : 0;
// CHECK-NEXT: {{^}}    const int rChunk = (rTrip + 15) / 16;
// CHECK-NEXT: {{^}}    rChunks = rChunk > 0 ? (rTrip + rChunk - 1) / rChunk : 0;
// CHECK-NEXT: {{^}}    const int rLo = way * rChunk;
// CHECK-NEXT: {{^}}    const int rHi = rLo + rChunk < rEnd ? rLo + rChunk : rEnd;
// CHECK-NEXT: {{^}}    for (int r = rLo; r < rHi; ++r)
// CHECK-NEXT: {{^}}      sum += A[r * cols + c] * x[r];
// CHECK-NEXT: {{^}}    sumParts[way][threadIdx.x] = sum;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}  __syncthreads(); // every thread of the block, in range or not
// CHECK-NEXT: {{^}}  if (way == 0 && c < cols) {
// CHECK-NEXT: {{^}}#pragma unroll
// CHECK-NEXT: {{^}}    for (int part = 1; part < 16; ++part)
// CHECK-NEXT: {{^}}      if (part < rChunks)
// CHECK-NEXT: {{^}}        sum += sumParts[part][threadIdx.x];
// CHECK-NEXT: {{^}}    y[c] = sum;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
__global__ void gemv_t(float *y, const float *A, const float *x, int rows,
                       int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r)
      sum += A[r * cols + c] * x[r];
    y[c] = sum;
  }
}

// CHECK-LABEL: {{^}}__global__ void colmax(
// CHECK: {{^}}  int c = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}  // cuda-opt split-reduce{ways=16,block-x=32}: the 16 thread rows of a block
// CHECK-NEXT: {{^}}  // (threadIdx.y) split the loop over 'r' into 16 contiguous chunks;
// CHECK-NEXT: {{^}}  // the partial results meet in shared memory, and thread row 0 combines
// CHECK-NEXT: {{^}}  // them in chunk order and does the rest.
// CHECK-NEXT: {{^}}  const int way = threadIdx.y;
// CHECK-NEXT: {{^}}  __shared__ float mParts[16][32];
// CHECK-NEXT: {{^}}  float m;         // declared here: read after the barrier
// CHECK-NEXT: {{^}}  int rChunks = 0; // chunks with at least one iteration
// CHECK-NEXT: {{^}}  if (c < cols) {
// CHECK-NEXT: {{^}}    m = in[c];
// CHECK-NEXT: {{^}}    // Thread row 'way' runs iterations [rLo, rHi): chunk 'way' of 16 contiguous
// CHECK-NEXT: {{^}}    // chunks of ceil(trip / 16) iterations.
// CHECK-NEXT: {{^}}    const int rBegin = 1;
// CHECK-NEXT: {{^}}    const int rEnd = rows;
// CHECK-NEXT: {{^}}    const int rTrip = rEnd > rBegin ? rEnd - rBegin : 0;
// CHECK-NEXT: {{^}}    const int rChunk = (rTrip + 15) / 16;
// CHECK-NEXT: {{^}}    rChunks = rChunk > 0 ? (rTrip + rChunk - 1) / rChunk : 0;
// CHECK-NEXT: {{^}}    const int rLo = rBegin + way * rChunk;
// CHECK-NEXT: {{^}}    const int rHi = rLo + rChunk < rEnd ? rLo + rChunk : rEnd;
// CHECK-NEXT: {{^}}    for (int r = rLo; r < rHi; ++r)
// CHECK-NEXT: {{^}}      m = fmaxf(m, in[r * cols + c]);
// CHECK-NEXT: {{^}}    mParts[way][threadIdx.x] = m;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}  __syncthreads(); // every thread of the block, in range or not
// CHECK-NEXT: {{^}}  if (way == 0 && c < cols) {
// CHECK-NEXT: {{^}}#pragma unroll
// CHECK-NEXT: {{^}}    for (int part = 1; part < 16; ++part)
// CHECK-NEXT: {{^}}      if (part < rChunks)
// CHECK-NEXT: {{^}}        m = fmaxf(m, mParts[part][threadIdx.x]);
// CHECK-NEXT: {{^}}    out[c] = m;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
// A column maximum from the first row on, behind an early-return guard:
// the loop starts at 1, and the guard becomes an if around the partial.
__global__ void colmax(float *out, const float *in, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols)
    return;
  float m = in[c];
  for (int r = 1; r < rows; ++r)
    m = fmaxf(m, in[r * cols + c]);
  out[c] = m;
}

// CHECK-LABEL: {{^}}__global__ void colargmin(
// CHECK: {{^}}  int c = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}  // cuda-opt split-reduce{ways=16,block-x=32}: the 16 thread rows of a block
// CHECK-NEXT: {{^}}  // (threadIdx.y) split the loop over 'r' into 16 contiguous chunks;
// CHECK-NEXT: {{^}}  // the partial results meet in shared memory, and thread row 0 combines
// CHECK-NEXT: {{^}}  // them in chunk order and does the rest.
// CHECK-NEXT: {{^}}  const int way = threadIdx.y;
// CHECK-NEXT: {{^}}  __shared__ float vParts[16][32];
// CHECK-NEXT: {{^}}  __shared__ int kParts[16][32];
// CHECK-NEXT: {{^}}  float v;         // declared here: read after the barrier
// CHECK-NEXT: {{^}}  int k;           // declared here: read after the barrier
// CHECK-NEXT: {{^}}  float b;         // declared here: read after the barrier
// CHECK-NEXT: {{^}}  int rChunks = 0; // chunks with at least one iteration
// CHECK-NEXT: {{^}}  if (c < cols) {
// CHECK-NEXT: {{^}}    b = offset[c];
// CHECK-NEXT: {{^}}    v = in[c] + b;
// CHECK-NEXT: {{^}}    k = 0;
// CHECK-NEXT: {{^}}    // Thread row 'way' runs iterations [rLo, rHi): chunk 'way' of 16 contiguous
// CHECK-NEXT: {{^}}    // chunks of ceil(trip / 16) iterations.
// CHECK-NEXT: {{^}}    const int rBegin = 1;
// CHECK-NEXT: {{^}}    const int rEnd = rows;
// CHECK-NEXT: {{^}}    const int rTrip = rEnd > rBegin ? rEnd - rBegin : 0;
// CHECK-NEXT: {{^}}    const int rChunk = (rTrip + 15) / 16;
// CHECK-NEXT: {{^}}    rChunks = rChunk > 0 ? (rTrip + rChunk - 1) / rChunk : 0;
// CHECK-NEXT: {{^}}    const int rLo = rBegin + way * rChunk;
// CHECK-NEXT: {{^}}    const int rHi = rLo + rChunk < rEnd ? rLo + rChunk : rEnd;
// CHECK-NEXT: {{^}}    for (int r = rLo; r < rHi; ++r) {
// CHECK-NEXT: {{^}}      float e = in[r * cols + c] + b;
// CHECK-NEXT: {{^}}      if (e < v) {
// CHECK-NEXT: {{^}}        v = e;
// CHECK-NEXT: {{^}}        k = r;
// CHECK-NEXT: {{^}}      }
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}    vParts[way][threadIdx.x] = v;
// CHECK-NEXT: {{^}}    kParts[way][threadIdx.x] = k;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}  __syncthreads(); // every thread of the block, in range or not
// CHECK-NEXT: {{^}}  if (way == 0 && c < cols) {
// CHECK-NEXT: {{^}}#pragma unroll
// CHECK-NEXT: {{^}}    for (int part = 1; part < 16; ++part)
// CHECK-NEXT: {{^}}      if (part < rChunks) {
// CHECK-NEXT: {{^}}        if (vParts[part][threadIdx.x] < v) { // an earlier chunk wins ties
// CHECK-NEXT: {{^}}          v = vParts[part][threadIdx.x];
// CHECK-NEXT: {{^}}          k = kParts[part][threadIdx.x];
// CHECK-NEXT: {{^}}        }
// CHECK-NEXT: {{^}}      }
// CHECK-NEXT: {{^}}    idx[c] = k;
// CHECK-NEXT: {{^}}    best[c] = v - b;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
// argmin with a per-column offset read before the loop and used after it.
__global__ void colargmin(int *idx, float *best, const float *in,
                          const float *offset, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    const float b = offset[c];
    float v = in[c] + b;
    int k = 0;
    for (int r = 1; r < rows; ++r) {
      float e = in[r * cols + c] + b;
      if (e < v) {
        v = e;
        k = r;
      }
    }
    idx[c] = k;
    best[c] = v - b;
  }
}

// CHECK-LABEL: {{^}}__global__ void colcount(
// CHECK: {{^}}  int c = blockIdx.x * blockDim.x + threadIdx.x;
// CHECK-NEXT: {{^}}  // cuda-opt split-reduce{ways=16,block-x=32}: the 16 thread rows of a block
// CHECK-NEXT: {{^}}  // (threadIdx.y) split the loop over 'r' into 16 contiguous chunks;
// CHECK-NEXT: {{^}}  // the partial results meet in shared memory, and thread row 0 combines
// CHECK-NEXT: {{^}}  // them in chunk order and does the rest.
// CHECK-NEXT: {{^}}  const int way = threadIdx.y;
// CHECK-NEXT: {{^}}  __shared__ int nParts[16][32];
// CHECK-NEXT: {{^}}  __shared__ long long sParts[16][32];
// CHECK-NEXT: {{^}}  int n;           // declared here: read after the barrier
// CHECK-NEXT: {{^}}  long long s;     // declared here: read after the barrier
// CHECK-NEXT: {{^}}  int rChunks = 0; // chunks with at least one iteration
// CHECK-NEXT: {{^}}  if (c < cols) {
// CHECK-NEXT: {{^}}    n = 0;
// CHECK-NEXT: {{^}}    s = 7;
// CHECK-NEXT: {{^}}    // Thread row 'way' runs iterations [rLo, rHi): chunk 'way' of 16 contiguous
// CHECK-NEXT: {{^}}    // chunks of ceil(trip / 16) iterations.
// CHECK-NEXT: {{^}}    const int rBegin = start[c];
// CHECK-NEXT: {{^}}    const int rEnd = rows;
// CHECK-NEXT: {{^}}    const int rTrip = rEnd > rBegin ? rEnd - rBegin : 0;
// CHECK-NEXT: {{^}}    const int rChunk = (rTrip + 15) / 16;
// CHECK-NEXT: {{^}}    rChunks = rChunk > 0 ? (rTrip + rChunk - 1) / rChunk : 0;
// CHECK-NEXT: {{^}}    const int rLo = rBegin + way * rChunk;
// CHECK-NEXT: {{^}}    const int rHi = rLo + rChunk < rEnd ? rLo + rChunk : rEnd;
// CHECK-NEXT: {{^}}    if (way != 0) // the initial value stays with chunk 0
// CHECK-NEXT: {{^}}      s = 0;
// CHECK-NEXT: {{^}}    for (int r = rLo; r < rHi; ++r) {
// CHECK-NEXT: {{^}}      if (in[r * cols + c] < 0)
// CHECK-NEXT: {{^}}        continue;
// CHECK-NEXT: {{^}}      ++n;
// CHECK-NEXT: {{^}}      s += in[r * cols + c];
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}    nParts[way][threadIdx.x] = n;
// CHECK-NEXT: {{^}}    sParts[way][threadIdx.x] = s;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}  __syncthreads(); // every thread of the block, in range or not
// CHECK-NEXT: {{^}}  if (way == 0 && c < cols) {
// CHECK-NEXT: {{^}}#pragma unroll
// CHECK-NEXT: {{^}}    for (int part = 1; part < 16; ++part)
// CHECK-NEXT: {{^}}      if (part < rChunks) {
// CHECK-NEXT: {{^}}        n += nParts[part][threadIdx.x];
// CHECK-NEXT: {{^}}        s += sParts[part][threadIdx.x];
// CHECK-NEXT: {{^}}      }
// CHECK-NEXT: {{^}}    count[c] = n;
// CHECK-NEXT: {{^}}    total[c] = s;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}}
// Two integer recurrences, a data-dependent start and a continue; the sum
// does not start at 0, so the other chunks reset it.
__global__ void colcount(int *count, long long *total, const int *in,
                         const int *start, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    int n = 0;
    long long s = 7;
    for (int r = start[c]; r < rows; ++r) {
      if (in[r * cols + c] < 0)
        continue;
      ++n;
      s += in[r * cols + c];
    }
    count[c] = n;
    total[c] = s;
  }
}

// STRICT-LABEL: {{^}}__global__ void colcount(
// STRICT: {{^}}  __shared__ int nParts[8][32];
// STRICT-NEXT: {{^}}  __shared__ long long sParts[8][32];
// STRICT-LABEL: {{^}}void run(
// STRICT: {{^}}  gemv_t<<<(cols + 255) / 256, 256>>>(y, A, x, rows, cols);
// STRICT: {{^}}  colcount<<<(cols + 31) / 32, dim3(32, 8)>>>(
// CHECK-LABEL: {{^}}void run(
// CHECK: {{^}}  gemv_t<<<((cols + 255) / 256) * 8, dim3(32, 16)>>>(y, A, x, rows, cols);
// CHECK-NEXT: {{^}}  colmax<<<((cols + 127) / 128) * 4, dim3(32, 16)>>>(y, A, rows, cols);
// CHECK-NEXT: {{^}}  dim3 grid((cols + 63) / 64);
// CHECK-NEXT: {{^}}  colargmin<<<dim3(grid.x * 2, grid.y, grid.z), dim3(32, 16)>>>(
// CHECK-NEXT: {{^}}      idx, best, A, offset, rows, cols);
// CHECK-NEXT: {{^}}  colcount<<<(cols + 31) / 32, dim3(32, 16)>>>(count, total, in, start, rows,
// CHECK-NEXT: {{^}}                                               cols);
void run(float *y, const float *A, const float *x, int *idx, float *best,
         const float *offset, int *count, long long *total, const int *in,
         const int *start, int rows, int cols) {
  gemv_t<<<(cols + 255) / 256, 256>>>(y, A, x, rows, cols);
  colmax<<<(cols + 127) / 128, 128>>>(y, A, rows, cols);
  dim3 grid((cols + 63) / 64);
  colargmin<<<grid, 64>>>(idx, best, A, offset, rows, cols);
  colcount<<<(cols + 31) / 32, 32>>>(count, total, in, start, rows, cols);
}
