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

// cuda-opt external suite: scalarProd.
// From NVIDIA/cuda-samples, Samples/2_Concepts_and_Techniques/scalarProd/scalarProd_kernel.cuh,
// commit c94ff366aed18c797b8a85dfaac7817b0228b420. The kernel scalarProdGPU is upstream's, unchanged.
// The host side is rewritten for the suite (bench/external/README.md).

#include <cuda_runtime.h>
#define EXT_NAME "scalarProd"
#define EXT_SEED 0x85ebca6bu
// ---- host helpers of the cuda-opt external suite (not upstream) ----------
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "external_common.h"
// ---------------------------------------------------------------------------
// ---- upstream Samples/2_Concepts_and_Techniques/scalarProd/scalarProd_kernel.cuh, lines 28-97 (unchanged) ----
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

///////////////////////////////////////////////////////////////////////////////
// On G80-class hardware 24-bit multiplication takes 4 clocks per warp
// (the same as for floating point  multiplication and addition),
// whereas full 32-bit multiplication takes 16 clocks per warp.
// So if integer multiplication operands are  guaranteed to fit into 24 bits
// (always lie within [-8M, 8M - 1] range in signed case),
// explicit 24-bit multiplication is preferred for performance.
///////////////////////////////////////////////////////////////////////////////
#define IMUL(a, b) __mul24(a, b)

///////////////////////////////////////////////////////////////////////////////
// Calculate scalar products of VectorN vectors of ElementN elements on GPU
// Parameters restrictions:
// 1) ElementN is strongly preferred to be a multiple of warp size to
//    meet alignment constraints of memory coalescing.
// 2) ACCUM_N must be a power of two.
///////////////////////////////////////////////////////////////////////////////
#define ACCUM_N 1024
__global__ void scalarProdGPU(float *d_C, float *d_A, float *d_B, int vectorN, int elementN)
{
    // Handle to thread block group
    cg::thread_block cta = cg::this_thread_block();
    // Accumulators cache
    __shared__ float accumResult[ACCUM_N];

    ////////////////////////////////////////////////////////////////////////////
    // Cycle through every pair of vectors,
    // taking into account that vector counts can be different
    // from total number of thread blocks
    ////////////////////////////////////////////////////////////////////////////
    for (int vec = blockIdx.x; vec < vectorN; vec += gridDim.x) {
        int vectorBase = IMUL(elementN, vec);
        int vectorEnd  = vectorBase + elementN;

        ////////////////////////////////////////////////////////////////////////
        // Each accumulator cycles through vectors with
        // stride equal to number of total number of accumulators ACCUM_N
        // At this stage ACCUM_N is only preferred be a multiple of warp size
        // to meet memory coalescing alignment constraints.
        ////////////////////////////////////////////////////////////////////////
        for (int iAccum = threadIdx.x; iAccum < ACCUM_N; iAccum += blockDim.x) {
            float sum = 0;

            for (int pos = vectorBase + iAccum; pos < vectorEnd; pos += ACCUM_N)
                sum += d_A[pos] * d_B[pos];

            accumResult[iAccum] = sum;
        }

        ////////////////////////////////////////////////////////////////////////
        // Perform tree-like reduction of accumulators' results.
        // ACCUM_N has to be power of two at this stage
        ////////////////////////////////////////////////////////////////////////
        for (int stride = ACCUM_N / 2; stride > 0; stride >>= 1) {
            cg::sync(cta);

            for (int iAccum = threadIdx.x; iAccum < stride; iAccum += blockDim.x)
                accumResult[iAccum] += accumResult[stride + iAccum];
        }

        cg::sync(cta);

        if (threadIdx.x == 0)
            d_C[vec] = accumResult[0];
    }
}
// ---- end of upstream Samples/2_Concepts_and_Techniques/scalarProd/scalarProd_kernel.cuh lines 28-97 ----

int main() {
  // Upstream: 256 vectors of 4096; here 4096 vectors of 16384 (2 x 256 MB).
  const int VECTOR_N = 4096, ELEMENT_N = 16384;
  const size_t DATA_N = (size_t)VECTOR_N * ELEMENT_N;
  std::vector<float> h_A(DATA_N), h_B(DATA_N), h_C(VECTOR_N);
  for (float &x : h_A) x = frand(0.1f, 1.0f);   // upstream's RandFloat ranges
  for (float &x : h_B) x = frand(-1.0f, 1.0f);
  float *d_A, *d_B, *d_C;
  CK(cudaMalloc(&d_A, DATA_N * sizeof(float)));
  CK(cudaMalloc(&d_B, DATA_N * sizeof(float)));
  CK(cudaMalloc(&d_C, VECTOR_N * sizeof(float)));
  CK(cudaMemcpy(d_A, h_A.data(), DATA_N * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_B, h_B.data(), DATA_N * sizeof(float), cudaMemcpyHostToDevice));
  scalarProdGPU<<<128, 256>>>(d_C, d_A, d_B, VECTOR_N, ELEMENT_N); // upstream's launch
  CK(cudaGetLastError());
  CK(cudaMemcpy(h_C.data(), d_C, VECTOR_N * sizeof(float), cudaMemcpyDeviceToHost));
  for (int v = 0; v < VECTOR_N; ++v) {
    double sum = 0, mag = 0;
    for (int e = 0; e < ELEMENT_N; ++e) {
      double p = (double)h_A[(size_t)v * ELEMENT_N + e] * h_B[(size_t)v * ELEMENT_N + e];
      sum += p;
      mag += std::fabs(p);
    }
    if (std::fabs(h_C[v] - sum) > 1e-4 * mag + 1e-6) return fail("d_C", v, h_C[v], sum);
  }
  CK(cudaFree(d_A));
  CK(cudaFree(d_B));
  CK(cudaFree(d_C));
  std::printf("%s: ok\n", EXT_NAME);
  return 0;
}
