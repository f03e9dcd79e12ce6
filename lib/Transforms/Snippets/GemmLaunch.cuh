// gemm-specialize: runs a problem on a stream where a GEMM kernel was
// launched; errors also reach cudaGetLastError, as a launch's would.
static cudaError_t cudaoptGemmLaunch(cudaStream_t Stream,
                                     cudaoptGemmProblem Problem) {
  return cudaoptGemm(&Problem, nullptr, 0, Stream);
}
