// The weight and its .tls file can be named on the command line instead of
// with a pragma: sparse-weights{weight=Wv,file=wv.tls} treats every
// cublasGemmEx call that passes Wv as marked; calls that do not pass it are
// left alone, and a weight no call passes is refused with the reason.
// RUN: cuda-opt --passes='sparse-weights{weight=Wv,file=weights/wv.tls}' %s -o %t.cu -- -I%S/../../runtime/sparse/include
// RUN: FileCheck %s < %t.cu
// RUN: %cuda_compile -I%S/../../runtime/sparse/include %t.cu
// RUN: not cuda-opt --passes='sparse-weights{weight=Wq}' --kernel=touch %s -o %t2.cu -- -I%S/../../runtime/sparse/include 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: cuda-opt --list-passes | FileCheck %s --check-prefix=LIST

#include <cublas_v2.h>
#include <cuda_fp16.h>

// A kernel, so the pipeline has a step to run in.
__global__ void touch(__half *p) { p[0] = p[0]; }

// CHECK: cudaopt::sparse::readTlsFile("weights/wv.tls"
int attention_v(cublasHandle_t h, const __half *Wv, const __half *Wk,
                const __half *x, __half *v, __half *k, int d, int tokens) {
  const float one = 1.0f, zero = 0.0f;
  // CHECK: cudaoptSparseGemm(h,
  cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, d, tokens, d, &one, Wv, CUDA_R_16F,
               d, x, CUDA_R_16F, d, &zero, v, CUDA_R_16F, d,
               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  // CHECK: {{^}}  cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, d, tokens, d, &one, Wk,
  cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, d, tokens, d, &one, Wk, CUDA_R_16F,
               d, x, CUDA_R_16F, d, &zero, k, CUDA_R_16F, d,
               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  return 0;
}

// NONE: weight=Wq: no cublasGemmEx call or kernel launch in this file passes 'Wq'
// LIST: weight=<text>: the weight variable
// LIST: file=<text>: a .tls file
