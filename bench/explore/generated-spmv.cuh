// Generated from cuda-opt stage-segments outputs of bench/corpus/spmv_csr.cu
// (session 11); do not edit.
__global__ void ss_i4_s1(float *y, const int *row_ptr, const int *col_idx,
                         const float *vals, const float *x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  // cuda-opt stage-segments{items=4,stream=1}: the block's rows are
  // consecutive, so their segments [row_ptr[row], row_ptr[row + 1]) form one
  // range; the block stages it in shared memory in chunks of blockDim.x * 4
  // (each thread 4 coalesced loads of each operand), then each row's thread
  // adds its slice in the original order.
  float sumStaged = 0.0f;
  {
    __shared__ float valsStage[256 * 4];
    __shared__ float xStage[256 * 4];
    __shared__ int segRange[2];
    const bool rowActive = row < rows;
    const int segLo = rowActive ? row_ptr[row] : 0;
    const int segHi = rowActive ? row_ptr[row + 1] : 0;
    if (threadIdx.x == 0) {
      segRange[0] = segLo;
      segRange[1] = segLo;
    }
    __syncthreads();
    // The block's range: from the first active row's start to the last one's
    // end.
    if (rowActive) {
      atomicMin(&segRange[0], segLo);
      atomicMax(&segRange[1], segHi);
    }
    // Every active row's segment inside it: the row pointer does not decrease.
    if (__syncthreads_and(!rowActive || segLo <= segHi)) {
      for (int chunk = segRange[0]; chunk < segRange[1];
           chunk += blockDim.x * 4) {
        const int chunkEnd = min(segRange[1], chunk + (int)(blockDim.x * 4));
#pragma unroll
        for (int item = 0; item < 4; ++item) {
          const int at = chunk + threadIdx.x + item * blockDim.x;
          if (at < chunkEnd) {
            valsStage[at - chunk] = __ldcs(&vals[at]);
            xStage[at - chunk] = x[__ldcs(&col_idx[at])];
          }
        }
        __syncthreads();
        for (int j = max(segLo, chunk); j < min(segHi, chunkEnd); ++j)
          sumStaged += valsStage[j - chunk] * xStage[j - chunk];
        __syncthreads();
      }
    } else if (rowActive) {
      // A decreasing row pointer: the original loop.
      for (int j = segLo; j < segHi; ++j)
        sumStaged += vals[j] * x[col_idx[j]];
    }
  }
  if (row < rows) {
    float sum = 0.0f;
    sum = sumStaged; // staged above
    y[row] = sum;
  }
}

__global__ void ss_i8_s1(float *y, const int *row_ptr, const int *col_idx,
                         const float *vals, const float *x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  // cuda-opt stage-segments{items=8,stream=1}: the block's rows are
  // consecutive, so their segments [row_ptr[row], row_ptr[row + 1]) form one
  // range; the block stages it in shared memory in chunks of blockDim.x * 8
  // (each thread 8 coalesced loads of each operand), then each row's thread
  // adds its slice in the original order.
  float sumStaged = 0.0f;
  {
    __shared__ float valsStage[256 * 8];
    __shared__ float xStage[256 * 8];
    __shared__ int segRange[2];
    const bool rowActive = row < rows;
    const int segLo = rowActive ? row_ptr[row] : 0;
    const int segHi = rowActive ? row_ptr[row + 1] : 0;
    if (threadIdx.x == 0) {
      segRange[0] = segLo;
      segRange[1] = segLo;
    }
    __syncthreads();
    // The block's range: from the first active row's start to the last one's
    // end.
    if (rowActive) {
      atomicMin(&segRange[0], segLo);
      atomicMax(&segRange[1], segHi);
    }
    // Every active row's segment inside it: the row pointer does not decrease.
    if (__syncthreads_and(!rowActive || segLo <= segHi)) {
      for (int chunk = segRange[0]; chunk < segRange[1];
           chunk += blockDim.x * 8) {
        const int chunkEnd = min(segRange[1], chunk + (int)(blockDim.x * 8));
#pragma unroll
        for (int item = 0; item < 8; ++item) {
          const int at = chunk + threadIdx.x + item * blockDim.x;
          if (at < chunkEnd) {
            valsStage[at - chunk] = __ldcs(&vals[at]);
            xStage[at - chunk] = x[__ldcs(&col_idx[at])];
          }
        }
        __syncthreads();
        for (int j = max(segLo, chunk); j < min(segHi, chunkEnd); ++j)
          sumStaged += valsStage[j - chunk] * xStage[j - chunk];
        __syncthreads();
      }
    } else if (rowActive) {
      // A decreasing row pointer: the original loop.
      for (int j = segLo; j < segHi; ++j)
        sumStaged += vals[j] * x[col_idx[j]];
    }
  }
  if (row < rows) {
    float sum = 0.0f;
    sum = sumStaged; // staged above
    y[row] = sum;
  }
}

