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

// cuda-opt external suite: matrixMul.
// From NVIDIA/cuda-samples, Samples/0_Introduction/matrixMul/matrixMul.cu,
// commit c94ff366aed18c797b8a85dfaac7817b0228b420. The kernel template MatrixMulCUDA is upstream's, unchanged (instantiated with BLOCK_SIZE 32, upstream's default).
// The host side is rewritten for the suite (bench/external/README.md).

#include <cuda_runtime.h>
#define EXT_NAME "matrixMul"
#define EXT_SEED 0xc2b2ae35u
// ---- host helpers of the cuda-opt external suite (not upstream) ----------
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "external_common.h"
// ---------------------------------------------------------------------------
// ---- upstream Samples/0_Introduction/matrixMul/matrixMul.cu, lines 53-126 (unchanged) ----

/**
 * Matrix multiplication (CUDA Kernel) on the device: C = A * B
 * wA is A's width and wB is B's width
 */
template <int BLOCK_SIZE> __global__ void MatrixMulCUDA(float *C, float *A, float *B, int wA, int wB)
{
    // Block index
    int bx = blockIdx.x;
    int by = blockIdx.y;

    // Thread index
    int tx = threadIdx.x;
    int ty = threadIdx.y;

    // Index of the first sub-matrix of A processed by the block
    int aBegin = wA * BLOCK_SIZE * by;

    // Index of the last sub-matrix of A processed by the block
    int aEnd = aBegin + wA - 1;

    // Step size used to iterate through the sub-matrices of A
    int aStep = BLOCK_SIZE;

    // Index of the first sub-matrix of B processed by the block
    int bBegin = BLOCK_SIZE * bx;

    // Step size used to iterate through the sub-matrices of B
    int bStep = BLOCK_SIZE * wB;

    // Csub is used to store the element of the block sub-matrix
    // that is computed by the thread
    float Csub = 0;

    // Loop over all the sub-matrices of A and B
    // required to compute the block sub-matrix
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        // Declaration of the shared memory array As used to
        // store the sub-matrix of A
        __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];

        // Declaration of the shared memory array Bs used to
        // store the sub-matrix of B
        __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

        // Load the matrices from device memory
        // to shared memory; each thread loads
        // one element of each matrix
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];

        // Synchronize to make sure the matrices are loaded
        __syncthreads();

        // Multiply the two matrices together;
        // each thread computes one element
        // of the block sub-matrix
#pragma unroll

        for (int k = 0; k < BLOCK_SIZE; ++k) {
            Csub += As[ty][k] * Bs[k][tx];
        }

        // Synchronize to make sure that the preceding
        // computation is done before loading two new
        // sub-matrices of A and B in the next iteration
        __syncthreads();
    }

    // Write the block sub-matrix to device memory;
    // each thread writes one element
    int c               = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    C[c + wB * ty + tx] = Csub;
}
// ---- end of upstream Samples/0_Introduction/matrixMul/matrixMul.cu lines 53-126 ----

int main() {
  // Upstream: A 320 x 320, B 640 x 320 of constants; here C (2048 x 2048) =
  // A (2048 x 2048) B (2048 x 2048) of random values.
  const int block_size = 32;
  dim3 dimsA(2048, 2048, 1), dimsB(2048, 2048, 1); // x = width (columns), y = height
  const size_t size_A = (size_t)dimsA.x * dimsA.y, size_B = (size_t)dimsB.x * dimsB.y;
  const size_t size_C = (size_t)dimsB.x * dimsA.y;
  std::vector<float> h_A(size_A), h_B(size_B), h_C(size_C);
  for (float &x : h_A) x = frand(-1.f, 1.f);
  for (float &x : h_B) x = frand(-1.f, 1.f);
  float *d_A, *d_B, *d_C;
  CK(cudaMalloc(&d_A, size_A * sizeof(float)));
  CK(cudaMalloc(&d_B, size_B * sizeof(float)));
  CK(cudaMalloc(&d_C, size_C * sizeof(float)));
  CK(cudaMemcpy(d_A, h_A.data(), size_A * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_B, h_B.data(), size_B * sizeof(float), cudaMemcpyHostToDevice));
  dim3 threads(block_size, block_size);
  dim3 grid(dimsB.x / threads.x, dimsA.y / threads.y);
  MatrixMulCUDA<32><<<grid, threads>>>(d_C, d_A, d_B, dimsA.x, dimsB.x);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h_C.data(), d_C, size_C * sizeof(float), cudaMemcpyDeviceToHost));
  // A sample of 4096 outputs plus the four corners, against fp64, within
  // 1e-4 of the sum of the products' magnitudes.
  const int M = dimsA.y, N = dimsB.x, K = dimsA.x;
  for (int s = 0; s < 4100; s++) {
    int i, j;
    if (s < 4) { i = (s & 1) ? M - 1 : 0; j = (s & 2) ? N - 1 : 0; }
    else { i = (int)(urand() % M); j = (int)(urand() % N); }
    double sum = 0, mag = 0;
    for (int k = 0; k < K; k++) {
      double p = (double)h_A[(size_t)i * K + k] * h_B[(size_t)k * N + j];
      sum += p;
      mag += std::fabs(p);
    }
    float got = h_C[(size_t)i * N + j];
    if (!(std::fabs(got - sum) <= 1e-4 * mag)) return fail("d_C", (long long)i * N + j, got, sum);
  }
  CK(cudaFree(d_A));
  CK(cudaFree(d_B));
  CK(cudaFree(d_C));
  std::printf("%s: ok\n", EXT_NAME);
  return 0;
}
