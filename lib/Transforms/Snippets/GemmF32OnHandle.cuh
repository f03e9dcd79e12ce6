// gemm-specialize: copies a Rows x Cols row-major matrix between fp32 and
// fp16 (cublasSgemm under allow-fp16-compute).
__global__ void cudaoptFloatToHalf(__half *Dst, long long Ldd, const float *Src,
                                   long long Lds, int Rows, int Cols) {
  long long Count = (long long)Rows * Cols;
  for (long long I = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       I < Count; I += (long long)gridDim.x * blockDim.x)
    Dst[I / Cols * Ldd + I % Cols] = __float2half(Src[I / Cols * Lds + I % Cols]);
}
__global__ void cudaoptHalfToFloat(float *Dst, long long Ldd, const __half *Src,
                                   long long Lds, int Rows, int Cols) {
  long long Count = (long long)Rows * Cols;
  for (long long I = blockIdx.x * (long long)blockDim.x + threadIdx.x;
       I < Count; I += (long long)gridDim.x * blockDim.x)
    Dst[I / Cols * Ldd + I % Cols] = __half2float(Src[I / Cols * Lds + I % Cols]);
}

// gemm-specialize: runs an fp32 problem (A, B, C are float) as an fp16 one:
// A and B (and C when Beta != 0) are rounded to fp16 copies, accumulation
// is fp32, and the fp16 result is widened back into C.
static cublasStatus_t cudaoptGemmF32OnHandle(cublasHandle_t Handle,
                                             cudaoptGemmProblem Problem) {
  cudaStream_t Stream = nullptr;
  cublasStatus_t Status = cublasGetStream_v2(Handle, &Stream);
  if (Status != CUBLAS_STATUS_SUCCESS)
    return Status;
  int M = Problem.M, N = Problem.N, K = Problem.K;
  bool BRow = Problem.LayoutB == CUDAOPT_GEMM_B_ROW;
  int BRows = BRow ? K : N, BCols = BRow ? N : K;
  __half *A = nullptr, *B = nullptr, *C = nullptr;
  bool Allocated =
      cudaMallocAsync(&A, sizeof(__half) * M * K, Stream) == cudaSuccess &&
      cudaMallocAsync(&B, sizeof(__half) * K * N, Stream) == cudaSuccess &&
      cudaMallocAsync(&C, sizeof(__half) * M * N, Stream) == cudaSuccess;
  if (!Allocated) {
    for (__half *P : {A, B, C})
      if (P)
        cudaFreeAsync(P, Stream);
    return CUBLAS_STATUS_ALLOC_FAILED;
  }
  auto Blocks = [](long long Count) {
    return (unsigned)std::min<long long>((Count + 255) / 256, 4096);
  };
  cudaoptFloatToHalf<<<Blocks((long long)M * K), 256, 0, Stream>>>(
      A, K, static_cast<const float *>(Problem.A), Problem.Lda, M, K);
  cudaoptFloatToHalf<<<Blocks((long long)K * N), 256, 0, Stream>>>(
      B, BCols, static_cast<const float *>(Problem.B), Problem.Ldb, BRows,
      BCols);
  if (Problem.Beta != 0.0f)
    cudaoptFloatToHalf<<<Blocks((long long)M * N), 256, 0, Stream>>>(
        C, N, static_cast<const float *>(Problem.C), Problem.Ldc, M, N);
  float *Out = static_cast<float *>(Problem.C);
  long long Ldc = Problem.Ldc;
  Problem.A = A;
  Problem.Lda = K;
  Problem.B = B;
  Problem.Ldb = BCols;
  Problem.C = C;
  Problem.Ldc = N;
  cudaError_t Err = cudaoptGemm(&Problem, nullptr, 0, Stream);
  if (Err == cudaSuccess)
    cudaoptHalfToFloat<<<Blocks((long long)M * N), 256, 0, Stream>>>(
        Out, Ldc, C, N, M, N);
  cudaFreeAsync(A, Stream);
  cudaFreeAsync(B, Stream);
  cudaFreeAsync(C, Stream);
  return Err == cudaSuccess && cudaPeekAtLastError() == cudaSuccess
             ? CUBLAS_STATUS_SUCCESS
             : CUBLAS_STATUS_EXECUTION_FAILED;
}
