// Session 11: the generated fp16 softmax (vec=1, cache=16) cut down step by step.
__global__ void smh_x_B(__half *__restrict__ out, const __half *__restrict__ in,
                             int rows, int cols) {
  // cuda-opt cooperative-rows{lanes=32,cache=16,scale-grid=1}: a group of 32
  // consecutive
  // threads shares each row ('lane' 0..31): the loops over the row are
  // lane-strided, their results combined with shuffles, and the
  // groups stride over the rows.
  const int lane = threadIdx.x % 32;
  const unsigned rowMask = cudaOptRowGroupMask(32);
  {
    // Rows of up to 512 columns are held in registers (cache=16).
    for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
         r += blockDim.x / 32 * gridDim.x) {
      float m = __half2float(in[r * cols]);
      // cuda-opt cache: this thread's columns of the row of 'in', 8 per vector (8 *
      // (lane + 32 * vec) + k), loaded once and converted with __half2float;
      // 16 bytes at a time where the row is aligned.
      cudaOptVec<__half, 8> inVecs[2] = {};
      const bool inAligned = cudaOptAligned16(&in[r * cols + 0]);
#pragma unroll
      for (int vec = 0; vec < 2; ++vec) {
        const int col = 8 * (lane + 32 * vec);
        if (inAligned && col + 8 <= cols)
          inVecs[vec] =
              *reinterpret_cast<const cudaOptVec<__half, 8> *>(&in[r * cols + col]);
        else
#pragma unroll
          for (int k = 0; k < 8; ++k)
            if (col + k < cols)
              inVecs[vec].v[k] = in[r * cols + (col + k)];
      }
      float inRow[16];
#pragma unroll
      for (int k = 0; k < 16; ++k)
        inRow[k] = __half2float(inVecs[k / 8].v[k % 8]);
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        if (j >= cols)
          break;
        if (j < 1)
          continue;
        m = fmaxf(m, inRow[slot]);
      }
      m = cudaOptRowFmax(m, rowMask, 32);
      float sum = 0.0f;
      // cuda-opt cache: the loop below replaces each held column with
      // 'expf(inRow[slot] - m)', which the later loops read from there
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        if (j >= cols)
          break;
        sum += (inRow[slot] = expf(inRow[slot] - m));
      }
      sum = cudaOptRowSum(sum, rowMask, 32);
    #pragma unroll
      for (int vec2 = 0; vec2 < 2; ++vec2) {
        const int j0 = 8 * (lane + 32 * vec2);
        if (j0 >= cols)
          break;
        const bool outAligned = cudaOptAligned16(&out[r * cols + 0]);
        // This vector's columns of 'out', stored after the loop below.
        cudaOptVec<__half, 8> outVec;
#pragma unroll
        for (int k2 = 0; k2 < 8; ++k2) {
          const int slot = 8 * vec2 + k2;
          const int j = j0 + k2;
          if (j >= cols)
            break;
          outVec.v[k2] = __float2half(inRow[slot] / sum);
        }
        if (outAligned && j0 + 8 <= cols)
          *reinterpret_cast<cudaOptVec<__half, 8> *>(&out[r * cols + j0]) = outVec;
        else
#pragma unroll
          for (int k2 = 0; k2 < 8; ++k2)
            if (j0 + k2 < cols)
              out[r * cols + (j0 + k2)] = outVec.v[k2];
      }
    }
  }
}
__global__ void smh_x_C(__half *__restrict__ out, const __half *__restrict__ in,
                             int rows, int cols) {
  // cuda-opt cooperative-rows{lanes=32,cache=16,scale-grid=1}: a group of 32
  // consecutive
  // threads shares each row ('lane' 0..31): the loops over the row are
  // lane-strided, their results combined with shuffles, and the
  // groups stride over the rows.
  const int lane = threadIdx.x % 32;
  const unsigned rowMask = cudaOptRowGroupMask(32);
  {
    // Rows of up to 512 columns are held in registers (cache=16).
    for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
         r += blockDim.x / 32 * gridDim.x) {
      float m = __half2float(in[r * cols]);
      // cuda-opt cache: this thread's columns of the row of 'in', 8 per vector (8 *
      // (lane + 32 * vec) + k), loaded once and converted with __half2float;
      // 16 bytes at a time where the row is aligned.
      cudaOptVec<__half, 8> inVecs[2] = {};
      const bool inAligned = cudaOptAligned16(&in[r * cols + 0]);
#pragma unroll
      for (int vec = 0; vec < 2; ++vec) {
        const int col = 8 * (lane + 32 * vec);
        if (col + 8 <= cols)
          inVecs[vec] =
              *reinterpret_cast<const cudaOptVec<__half, 8> *>(&in[r * cols + col]);
      }
      float inRow[16];
#pragma unroll
      for (int k = 0; k < 16; ++k)
        inRow[k] = __half2float(inVecs[k / 8].v[k % 8]);
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        if (j >= cols)
          break;
        if (j < 1)
          continue;
        m = fmaxf(m, inRow[slot]);
      }
      m = cudaOptRowFmax(m, rowMask, 32);
      float sum = 0.0f;
      // cuda-opt cache: the loop below replaces each held column with
      // 'expf(inRow[slot] - m)', which the later loops read from there
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        if (j >= cols)
          break;
        sum += (inRow[slot] = expf(inRow[slot] - m));
      }
      sum = cudaOptRowSum(sum, rowMask, 32);
    #pragma unroll
      for (int vec2 = 0; vec2 < 2; ++vec2) {
        const int j0 = 8 * (lane + 32 * vec2);
        if (j0 >= cols)
          break;
        const bool outAligned = cudaOptAligned16(&out[r * cols + 0]);
        // This vector's columns of 'out', stored after the loop below.
        cudaOptVec<__half, 8> outVec;
#pragma unroll
        for (int k2 = 0; k2 < 8; ++k2) {
          const int slot = 8 * vec2 + k2;
          const int j = j0 + k2;
          if (j >= cols)
            break;
          outVec.v[k2] = __float2half(inRow[slot] / sum);
        }
        if (outAligned && j0 + 8 <= cols)
          *reinterpret_cast<cudaOptVec<__half, 8> *>(&out[r * cols + j0]) = outVec;
        else
#pragma unroll
          for (int k2 = 0; k2 < 8; ++k2)
            if (j0 + k2 < cols)
              out[r * cols + (j0 + k2)] = outVec.v[k2];
      }
    }
  }
}
__global__ void smh_x_D(__half *__restrict__ out, const __half *__restrict__ in,
                             int rows, int cols) {
  // cuda-opt cooperative-rows{lanes=32,cache=16,scale-grid=1}: a group of 32
  // consecutive
  // threads shares each row ('lane' 0..31): the loops over the row are
  // lane-strided, their results combined with shuffles, and the
  // groups stride over the rows.
  const int lane = threadIdx.x % 32;
  const unsigned rowMask = cudaOptRowGroupMask(32);
  {
    // Rows of up to 512 columns are held in registers (cache=16).
    for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
         r += blockDim.x / 32 * gridDim.x) {
      float m = __half2float(in[r * cols]);
      // cuda-opt cache: this thread's columns of the row of 'in', 8 per vector (8 *
      // (lane + 32 * vec) + k), loaded once and converted with __half2float;
      // 16 bytes at a time where the row is aligned.
      cudaOptVec<__half, 8> inVecs[2] = {};
      const bool inAligned = cudaOptAligned16(&in[r * cols + 0]);
#pragma unroll
      for (int vec = 0; vec < 2; ++vec) {
        const int col = 8 * (lane + 32 * vec);
        if (col + 8 <= cols)
          inVecs[vec] =
              *reinterpret_cast<const cudaOptVec<__half, 8> *>(&in[r * cols + col]);
      }
      float inRow[16];
#pragma unroll
      for (int k = 0; k < 16; ++k)
        inRow[k] = __half2float(inVecs[k / 8].v[k % 8]);
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        if (j < cols && j >= 1)
          m = fmaxf(m, inRow[slot]);
      }
      m = cudaOptRowFmax(m, rowMask, 32);
      float sum = 0.0f;
      // cuda-opt cache: the loop below replaces each held column with
      // 'expf(inRow[slot] - m)', which the later loops read from there
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        inRow[slot] = expf(inRow[slot] - m);
        sum += j < cols ? inRow[slot] : 0.0f;
      }
      sum = cudaOptRowSum(sum, rowMask, 32);
    #pragma unroll
      for (int vec2 = 0; vec2 < 2; ++vec2) {
        const int j0 = 8 * (lane + 32 * vec2);
        if (j0 >= cols)
          break;
        const bool outAligned = cudaOptAligned16(&out[r * cols + 0]);
        // This vector's columns of 'out', stored after the loop below.
        cudaOptVec<__half, 8> outVec;
#pragma unroll
        for (int k2 = 0; k2 < 8; ++k2) {
          const int slot = 8 * vec2 + k2;
          const int j = j0 + k2;
          if (j >= cols)
            break;
          outVec.v[k2] = __float2half(inRow[slot] / sum);
        }
        if (outAligned && j0 + 8 <= cols)
          *reinterpret_cast<cudaOptVec<__half, 8> *>(&out[r * cols + j0]) = outVec;
        else
#pragma unroll
          for (int k2 = 0; k2 < 8; ++k2)
            if (j0 + k2 < cols)
              out[r * cols + (j0 + k2)] = outVec.v[k2];
      }
    }
  }
}
__global__ void smh_x_E(__half *__restrict__ out, const __half *__restrict__ in,
                             int rows, int cols) {
  // cuda-opt cooperative-rows{lanes=32,cache=16,scale-grid=1}: a group of 32
  // consecutive
  // threads shares each row ('lane' 0..31): the loops over the row are
  // lane-strided, their results combined with shuffles, and the
  // groups stride over the rows.
  const int lane = threadIdx.x % 32;
  const unsigned rowMask = cudaOptRowGroupMask(32);
  {
    // Rows of up to 512 columns are held in registers (cache=16).
    for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
         r += blockDim.x / 32 * gridDim.x) {
      float m = __half2float(in[r * cols]);
      // cuda-opt cache: this thread's columns of the row of 'in', 8 per vector (8 *
      // (lane + 32 * vec) + k), loaded once and converted with __half2float;
      // 16 bytes at a time where the row is aligned.
      cudaOptVec<__half, 8> inVecs[2] = {};
      const bool inAligned = cudaOptAligned16(&in[r * cols + 0]);
#pragma unroll
      for (int vec = 0; vec < 2; ++vec) {
        const int col = 8 * (lane + 32 * vec);
        if (col + 8 <= cols)
          inVecs[vec] =
              *reinterpret_cast<const cudaOptVec<__half, 8> *>(&in[r * cols + col]);
      }
      float inRow[16];
#pragma unroll
      for (int k = 0; k < 16; ++k)
        inRow[k] = __half2float(inVecs[k / 8].v[k % 8]);
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        if (j < cols && j >= 1)
          m = fmaxf(m, inRow[slot]);
      }
      m = cudaOptRowFmax(m, rowMask, 32);
      float sum = 0.0f;
      // cuda-opt cache: the loop below replaces each held column with
      // 'expf(inRow[slot] - m)', which the later loops read from there
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        inRow[slot] = expf(inRow[slot] - m);
        sum += j < cols ? inRow[slot] : 0.0f;
      }
      sum = cudaOptRowSum(sum, rowMask, 32);
    #pragma unroll
      for (int vec2 = 0; vec2 < 2; ++vec2) {
        const int j0 = 8 * (lane + 32 * vec2);
        if (j0 >= cols)
          break;
        const bool outAligned = cudaOptAligned16(&out[r * cols + 0]);
        // This vector's columns of 'out', stored after the loop below.
        cudaOptVec<__half, 8> outVec;
#pragma unroll
        for (int k2 = 0; k2 < 8; ++k2) {
          const int slot = 8 * vec2 + k2;
          const int j = j0 + k2;
          outVec.v[k2] = __float2half(inRow[slot] / sum);
        }
        if (outAligned && j0 + 8 <= cols)
          *reinterpret_cast<cudaOptVec<__half, 8> *>(&out[r * cols + j0]) = outVec;
        else
#pragma unroll
          for (int k2 = 0; k2 < 8; ++k2)
            if (j0 + k2 < cols)
              out[r * cols + (j0 + k2)] = outVec.v[k2];
      }
    }
  }
}

