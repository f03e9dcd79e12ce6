// sparse-weights: the SpMM on the stream of a cuBLAS handle, reporting like
// the cublasGemmEx call it replaces.
static cublasStatus_t
cudaoptSparseGemm(cublasHandle_t Handle,
                  const cudaopt::sparse::TlsDeviceMatrix *W, const void *X,
                  int Ldx, int N, void *Y, int Ldy) {
  cudaStream_t Stream = nullptr;
  cublasStatus_t Status = cublasGetStream_v2(Handle, &Stream);
  if (Status != CUBLAS_STATUS_SUCCESS)
    return Status;
  return cudaoptSparseSpmm(Stream, W, X, Ldx, N, Y, Ldy) == cudaSuccess
             ? CUBLAS_STATUS_SUCCESS
             : CUBLAS_STATUS_EXECUTION_FAILED;
}
