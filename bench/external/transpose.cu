/* Copyright (c) 2022, NVIDIA CORPORATION. All rights reserved.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 *  * Redistributions of source code must retain the above copyright
 *    notice, this list of conditions and the following disclaimer.
 *  * Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 *  * Neither the name of NVIDIA CORPORATION nor the names of its
 *    contributors may be used to endorse or promote products derived
 *    from this software without specific prior written permission.
 *
 * THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS ``AS IS'' AND ANY
 * EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
 * IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR
 * PURPOSE ARE DISCLAIMED.  IN NO EVENT SHALL THE COPYRIGHT OWNER OR
 * CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL,
 * EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO,
 * PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR
 * PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY
 * OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
 * (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
 * OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
 */

// cuda-opt external suite: transpose.
// From NVIDIA/cuda-samples, Samples/6_Performance/transpose/transpose.cu,
// commit c94ff366aed18c797b8a85dfaac7817b0228b420. The kernels copy, copySharedMem,
// transposeNaive, transposeCoalesced, transposeNoBankConflicts and
// transposeDiagonal are upstream's, unchanged (transposeFineGrained and
// transposeCoarseGrained, which upstream does not check, are left out); the
// host side is rewritten for the suite (bench/external/README.md).

#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;
#define EXT_NAME "transpose"
#define EXT_SEED 0x2545f491u
// ---- host helpers of the cuda-opt external suite (not upstream) ----------
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "external_common.h"
// ---------------------------------------------------------------------------
// ---- upstream Samples/6_Performance/transpose/transpose.cu, lines 51-57 (unchanged) ----
// Each block transposes/copies a tile of TILE_DIM x TILE_DIM elements
// using TILE_DIM x BLOCK_ROWS threads, so that each thread transposes
// TILE_DIM/BLOCK_ROWS elements.  TILE_DIM must be an integral multiple of
// BLOCK_ROWS

#define TILE_DIM   32
#define BLOCK_ROWS 16
// ---- end of upstream Samples/6_Performance/transpose/transpose.cu lines 51-57 ----
// ---- upstream Samples/6_Performance/transpose/transpose.cu, lines 76-242 (unchanged) ----
// -------------------------------------------------------
// Copies
// width and height must be integral multiples of TILE_DIM
// -------------------------------------------------------

__global__ void copy(float *odata, float *idata, int width, int height)
{
    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;

    int index = xIndex + width * yIndex;

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
        odata[index + i * width] = idata[index + i * width];
    }
}

__global__ void copySharedMem(float *odata, float *idata, int width, int height)
{
    // Handle to thread block group
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float tile[TILE_DIM][TILE_DIM];

    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;

    int index = xIndex + width * yIndex;

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
        if (xIndex < width && yIndex < height) {
            tile[threadIdx.y + i][threadIdx.x] = idata[index + i * width];
        }
    }

    cg::sync(cta);

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
        if (xIndex < height && yIndex < width) {
            odata[index + i * width] = tile[threadIdx.y + i][threadIdx.x];
        }
    }
}

// -------------------------------------------------------
// Transposes
// width and height must be integral multiples of TILE_DIM
// -------------------------------------------------------

__global__ void transposeNaive(float *odata, float *idata, int width, int height)
{
    int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;

    int index_in  = xIndex + width * yIndex;
    int index_out = yIndex + height * xIndex;

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
        odata[index_out + i] = idata[index_in + i * width];
    }
}

// coalesced transpose (with bank conflicts)

__global__ void transposeCoalesced(float *odata, float *idata, int width, int height)
{
    // Handle to thread block group
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float tile[TILE_DIM][TILE_DIM];

    int xIndex   = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex   = blockIdx.y * TILE_DIM + threadIdx.y;
    int index_in = xIndex + (yIndex)*width;

    xIndex        = blockIdx.y * TILE_DIM + threadIdx.x;
    yIndex        = blockIdx.x * TILE_DIM + threadIdx.y;
    int index_out = xIndex + (yIndex)*height;

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
        tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
    }

    cg::sync(cta);

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
        odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
    }
}

// Coalesced transpose with no bank conflicts

__global__ void transposeNoBankConflicts(float *odata, float *idata, int width, int height)
{
    // Handle to thread block group
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int xIndex   = blockIdx.x * TILE_DIM + threadIdx.x;
    int yIndex   = blockIdx.y * TILE_DIM + threadIdx.y;
    int index_in = xIndex + (yIndex)*width;

    xIndex        = blockIdx.y * TILE_DIM + threadIdx.x;
    yIndex        = blockIdx.x * TILE_DIM + threadIdx.y;
    int index_out = xIndex + (yIndex)*height;

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
        tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
    }

    cg::sync(cta);

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
        odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
    }
}

