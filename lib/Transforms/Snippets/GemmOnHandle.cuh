// gemm-specialize: runs a problem on the stream of a cuBLAS handle and
// reports like the cuBLAS call it replaces.
static cublasStatus_t cudaoptGemmOnHandle(cublasHandle_t Handle,
                                          cudaoptGemmProblem Problem) {
  cudaStream_t Stream = nullptr;
  cublasStatus_t Status = cublasGetStream_v2(Handle, &Stream);
  if (Status != CUBLAS_STATUS_SUCCESS)
    return Status;
  return cudaoptGemm(&Problem, nullptr, 0, Stream) == cudaSuccess
             ? CUBLAS_STATUS_SUCCESS
             : CUBLAS_STATUS_EXECUTION_FAILED;
}