__global__ void ss_i8_s0(float *y, const int *row_ptr, const int *col_idx,
                         const float *vals, const float *x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  // cuda-opt stage-segments{items=8,stream=0}: the block's rows are
  // consecutive, so their segments [row_ptr[row], row_ptr[row + 1]) form one
  // range; the block stages it in shared memory in chunks of blockDim.x * 8
  // (each thread 8 coalesced loads of each operand), then each row's thread
  // adds its slice in the original order.
  float sumStaged = 0.0f;
  {
    __shared__ float valsStage[256 * 8];
    __shared__ float xStage[256 * 8];
    __shared__ int segRange[2];
    const bool rowActive = row < rows;
    const int segLo = rowActive ? row_ptr[row] : 0;
    const int segHi = rowActive ? row_ptr[row + 1] : 0;
    if (threadIdx.x == 0) {
      segRange[0] = segLo;
      segRange[1] = segLo;
    }
    __syncthreads();
    // The block's range: from the first active row's start to the last one's
    // end.
    if (rowActive) {
      atomicMin(&segRange[0], segLo);
      atomicMax(&segRange[1], segHi);
    }
    // Every active row's segment inside it: the row pointer does not decrease.
    if (__syncthreads_and(!rowActive || segLo <= segHi)) {
      for (int chunk = segRange[0]; chunk < segRange[1];
           chunk += blockDim.x * 8) {
        const int chunkEnd = min(segRange[1], chunk + (int)(blockDim.x * 8));
#pragma unroll
        for (int item = 0; item < 8; ++item) {
          const int at = chunk + threadIdx.x + item * blockDim.x;
          if (at < chunkEnd) {
            valsStage[at - chunk] = vals[at];
            xStage[at - chunk] = x[col_idx[at]];
          }
        }
        __syncthreads();
        for (int j = max(segLo, chunk); j < min(segHi, chunkEnd); ++j)
          sumStaged += valsStage[j - chunk] * xStage[j - chunk];
        __syncthreads();
      }
    } else if (rowActive) {
      // A decreasing row pointer: the original loop.
      for (int j = segLo; j < segHi; ++j)
        sumStaged += vals[j] * x[col_idx[j]];
    }
  }
  if (row < rows) {
    float sum = 0.0f;
    sum = sumStaged; // staged above
    y[row] = sum;
  }
}

