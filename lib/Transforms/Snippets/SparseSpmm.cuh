// sparse-weights: Y = W * X with an encoded weight on a stream, in place of
// a GEMM on the dense weight.
static cudaError_t
cudaoptSparseSpmm(cudaStream_t Stream,
                  const cudaopt::sparse::TlsDeviceMatrix *W, const void *X,
                  int Ldx, int N, void *Y, int Ldy) {
  if (!W)
    return cudaErrorInvalidValue;
  // One zeroed workspace grown to the largest use; tlsSpmm leaves it zeroed.
  static void *Workspace = nullptr;
  static size_t WorkspaceBytes = 0;
  size_t Need = cudaopt::sparse::tlsSpmmWorkspaceBytes(*W, N);
  if (Need > WorkspaceBytes) {
    cudaFree(Workspace);
    Workspace = nullptr;
    WorkspaceBytes = 0;
    cudaError_t Err = cudaMalloc(&Workspace, Need);
    if (Err == cudaSuccess)
      Err = cudaMemset(Workspace, 0, Need);
    if (Err != cudaSuccess)
      return Err;
    WorkspaceBytes = Need;
  }
  return cudaopt::sparse::tlsSpmm(*W, static_cast<const __half *>(X), Ldx, N,
                                  static_cast<__half *>(Y), Ldy, Workspace,
                                  WorkspaceBytes, Stream);
}
