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

// cuda-opt external suite: convolutionSeparable.
// From NVIDIA/cuda-samples, Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu (with convolutionSeparable_common.h's defines inlined),
// commit c94ff366aed18c797b8a85dfaac7817b0228b420. The kernels convolutionRowsKernel and convolutionColumnsKernel, the __constant__ filter and the wrappers setConvolutionKernel/convolution{Rows,Columns}GPU are upstream's, unchanged.
// The host side is rewritten for the suite (bench/external/README.md).

#include <assert.h>
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#define EXT_NAME "convolutionSeparable"
#define EXT_SEED 0x61c88647u
// ---- host helpers of the cuda-opt external suite (not upstream) ----------
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "external_common.h"
// ---------------------------------------------------------------------------
// ---- upstream Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable_common.h, lines 31-32 (unchanged) ----
#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)
// ---- end of upstream Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable_common.h lines 31-32 ----
// ---- upstream Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu, lines 32-32 (unchanged) ----
namespace cg = cooperative_groups;
// ---- end of upstream Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu lines 32-32 ----
// ---- upstream Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu, lines 34-192 (unchanged) ----

////////////////////////////////////////////////////////////////////////////////
// Convolution kernel storage
////////////////////////////////////////////////////////////////////////////////
__constant__ float c_Kernel[KERNEL_LENGTH];

extern "C" void setConvolutionKernel(float *h_Kernel)
{
    cudaMemcpyToSymbol(c_Kernel, h_Kernel, KERNEL_LENGTH * sizeof(float));
}

////////////////////////////////////////////////////////////////////////////////
// Row convolution filter
////////////////////////////////////////////////////////////////////////////////
#define ROWS_BLOCKDIM_X   16
#define ROWS_BLOCKDIM_Y   4
#define ROWS_RESULT_STEPS 8
#define ROWS_HALO_STEPS   1

__global__ void convolutionRowsKernel(float *d_Dst, float *d_Src, int imageW, int imageH, int pitch)
{
    // Handle to thread block group
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float s_Data[ROWS_BLOCKDIM_Y][(ROWS_RESULT_STEPS + 2 * ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X];

    // Offset to the left halo edge
    const int baseX = (blockIdx.x * ROWS_RESULT_STEPS - ROWS_HALO_STEPS) * ROWS_BLOCKDIM_X + threadIdx.x;
    const int baseY = blockIdx.y * ROWS_BLOCKDIM_Y + threadIdx.y;

    d_Src += baseY * pitch + baseX;
    d_Dst += baseY * pitch + baseX;

// Load main data
#pragma unroll

    for (int i = ROWS_HALO_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i++) {
        s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X] = d_Src[i * ROWS_BLOCKDIM_X];
    }

// Load left halo
#pragma unroll

    for (int i = 0; i < ROWS_HALO_STEPS; i++) {
        s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X] =
            (baseX >= -i * ROWS_BLOCKDIM_X) ? d_Src[i * ROWS_BLOCKDIM_X] : 0;
    }

// Load right halo
#pragma unroll

    for (int i = ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS + ROWS_HALO_STEPS; i++) {
        s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X] =
            (imageW - baseX > i * ROWS_BLOCKDIM_X) ? d_Src[i * ROWS_BLOCKDIM_X] : 0;
    }

    // Compute and store results
    cg::sync(cta);
#pragma unroll

    for (int i = ROWS_HALO_STEPS; i < ROWS_HALO_STEPS + ROWS_RESULT_STEPS; i++) {
        float sum = 0;

#pragma unroll

        for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++) {
            sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[threadIdx.y][threadIdx.x + i * ROWS_BLOCKDIM_X + j];
        }

        d_Dst[i * ROWS_BLOCKDIM_X] = sum;
    }
}

extern "C" void convolutionRowsGPU(float *d_Dst, float *d_Src, int imageW, int imageH)
{
    assert(ROWS_BLOCKDIM_X * ROWS_HALO_STEPS >= KERNEL_RADIUS);
    assert(imageW % (ROWS_RESULT_STEPS * ROWS_BLOCKDIM_X) == 0);
    assert(imageH % ROWS_BLOCKDIM_Y == 0);

    dim3 blocks(imageW / (ROWS_RESULT_STEPS * ROWS_BLOCKDIM_X), imageH / ROWS_BLOCKDIM_Y);
    dim3 threads(ROWS_BLOCKDIM_X, ROWS_BLOCKDIM_Y);

    convolutionRowsKernel<<<blocks, threads>>>(d_Dst, d_Src, imageW, imageH, imageW);
    getLastCudaError("convolutionRowsKernel() execution failed\n");
}

////////////////////////////////////////////////////////////////////////////////
// Column convolution filter
////////////////////////////////////////////////////////////////////////////////
#define COLUMNS_BLOCKDIM_X   16
#define COLUMNS_BLOCKDIM_Y   8
#define COLUMNS_RESULT_STEPS 8
#define COLUMNS_HALO_STEPS   1