// Session 12: the session-11 vector cache (smh_gen_c16v1 before the alignment
// test moved out of the row loop) cut down step by step:
// y1 cached path only; y2 + fill without the unaligned fallback; y3 + max
// from -inf (no scalar load of column 0); y4 + 64-bit row offsets.
__global__ void smh_y1(__half *__restrict__ out, const __half *__restrict__ in,
                             int rows, int cols) {
  // cuda-opt cooperative-rows{lanes=32,cache=16,scale-grid=1}: a group of 32
  // consecutive
  // threads shares each row ('lane' 0..31): the loops over the row are
  // lane-strided, their results combined with shuffles, and the
  // groups stride over the rows.
  const int lane = threadIdx.x % 32;
  const unsigned rowMask = cudaOptRowGroupMask(32);
  if (cols <= 512 && cols % 8 == 0) {
    // Rows of up to 512 columns, a whole number of 8-column vectors, are held in
    // registers (cache=16).
    for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
         r += blockDim.x / 32 * gridDim.x) {
      float m = __half2float(in[r * cols]);
      // cuda-opt cache: this thread's columns of the row of 'in', 8 per vector (8 *
      // (lane + 32 * vec) + k), loaded once, 16 bytes at a time where the row is
      // aligned, and converted with __half2float.
      cudaOptVec<__half, 8> inVecs[2] = {};
      if (cudaOptAligned16(&in[r * cols + 0])) {
#pragma unroll
        for (int vec = 0; vec < 2; ++vec) {
          const int col = 8 * (lane + 32 * vec);
          if (col < cols)
            inVecs[vec] =
                *reinterpret_cast<const cudaOptVec<__half, 8> *>(&in[r * cols + col]);
        }
      } else {
#pragma unroll
        for (int vec = 0; vec < 2; ++vec) {
          const int col = 8 * (lane + 32 * vec);
          if (col < cols)
#pragma unroll
            for (int k = 0; k < 8; ++k)
              inVecs[vec].v[k] = in[r * cols + (col + k)];
        }
      }
      float inRow[16];
#pragma unroll
      for (int k = 0; k < 16; ++k)
        inRow[k] = __half2float(inVecs[k / 8].v[k % 8]);
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        if ((j - slot % 8) >= cols)
          break;
        if (j < 1)
          continue;
        m = fmaxf(m, inRow[slot]);
      }
      m = cudaOptRowFmax(m, rowMask, 32);
      float sum = 0.0f;
      // cuda-opt cache: the loop below replaces each held column with
      // 'expf(inRow[slot] - m)', which the later loops read from there
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        if ((j - slot % 8) >= cols)
          break;
        sum += (inRow[slot] = expf(inRow[slot] - m));
      }
      sum = cudaOptRowSum(sum, rowMask, 32);
    #pragma unroll
      for (int vec2 = 0; vec2 < 2; ++vec2) {
        const int j0 = 8 * (lane + 32 * vec2);
        if (j0 >= cols)
          break;
        const bool outAligned = cudaOptAligned16(&out[r * cols + 0]);
        // This vector's columns of 'out', stored after the loop below.
        cudaOptVec<__half, 8> outVec;
#pragma unroll
        for (int k2 = 0; k2 < 8; ++k2) {
          const int slot = 8 * vec2 + k2;
          outVec.v[k2] = __float2half(inRow[slot] / sum);
        }
        if (outAligned)
          *reinterpret_cast<cudaOptVec<__half, 8> *>(&out[r * cols + j0]) = outVec;
        else
#pragma unroll
          for (int k2 = 0; k2 < 8; ++k2)
            out[r * cols + (j0 + k2)] = outVec.v[k2];
      }
    }
  }
}
__global__ void smh_y2(__half *__restrict__ out, const __half *__restrict__ in,
                             int rows, int cols) {
  // cuda-opt cooperative-rows{lanes=32,cache=16,scale-grid=1}: a group of 32
  // consecutive
  // threads shares each row ('lane' 0..31): the loops over the row are
  // lane-strided, their results combined with shuffles, and the
  // groups stride over the rows.
  const int lane = threadIdx.x % 32;
  const unsigned rowMask = cudaOptRowGroupMask(32);
  if (cols <= 512 && cols % 8 == 0) {
    // Rows of up to 512 columns, a whole number of 8-column vectors, are held in
    // registers (cache=16).
    for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
         r += blockDim.x / 32 * gridDim.x) {
      float m = __half2float(in[r * cols]);
      // cuda-opt cache: this thread's columns of the row of 'in', 8 per vector (8 *
      // (lane + 32 * vec) + k), loaded once, 16 bytes at a time where the row is
      // aligned, and converted with __half2float.
      cudaOptVec<__half, 8> inVecs[2] = {};
#pragma unroll
      for (int vec = 0; vec < 2; ++vec) {
        const int col = 8 * (lane + 32 * vec);
        if (col < cols)
          inVecs[vec] =
              *reinterpret_cast<const cudaOptVec<__half, 8> *>(&in[r * cols + col]);
      }
      float inRow[16];
#pragma unroll
      for (int k = 0; k < 16; ++k)
        inRow[k] = __half2float(inVecs[k / 8].v[k % 8]);
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        if ((j - slot % 8) >= cols)
          break;
        if (j < 1)
          continue;
        m = fmaxf(m, inRow[slot]);
      }
      m = cudaOptRowFmax(m, rowMask, 32);
      float sum = 0.0f;
      // cuda-opt cache: the loop below replaces each held column with
      // 'expf(inRow[slot] - m)', which the later loops read from there
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        if ((j - slot % 8) >= cols)
          break;
        sum += (inRow[slot] = expf(inRow[slot] - m));
      }
      sum = cudaOptRowSum(sum, rowMask, 32);
    #pragma unroll
      for (int vec2 = 0; vec2 < 2; ++vec2) {
        const int j0 = 8 * (lane + 32 * vec2);
        if (j0 >= cols)
          break;
        const bool outAligned = cudaOptAligned16(&out[r * cols + 0]);
        // This vector's columns of 'out', stored after the loop below.
        cudaOptVec<__half, 8> outVec;
#pragma unroll
        for (int k2 = 0; k2 < 8; ++k2) {
          const int slot = 8 * vec2 + k2;
          outVec.v[k2] = __float2half(inRow[slot] / sum);
        }
        if (outAligned)
          *reinterpret_cast<cudaOptVec<__half, 8> *>(&out[r * cols + j0]) = outVec;
        else
#pragma unroll
          for (int k2 = 0; k2 < 8; ++k2)
            out[r * cols + (j0 + k2)] = outVec.v[k2];
      }
    }
  }
}
__global__ void smh_y3(__half *__restrict__ out, const __half *__restrict__ in,
                             int rows, int cols) {
  // cuda-opt cooperative-rows{lanes=32,cache=16,scale-grid=1}: a group of 32
  // consecutive
  // threads shares each row ('lane' 0..31): the loops over the row are
  // lane-strided, their results combined with shuffles, and the
  // groups stride over the rows.
  const int lane = threadIdx.x % 32;
  const unsigned rowMask = cudaOptRowGroupMask(32);
  if (cols <= 512 && cols % 8 == 0) {
    // Rows of up to 512 columns, a whole number of 8-column vectors, are held in
    // registers (cache=16).
    for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
         r += blockDim.x / 32 * gridDim.x) {
      float m = -INFINITY;
      // cuda-opt cache: this thread's columns of the row of 'in', 8 per vector (8 *
      // (lane + 32 * vec) + k), loaded once, 16 bytes at a time where the row is
      // aligned, and converted with __half2float.
      cudaOptVec<__half, 8> inVecs[2] = {};
#pragma unroll
      for (int vec = 0; vec < 2; ++vec) {
        const int col = 8 * (lane + 32 * vec);
        if (col < cols)
          inVecs[vec] =
              *reinterpret_cast<const cudaOptVec<__half, 8> *>(&in[r * cols + col]);
      }
      float inRow[16];
#pragma unroll
      for (int k = 0; k < 16; ++k)
        inRow[k] = __half2float(inVecs[k / 8].v[k % 8]);
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        if ((j - slot % 8) >= cols)
          break;
        m = fmaxf(m, inRow[slot]);
      }
      m = cudaOptRowFmax(m, rowMask, 32);
      float sum = 0.0f;
      // cuda-opt cache: the loop below replaces each held column with
      // 'expf(inRow[slot] - m)', which the later loops read from there
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        if ((j - slot % 8) >= cols)
          break;
        sum += (inRow[slot] = expf(inRow[slot] - m));
      }
      sum = cudaOptRowSum(sum, rowMask, 32);
    #pragma unroll
      for (int vec2 = 0; vec2 < 2; ++vec2) {
        const int j0 = 8 * (lane + 32 * vec2);
        if (j0 >= cols)
          break;
        const bool outAligned = cudaOptAligned16(&out[r * cols + 0]);
        // This vector's columns of 'out', stored after the loop below.
        cudaOptVec<__half, 8> outVec;
#pragma unroll
        for (int k2 = 0; k2 < 8; ++k2) {
          const int slot = 8 * vec2 + k2;
          outVec.v[k2] = __float2half(inRow[slot] / sum);
        }
        if (outAligned)
          *reinterpret_cast<cudaOptVec<__half, 8> *>(&out[r * cols + j0]) = outVec;
        else
#pragma unroll
          for (int k2 = 0; k2 < 8; ++k2)
            out[r * cols + (j0 + k2)] = outVec.v[k2];
      }
    }
  }
}
__global__ void smh_y4(__half *__restrict__ out, const __half *__restrict__ in,
                             int rows, int cols) {
  // cuda-opt cooperative-rows{lanes=32,cache=16,scale-grid=1}: a group of 32
  // consecutive
  // threads shares each row ('lane' 0..31): the loops over the row are
  // lane-strided, their results combined with shuffles, and the
  // groups stride over the rows.
  const int lane = threadIdx.x % 32;
  const unsigned rowMask = cudaOptRowGroupMask(32);
  if (cols <= 512 && cols % 8 == 0) {
    // Rows of up to 512 columns, a whole number of 8-column vectors, are held in
    // registers (cache=16).
    for (int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32; r < rows;
         r += blockDim.x / 32 * gridDim.x) {
      float m = -INFINITY;
      // cuda-opt cache: this thread's columns of the row of 'in', 8 per vector (8 *
      // (lane + 32 * vec) + k), loaded once, 16 bytes at a time where the row is
      // aligned, and converted with __half2float.
      cudaOptVec<__half, 8> inVecs[2] = {};
#pragma unroll
      for (int vec = 0; vec < 2; ++vec) {
        const int col = 8 * (lane + 32 * vec);
        if (col < cols)
          inVecs[vec] =
              *reinterpret_cast<const cudaOptVec<__half, 8> *>(&in[(size_t)r * cols + col]);
      }
      float inRow[16];
#pragma unroll
      for (int k = 0; k < 16; ++k)
        inRow[k] = __half2float(inVecs[k / 8].v[k % 8]);
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        if ((j - slot % 8) >= cols)
          break;
        m = fmaxf(m, inRow[slot]);
      }
      m = cudaOptRowFmax(m, rowMask, 32);
      float sum = 0.0f;
      // cuda-opt cache: the loop below replaces each held column with
      // 'expf(inRow[slot] - m)', which the later loops read from there
#pragma unroll
      for (int slot = 0; slot < 16; ++slot) {
        const int j = 8 * (lane + 32 * (slot / 8)) + slot % 8;
        if ((j - slot % 8) >= cols)
          break;
        sum += (inRow[slot] = expf(inRow[slot] - m));
      }
      sum = cudaOptRowSum(sum, rowMask, 32);
    #pragma unroll
      for (int vec2 = 0; vec2 < 2; ++vec2) {
        const int j0 = 8 * (lane + 32 * vec2);
        if (j0 >= cols)
          break;
        const bool outAligned = cudaOptAligned16(&out[(size_t)r * cols + 0]);
        // This vector's columns of 'out', stored after the loop below.
        cudaOptVec<__half, 8> outVec;
#pragma unroll
        for (int k2 = 0; k2 < 8; ++k2) {
          const int slot = 8 * vec2 + k2;
          outVec.v[k2] = __float2half(inRow[slot] / sum);
        }
        if (outAligned)
          *reinterpret_cast<cudaOptVec<__half, 8> *>(&out[(size_t)r * cols + j0]) = outVec;
        else
#pragma unroll
          for (int k2 = 0; k2 < 8; ++k2)
            out[(size_t)r * cols + (j0 + k2)] = outVec.v[k2];
      }
    }
  }
}
