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

// cuda-opt external suite: vectorAdd.
// From NVIDIA/cuda-samples, Samples/0_Introduction/vectorAdd/vectorAdd.cu,
// commit c94ff366aed18c797b8a85dfaac7817b0228b420. The kernel is upstream's, unchanged;
// the host side is rewritten for the suite (bench/external/README.md).

#include <cuda_runtime.h>
#define EXT_NAME "vectorAdd"
#define EXT_SEED 0x9e3779b9u
// ---- host helpers of the cuda-opt external suite (not upstream) ----------
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "external_common.h"
// ---------------------------------------------------------------------------
// ---- upstream Samples/0_Introduction/vectorAdd/vectorAdd.cu, lines 41-54 (unchanged) ----
/**
 * CUDA Kernel Device code
 *
 * Computes the vector addition of A and B into C. The 3 vectors have the same
 * number of elements numElements.
 */
__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;

    if (i < numElements) {
        C[i] = A[i] + B[i] + 0.0f;
    }
}
// ---- end of upstream Samples/0_Introduction/vectorAdd/vectorAdd.cu lines 41-54 ----

int main() {
  const int numElements = 1 << 26; // 256 MB per vector
  std::vector<float> A(numElements), B(numElements), C(numElements);
  for (float &x : A) x = frand(-1.f, 1.f);
  for (float &x : B) x = frand(-1.f, 1.f);
  size_t size = (size_t)numElements * sizeof(float);
  float *d_A, *d_B, *d_C;
  CK(cudaMalloc(&d_A, size));
  CK(cudaMalloc(&d_B, size));
  CK(cudaMalloc(&d_C, size));
  CK(cudaMemcpy(d_A, A.data(), size, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_B, B.data(), size, cudaMemcpyHostToDevice));
  int threadsPerBlock = 256;
  int blocksPerGrid = (numElements + threadsPerBlock - 1) / threadsPerBlock;
  vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, numElements);
  CK(cudaGetLastError());
  CK(cudaMemcpy(C.data(), d_C, size, cudaMemcpyDeviceToHost));
  for (int i = 0; i < numElements; ++i) {
    double want = (double)A[i] + (double)B[i];
    if (std::fabs(C[i] - want) > 1e-5 * std::fabs(want) + 1e-7)
      return fail("C", i, C[i], want);
  }
  CK(cudaFree(d_A));
  CK(cudaFree(d_B));
  CK(cudaFree(d_C));
  std::printf("%s: ok\n", EXT_NAME);
  return 0;
}