__global__ void convolutionColumnsKernel(float *d_Dst, float *d_Src, int imageW, int imageH, int pitch)
{
    // Handle to thread block group
    cg::thread_block cta = cg::this_thread_block();
    __shared__ float s_Data[COLUMNS_BLOCKDIM_X]
                           [(COLUMNS_RESULT_STEPS + 2 * COLUMNS_HALO_STEPS) * COLUMNS_BLOCKDIM_Y + 1];

    // Offset to the upper halo edge
    const int baseX = blockIdx.x * COLUMNS_BLOCKDIM_X + threadIdx.x;
    const int baseY = (blockIdx.y * COLUMNS_RESULT_STEPS - COLUMNS_HALO_STEPS) * COLUMNS_BLOCKDIM_Y + threadIdx.y;
    d_Src += baseY * pitch + baseX;
    d_Dst += baseY * pitch + baseX;

// Main data
#pragma unroll

    for (int i = COLUMNS_HALO_STEPS; i < COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS; i++) {
        s_Data[threadIdx.x][threadIdx.y + i * COLUMNS_BLOCKDIM_Y] = d_Src[i * COLUMNS_BLOCKDIM_Y * pitch];
    }

// Upper halo
#pragma unroll

    for (int i = 0; i < COLUMNS_HALO_STEPS; i++) {
        s_Data[threadIdx.x][threadIdx.y + i * COLUMNS_BLOCKDIM_Y] =
            (baseY >= -i * COLUMNS_BLOCKDIM_Y) ? d_Src[i * COLUMNS_BLOCKDIM_Y * pitch] : 0;
    }

// Lower halo
#pragma unroll

    for (int i = COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS;
         i < COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS + COLUMNS_HALO_STEPS;
         i++) {
        s_Data[threadIdx.x][threadIdx.y + i * COLUMNS_BLOCKDIM_Y] =
            (imageH - baseY > i * COLUMNS_BLOCKDIM_Y) ? d_Src[i * COLUMNS_BLOCKDIM_Y * pitch] : 0;
    }

    // Compute and store results
    cg::sync(cta);
#pragma unroll

    for (int i = COLUMNS_HALO_STEPS; i < COLUMNS_HALO_STEPS + COLUMNS_RESULT_STEPS; i++) {
        float sum = 0;
#pragma unroll

        for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++) {
            sum += c_Kernel[KERNEL_RADIUS - j] * s_Data[threadIdx.x][threadIdx.y + i * COLUMNS_BLOCKDIM_Y + j];
        }

        d_Dst[i * COLUMNS_BLOCKDIM_Y * pitch] = sum;
    }
}

extern "C" void convolutionColumnsGPU(float *d_Dst, float *d_Src, int imageW, int imageH)
{
    assert(COLUMNS_BLOCKDIM_Y * COLUMNS_HALO_STEPS >= KERNEL_RADIUS);
    assert(imageW % COLUMNS_BLOCKDIM_X == 0);
    assert(imageH % (COLUMNS_RESULT_STEPS * COLUMNS_BLOCKDIM_Y) == 0);

    dim3 blocks(imageW / COLUMNS_BLOCKDIM_X, imageH / (COLUMNS_RESULT_STEPS * COLUMNS_BLOCKDIM_Y));
    dim3 threads(COLUMNS_BLOCKDIM_X, COLUMNS_BLOCKDIM_Y);

    convolutionColumnsKernel<<<blocks, threads>>>(d_Dst, d_Src, imageW, imageH, imageW);
    getLastCudaError("convolutionColumnsKernel() execution failed\n");
}
// ---- end of upstream Samples/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu lines 34-192 ----

// Checks one pass: dst(x, y) = sum_k src(x + k dx, y + k dy) c[R - k], zero
// outside the image, within 1e-5 of the sum of the terms' magnitudes.
static int check_pass(const char *what, const std::vector<float> &dst,
                      const std::vector<float> &src, const float *c, int W,
                      int H, int dx, int dy) {
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      double sum = 0, mag = 0;
      for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; k++) {
        int xx = x + k * dx, yy = y + k * dy;
        if (xx < 0 || xx >= W || yy < 0 || yy >= H) continue;
        double t = (double)src[(size_t)yy * W + xx] * c[KERNEL_RADIUS - k];
        sum += t;
        mag += std::fabs(t);
      }
      float got = dst[(size_t)y * W + x];
      if (!(std::fabs(got - sum) <= 1e-5 * mag + 1e-6))
        return fail(what, (long long)y * W + x, got, sum);
    }
  return 0;
}

int main() {
  // Upstream: 3072 x 3072; here 8192 x 8192 (256 MB per image).
  const int imageW = 8192, imageH = 8192;
  const size_t n = (size_t)imageW * imageH;
  float h_Kernel[KERNEL_LENGTH];
  for (float &k : h_Kernel) k = frand(0.f, 1.f) / 8.f; // random taps in [0, 1/8)
  std::vector<float> h_Input(n), h_Buffer(n), h_Output(n);
  for (float &x : h_Input) x = (float)(urand() % 256); // upstream: rand() % 256
  float *d_Input, *d_Output, *d_Buffer;
  CK(cudaMalloc(&d_Input, n * sizeof(float)));
  CK(cudaMalloc(&d_Output, n * sizeof(float)));
  CK(cudaMalloc(&d_Buffer, n * sizeof(float)));
  setConvolutionKernel(h_Kernel);
  CK(cudaGetLastError());
  CK(cudaMemcpy(d_Input, h_Input.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  convolutionRowsGPU(d_Buffer, d_Input, imageW, imageH);
  convolutionColumnsGPU(d_Output, d_Buffer, imageW, imageH);
  CK(cudaMemcpy(h_Buffer.data(), d_Buffer, n * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(h_Output.data(), d_Output, n * sizeof(float), cudaMemcpyDeviceToHost));
  // Rows from the input; columns from the GPU's own row pass.
  if (check_pass("rows (d_Buffer)", h_Buffer, h_Input, h_Kernel, imageW, imageH, 1, 0) ||
      check_pass("columns (d_Output)", h_Output, h_Buffer, h_Kernel, imageW, imageH, 0, 1))
    return 1;
  CK(cudaFree(d_Input));
  CK(cudaFree(d_Output));
  CK(cudaFree(d_Buffer));
  std::printf("%s: ok\n", EXT_NAME);
  return 0;
}