// Transpose that effectively reorders execution of thread blocks along
// diagonals of the matrix (also coalesced and has no bank conflicts)
//
// Here blockIdx.x is interpreted as the distance along a diagonal and
// blockIdx.y as corresponding to different diagonals
//
// blockIdx_x and blockIdx_y expressions map the diagonal coordinates to the
// more commonly used cartesian coordinates so that the only changes to the code
// from the coalesced version are the calculation of the blockIdx_x and
// blockIdx_y and replacement of blockIdx.x and bloclIdx.y with the subscripted
// versions in the remaining code

__global__ void transposeDiagonal(float *odata, float *idata, int width, int height)
{
    // Handle to thread block group
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int blockIdx_x, blockIdx_y;

    // do diagonal reordering
    if (width == height) {
        blockIdx_y = blockIdx.x;
        blockIdx_x = (blockIdx.x + blockIdx.y) % gridDim.x;
    }
    else {
        int bid    = blockIdx.x + gridDim.x * blockIdx.y;
        blockIdx_y = bid % gridDim.y;
        blockIdx_x = ((bid / gridDim.y) + blockIdx_y) % gridDim.x;
    }

    // from here on the code is same as previous kernel except blockIdx_x replaces
    // blockIdx.x and similarly for y

    int xIndex   = blockIdx_x * TILE_DIM + threadIdx.x;
    int yIndex   = blockIdx_y * TILE_DIM + threadIdx.y;
    int index_in = xIndex + (yIndex)*width;

    xIndex        = blockIdx_y * TILE_DIM + threadIdx.x;
    yIndex        = blockIdx_x * TILE_DIM + threadIdx.y;
    int index_out = xIndex + (yIndex)*height;

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
        tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
    }

    cg::sync(cta);

    for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
        odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
    }
}
// ---- end of upstream Samples/6_Performance/transpose/transpose.cu lines 76-242 ----

// Checks odata against idata: copied (transposed == false) or transposed.
static int check(const char *kernel, const std::vector<float> &in,
                 const std::vector<float> &out, int size_x, int size_y,
                 bool transposed) {
  for (int y = 0; y < size_y; ++y)
    for (int x = 0; x < size_x; ++x) {
      float want = in[(size_t)y * size_x + x];
      size_t o = transposed ? (size_t)x * size_y + y : (size_t)y * size_x + x;
      if (out[o] != want)
        return fail(kernel, (long long)o, out[o], want);
    }
  return 0;
}

int main() {
  // Square, as upstream assumes (copySharedMem and transposeDiagonal's
  // square branch); 256 MB per matrix.
  const int size_x = 8192, size_y = 8192;
  const size_t n = (size_t)size_x * size_y, mem_size = n * sizeof(float);
  std::vector<float> h_idata(n), h_odata(n);
  for (float &x : h_idata) x = frand(-100.f, 100.f);
  float *d_idata, *d_odata;
  CK(cudaMalloc(&d_idata, mem_size));
  CK(cudaMalloc(&d_odata, mem_size));
  CK(cudaMemcpy(d_idata, h_idata.data(), mem_size, cudaMemcpyHostToDevice));
  dim3 grid(size_x / TILE_DIM, size_y / TILE_DIM), threads(TILE_DIM, BLOCK_ROWS);

  struct { const char *name; bool transposed; } runs[] = {
      {"copy", false},          {"copySharedMem", false},
      {"transposeNaive", true}, {"transposeCoalesced", true},
      {"transposeNoBankConflicts", true}, {"transposeDiagonal", true}};
  for (int k = 0; k < 6; ++k) {
    CK(cudaMemset(d_odata, 0, mem_size));
    switch (k) {
    case 0: copy<<<grid, threads>>>(d_odata, d_idata, size_x, size_y); break;
    case 1: copySharedMem<<<grid, threads>>>(d_odata, d_idata, size_x, size_y); break;
    case 2: transposeNaive<<<grid, threads>>>(d_odata, d_idata, size_x, size_y); break;
    case 3: transposeCoalesced<<<grid, threads>>>(d_odata, d_idata, size_x, size_y); break;
    case 4: transposeNoBankConflicts<<<grid, threads>>>(d_odata, d_idata, size_x, size_y); break;
    case 5: transposeDiagonal<<<grid, threads>>>(d_odata, d_idata, size_x, size_y); break;
    }
    CK(cudaGetLastError());
    CK(cudaMemcpy(h_odata.data(), d_odata, mem_size, cudaMemcpyDeviceToHost));
    if (check(runs[k].name, h_idata, h_odata, size_x, size_y, runs[k].transposed))
      return 1;
  }
  CK(cudaFree(d_idata));
  CK(cudaFree(d_odata));
  std::printf("%s: ok\n", EXT_NAME);
  return 0;
}
