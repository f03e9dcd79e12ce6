// conv-cudnn: one launch of a direct 2-D convolution kernel (fp32,
// cross-correlation, zero padding): NCHW input, KCRS weights and NKPQ output,
// or (Nhwc = 1) NHWC, KRSC and NPQK.
struct cudaoptConv2dProblem {
  int N, C, H, W, K, R, S, P, Q;
  int PadH, PadW, StrideH, StrideW, DilH, DilW;
  int Nhwc;
  const float *In, *Weight, *Bias;
  float *Out;
  // cudnnConvolutionFwdAlgo_t to run, or -1: cuDNN's heuristic first choice.
  int Algo;
};

// conv-cudnn: runs the problem with cuDNN on the launch's stream, in fp32
// with FMA math only (no TF32), with the algorithm tune measured fastest
// (or cuDNN's heuristic first choice); descriptors and workspace are kept
// per shape for the life of the process. Returns cudaErrorNotSupported when
// cuDNN cannot compute exactly the P x Q output the kernel writes with that
// algorithm; the caller then launches the kernel instead. Link with -lcudnn.
// The arguments are the fields of cudaoptConv2dProblem: the tensors (Bias,
// one value per output channel added to each output, may be null),
// N, C, H, W, K, R, S, P, Q, the paddings, strides and dilations (rows, then
// columns), NHWC or not, and the algorithm.
static cudaError_t cudaoptConv2dLaunch(cudaStream_t Stream, const float *In,
                                       const float *Weight, const float *Bias,
                                       float *Out, int N,
                                       int C, int H, int W, int K, int R, int S,
                                       int P, int Q, int PadH, int PadW,
                                       int StrideH, int StrideW, int DilH,
                                       int DilW, int Nhwc, int Algo) {
  const cudaoptConv2dProblem Pb = {N,    C,       H,       W,    K,    R,
                                   S,    P,       Q,       PadH, PadW, StrideH,
                                   StrideW, DilH, DilW,    Nhwc, In,   Weight,
                                   Bias, Out,     Algo};
  struct Plan {
    int Device;
    cudaoptConv2dProblem Key;
    cudnnHandle_t Handle;
    cudnnTensorDescriptor_t X, Y, B;
    cudnnFilterDescriptor_t Wt;
    cudnnConvolutionDescriptor_t Conv;
    cudnnConvolutionFwdAlgo_t Algo;
    void *Workspace;
    size_t Bytes;
  };
  static std::mutex Lock;
  static std::vector<Plan> Plans;
  auto Same = [](const cudaoptConv2dProblem &A, const cudaoptConv2dProblem &B) {
    return A.N == B.N && A.C == B.C && A.H == B.H && A.W == B.W &&
           A.K == B.K && A.R == B.R && A.S == B.S && A.P == B.P &&
           A.Q == B.Q && A.PadH == B.PadH && A.PadW == B.PadW &&
           A.StrideH == B.StrideH && A.StrideW == B.StrideW &&
           A.DilH == B.DilH && A.DilW == B.DilW && A.Nhwc == B.Nhwc &&
           A.Algo == B.Algo;
  };
  int Device = 0;
  if (cudaGetDevice(&Device) != cudaSuccess)
    return cudaErrorNotSupported;
  std::lock_guard<std::mutex> Guard(Lock);
  Plan *Found = nullptr;
  cudnnHandle_t Handle = nullptr;
  for (Plan &Pl : Plans) {
    if (Pl.Device != Device)
      continue;
    Handle = Pl.Handle;
    if (Same(Pl.Key, Pb))
      Found = &Pl;
  }
  if (!Found) {
    if (Pb.N < 1 || Pb.C < 1 || Pb.K < 1 || Pb.P < 1 || Pb.Q < 1)
      return cudaErrorNotSupported;
    if (!Handle && cudnnCreate(&Handle) != CUDNN_STATUS_SUCCESS)
      return cudaErrorNotSupported;
    Plan Pl = {};
    Pl.Device = Device;
    Pl.Key = Pb;
    Pl.Handle = Handle;
    cudnnTensorFormat_t Format = Pb.Nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    bool Ok =
        cudnnCreateTensorDescriptor(&Pl.X) == CUDNN_STATUS_SUCCESS &&
        cudnnCreateTensorDescriptor(&Pl.Y) == CUDNN_STATUS_SUCCESS &&
        cudnnCreateTensorDescriptor(&Pl.B) == CUDNN_STATUS_SUCCESS &&
        cudnnSetTensor4dDescriptor(Pl.B, Format, CUDNN_DATA_FLOAT, 1, Pb.K, 1,
                                   1) == CUDNN_STATUS_SUCCESS &&
        cudnnCreateFilterDescriptor(&Pl.Wt) == CUDNN_STATUS_SUCCESS &&
        cudnnCreateConvolutionDescriptor(&Pl.Conv) == CUDNN_STATUS_SUCCESS &&
        cudnnSetTensor4dDescriptor(Pl.X, Format, CUDNN_DATA_FLOAT, Pb.N, Pb.C,
                                   Pb.H, Pb.W) == CUDNN_STATUS_SUCCESS &&
        cudnnSetFilter4dDescriptor(Pl.Wt, CUDNN_DATA_FLOAT, Format, Pb.K, Pb.C,
                                   Pb.R, Pb.S) == CUDNN_STATUS_SUCCESS &&
        cudnnSetConvolution2dDescriptor(
            Pl.Conv, Pb.PadH, Pb.PadW, Pb.StrideH, Pb.StrideW, Pb.DilH,
            Pb.DilW, CUDNN_CROSS_CORRELATION,
            CUDNN_DATA_FLOAT) == CUDNN_STATUS_SUCCESS &&
        cudnnSetConvolutionMathType(Pl.Conv, CUDNN_FMA_MATH) ==
            CUDNN_STATUS_SUCCESS;
    int On = 0, Oc = 0, Op = 0, Oq = 0;
    Ok = Ok && cudnnGetConvolution2dForwardOutputDim(Pl.Conv, Pl.X, Pl.Wt, &On,
                                                     &Oc, &Op, &Oq) ==
                   CUDNN_STATUS_SUCCESS;
    // cuDNN computes exactly the output the convolution has; a kernel that
    // writes fewer or more rows or columns stays a kernel.
    Ok = Ok && On == Pb.N && Oc == Pb.K && Op == Pb.P && Oq == Pb.Q &&
         cudnnSetTensor4dDescriptor(Pl.Y, Format, CUDNN_DATA_FLOAT, Pb.N, Pb.K,
                                    Pb.P, Pb.Q) == CUDNN_STATUS_SUCCESS;
    if (Ok && Pb.Algo < 0) {
      // cuDNN's ranking for the shape; the first that keeps FMA math.
      cudnnConvolutionFwdAlgoPerf_t Perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      int Count = 0;
      Ok = cudnnGetConvolutionForwardAlgorithm_v7(
               Handle, Pl.X, Pl.Wt, Pl.Conv, Pl.Y,
               CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &Count, Perf) ==
           CUDNN_STATUS_SUCCESS;
      int Pick = -1;
      for (int I = 0; Ok && I < Count && Pick < 0; ++I)
        if (Perf[I].status == CUDNN_STATUS_SUCCESS &&
            Perf[I].mathType == CUDNN_FMA_MATH)
          Pick = I;
      Ok = Ok && Pick >= 0;
      if (Ok)
        Pl.Algo = Perf[Pick].algo;
    } else {
      Pl.Algo = static_cast<cudnnConvolutionFwdAlgo_t>(Pb.Algo);
    }
    // An algorithm that does not support the shape fails here.
    Ok = Ok && cudnnGetConvolutionForwardWorkspaceSize(
                   Handle, Pl.X, Pl.Wt, Pl.Conv, Pl.Y, Pl.Algo, &Pl.Bytes) ==
                   CUDNN_STATUS_SUCCESS;
    Ok = Ok && (Pl.Bytes == 0 ||
                cudaMalloc(&Pl.Workspace, Pl.Bytes) == cudaSuccess);
    if (!Ok) {
      cudnnDestroyTensorDescriptor(Pl.X);
      cudnnDestroyTensorDescriptor(Pl.Y);
      cudnnDestroyTensorDescriptor(Pl.B);
      cudnnDestroyFilterDescriptor(Pl.Wt);
      cudnnDestroyConvolutionDescriptor(Pl.Conv);
      return cudaErrorNotSupported;
    }
    Plans.push_back(Pl);
    Found = &Plans.back();
  }
  const float One = 1.0f, Zero = 0.0f;
  if (cudnnSetStream(Found->Handle, Stream) != CUDNN_STATUS_SUCCESS ||
      cudnnConvolutionForward(Found->Handle, &One, Found->X, Pb.In, Found->Wt,
                              Pb.Weight, Found->Conv, Found->Algo,
                              Found->Workspace, Found->Bytes, &Zero, Found->Y,
                              Pb.Out) != CUDNN_STATUS_SUCCESS)
    return cudaErrorLaunchFailure;
  // out = conv + bias[k], the kernel's order: the bias after the sum.
  if (Pb.Bias && cudnnAddTensor(Found->Handle, &One, Found->B, Pb.Bias, &One,
                                Found->Y, Pb.Out) != CUDNN_STATUS_SUCCESS)
    return cudaErrorLaunchFailure;
  return cudaSuccess;
}
