// A kernel with code under a __CUDA_ARCH__ condition: cuda-opt analyses the
// host-side parse, where that code is not compiled (here the only store
// through d), so no pass may rewrite it: restrict-const would make d const
// and nvcc's device pass would reject the store. Found on cuda-samples'
// tensor-core GEMMs (docs/suite-sweep.md).
// RUN: rm -rf %t && mkdir -p %t
// RUN: not cuda-opt --passes=restrict-const %s -o %t/out.cu 2>&1 | FileCheck %s
// CHECK: kernel 'store_sm80' has code under a __CUDA_ARCH__ condition at {{.*}}arch-conditional.cu:[[@LINE+13]]:{{[0-9]+}}, which the host-side parse cuda-opt analyses does not compile, so it cannot see everything the kernel does
// RUN: not test -e %t/out.cu
// The kernel without the condition is rewritten as usual.
// RUN: cuda-opt --passes='launch-bounds{threads=256}' --kernel=store_any %s -o %t/any.cu
// RUN: FileCheck %s --check-prefix=ANY --input-file=%t/any.cu
// ANY: __launch_bounds__(256)
// Without a GPU the prediction leaves it alone and says why.
// RUN: cuda-opt %s --kernel=store_sm80 -o %t/pred.cu 2>/dev/null
// RUN: FileCheck %s --check-prefix=PRED --input-file=%t/pred.cu.report.md
// PRED: | store_sm80 original | skipped: {{.*}}__CUDA_ARCH__ condition

__global__ void store_sm80(float *d, const float *s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#if __CUDA_ARCH__ >= 800
  if (i < n)
    d[i] = s[i];
#endif
}

__global__ void store_any(float *d, const float *s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    d[i] = s[i];
}
