// gemm-specialize: runs a problem on a stream and reports like the
// cublasLtMatmul call it replaces.
static cublasStatus_t cudaoptGemmOnStream(cudaStream_t Stream,
                                          cudaoptGemmProblem Problem) {
  return cudaoptGemm(&Problem, nullptr, 0, Stream) == cudaSuccess
             ? CUBLAS_STATUS_SUCCESS
             : CUBLAS_STATUS_EXECUTION_FAILED;
}