__global__ void ss_i16_s1(float *y, const int *row_ptr, const int *col_idx,
                         const float *vals, const float *x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  // cuda-opt stage-segments{items=16,stream=1}: the block's rows are
  // consecutive, so their segments [row_ptr[row], row_ptr[row + 1]) form one
  // range; the block stages it in shared memory in chunks of blockDim.x * 16
  // (each thread 16 coalesced loads of each operand), then each row's thread
  // adds its slice in the original order.
  float sumStaged = 0.0f;
  {
    __shared__ float valsStage[256 * 16];
    __shared__ float xStage[256 * 16];
    __shared__ int segRange[2];
    const bool rowActive = row < rows;
    const int segLo = rowActive ? row_ptr[row] : 0;
    const int segHi = rowActive ? row_ptr[row + 1] : 0;
    if (threadIdx.x == 0) {
      segRange[0] = segLo;
      segRange[1] = segLo;
    }
    __syncthreads();
    // The block's range: from the first active row's start to the last one's
    // end.
    if (rowActive) {
      atomicMin(&segRange[0], segLo);
      atomicMax(&segRange[1], segHi);
    }
    // Every active row's segment inside it: the row pointer does not decrease.
    if (__syncthreads_and(!rowActive || segLo <= segHi)) {
      for (int chunk = segRange[0]; chunk < segRange[1];
           chunk += blockDim.x * 16) {
        const int chunkEnd = min(segRange[1], chunk + (int)(blockDim.x * 16));
#pragma unroll
        for (int item = 0; item < 16; ++item) {
          const int at = chunk + threadIdx.x + item * blockDim.x;
          if (at < chunkEnd) {
            valsStage[at - chunk] = __ldcs(&vals[at]);
            xStage[at - chunk] = x[__ldcs(&col_idx[at])];
          }
        }
        __syncthreads();
        for (int j = max(segLo, chunk); j < min(segHi, chunkEnd); ++j)
          sumStaged += valsStage[j - chunk] * xStage[j - chunk];
        __syncthreads();
      }
    } else if (rowActive) {
      // A decreasing row pointer: the original loop.
      for (int j = segLo; j < segHi; ++j)
        sumStaged += vals[j] * x[col_idx[j]];
    }
  }
  if (row < rows) {
    float sum = 0.0f;
    sum = sumStaged; // staged above
    y[row] = sum;
  }
}

__global__ void ss_b512_i8_s1(float *y, const int *row_ptr, const int *col_idx,
                         const float *vals, const float *x, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  // cuda-opt stage-segments{items=8,stream=1}: the block's rows are
  // consecutive, so their segments [row_ptr[row], row_ptr[row + 1]) form one
  // range; the block stages it in shared memory in chunks of blockDim.x * 8
  // (each thread 8 coalesced loads of each operand), then each row's thread
  // adds its slice in the original order.
  float sumStaged = 0.0f;
  {
    __shared__ float valsStage[512 * 8];
    __shared__ float xStage[512 * 8];
    __shared__ int segRange[2];
    const bool rowActive = row < rows;
    const int segLo = rowActive ? row_ptr[row] : 0;
    const int segHi = rowActive ? row_ptr[row + 1] : 0;
    if (threadIdx.x == 0) {
      segRange[0] = segLo;
      segRange[1] = segLo;
    }
    __syncthreads();
    // The block's range: from the first active row's start to the last one's
    // end.
    if (rowActive) {
      atomicMin(&segRange[0], segLo);
      atomicMax(&segRange[1], segHi);
    }
    // Every active row's segment inside it: the row pointer does not decrease.
    if (__syncthreads_and(!rowActive || segLo <= segHi)) {
      for (int chunk = segRange[0]; chunk < segRange[1];
           chunk += blockDim.x * 8) {
        const int chunkEnd = min(segRange[1], chunk + (int)(blockDim.x * 8));
#pragma unroll
        for (int item = 0; item < 8; ++item) {
          const int at = chunk + threadIdx.x + item * blockDim.x;
          if (at < chunkEnd) {
            valsStage[at - chunk] = __ldcs(&vals[at]);
            xStage[at - chunk] = x[__ldcs(&col_idx[at])];
          }
        }
        __syncthreads();
        for (int j = max(segLo, chunk); j < min(segHi, chunkEnd); ++j)
          sumStaged += valsStage[j - chunk] * xStage[j - chunk];
        __syncthreads();
      }
    } else if (rowActive) {
      // A decreasing row pointer: the original loop.
      for (int j = segLo; j < segHi; ++j)
        sumStaged += vals[j] * x[col_idx[j]];
    }
  }
  if (row < rows) {
    float sum = 0.0f;
    sum = sumStaged; // staged above
    y[row] = sum;
  }
}
