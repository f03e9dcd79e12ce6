// cusparse-spmv: Y = A X for the CSR matrix A of Rows rows (row offsets
// RowPtr[0..Rows], column indices Cols and values Vals, base 0) through
// cuSPARSE's SpMV (CUSPARSE_SPMV_CSR_ALG1, or ALG2 when Alg is 2) on the
// launch's stream, with alpha 1 and beta 0: each Y[r] is the sum of its
// row's products, 0 for an empty row, as the kernel's loop computed it (in
// cuSPARSE's order). Returns cudaErrorNotSupported, having written
// nothing, when cuSPARSE cannot take the call as the kernel's loop read it
// (RowPtr[0] not 0, offsets that go down, no device allocation behind X,
// more rows than the index type holds); the caller then launches the
// kernel instead. Waits for the stream once, to read the number of
// non-zeros (RowPtr[Rows]). Link with -lcusparse.
template <typename Index, typename Value>
static cudaError_t cudaoptCsrSpmv(cudaStream_t Stream, long long Rows,
                                  const Index *RowPtr, const Index *Cols,
                                  const Value *Vals, const Value *X, Value *Y,
                                  int Alg) {
  static_assert(sizeof(Index) == 4 || sizeof(Index) == 8,
                "32- or 64-bit indices");
  const long long MaxIndex =
      sizeof(Index) == 4 ? 2147483647LL : 9223372036854775807LL;
  if (Rows <= 0 || Rows > MaxIndex)
    return cudaErrorNotSupported;
  // The number of non-zeros, after the work already queued on the stream.
  Index Ends[2] = {0, 0};
  if (cudaMemcpyAsync(&Ends[0], RowPtr, sizeof(Index), cudaMemcpyDeviceToHost,
                      Stream) != cudaSuccess ||
      cudaMemcpyAsync(&Ends[1], RowPtr + Rows, sizeof(Index),
                      cudaMemcpyDeviceToHost, Stream) != cudaSuccess ||
      cudaStreamSynchronize(Stream) != cudaSuccess)
    return cudaErrorNotSupported;
  if (Ends[0] != 0 || Ends[1] < 0)
    return cudaErrorNotSupported;
  const long long Nnz = static_cast<long long>(Ends[1]);
  // The kernel never said how many columns A has: any count past the
  // largest index it reads is right, and the allocation holding X bounds
  // every index the kernel could read. Asked through the driver's
  // cuMemGetAddressRange, found at run time (no -lcuda needed).
  typedef int (*AddressRangeFn)(unsigned long long *, size_t *,
                                unsigned long long);
  static AddressRangeFn AddressRange = [] {
    void *Fn = nullptr;
    cudaDriverEntryPointQueryResult Found;
#if CUDART_VERSION >= 12050
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &Fn, 12000,
                                         cudaEnableDefault,
                                         &Found) != cudaSuccess ||
        Found != cudaDriverEntryPointSuccess)
      Fn = nullptr;
#else
    if (cudaGetDriverEntryPoint("cuMemGetAddressRange", &Fn,
                                cudaEnableDefault, &Found) != cudaSuccess ||
        Found != cudaDriverEntryPointSuccess)
      Fn = nullptr;
#endif
    return reinterpret_cast<AddressRangeFn>(Fn);
  }();
  unsigned long long Base = 0;
  size_t Bytes = 0;
  const unsigned long long At = reinterpret_cast<unsigned long long>(X);
  if (!AddressRange || AddressRange(&Base, &Bytes, At) != 0 || At < Base ||
      At - Base >= Bytes)
    return cudaErrorNotSupported;
  long long Columns = static_cast<long long>((Base + Bytes - At) /
                                             sizeof(Value));
  if (Columns > MaxIndex)
    Columns = MaxIndex;
  if (Columns < 1)
    return cudaErrorNotSupported;

  // One cuSPARSE handle per device for the life of the process.
  struct Slot {
    int Device;
    cusparseHandle_t Handle;
  };
  static std::mutex Lock;
  static std::vector<Slot> Handles;
  int Device = 0;
  if (cudaGetDevice(&Device) != cudaSuccess)
    return cudaErrorNotSupported;
  std::lock_guard<std::mutex> Guard(Lock);
  cusparseHandle_t Handle = nullptr;
  for (const Slot &S : Handles)
    if (S.Device == Device)
      Handle = S.Handle;
  if (!Handle) {
    if (cusparseCreate(&Handle) != CUSPARSE_STATUS_SUCCESS)
      return cudaErrorNotSupported;
    Handles.push_back({Device, Handle});
  }
  const cusparseIndexType_t IndexType =
      sizeof(Index) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
  const cudaDataType ValueType =
      sizeof(Value) == 4 ? CUDA_R_32F : CUDA_R_64F;
  const Value One = 1, Zero = 0;
  const cusparseSpMVAlg_t Method =
      Alg == 2 ? CUSPARSE_SPMV_CSR_ALG2 : CUSPARSE_SPMV_CSR_ALG1;
  // The descriptors and the scratch buffer of the last few calls, kept:
  // made after the stream sync above, they would leave the GPU idle for
  // their host time on every call (~0.14 ms of 0.73 on the H200, 8M rows;
  // bench/JOURNAL.md, session 23). A descriptor holds pointers and sizes
  // only, so a call with the same ones reuses it whatever the arrays hold
  // now; the buffer belongs to one stream (calls on it are ordered).
  struct Plan {
    int Device;
    cudaStream_t Stream;
    const void *RowPtr, *Cols, *Vals, *X;
    void *Y;
    long long Rows, Columns, Nnz;
    int Alg;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t VX, VY;
    void *Buffer;
  };
  static std::vector<Plan> Plans; // most recent last, at most 8
  auto Release = [](Plan &P) {
    cusparseDestroyDnVec(P.VY);
    cusparseDestroyDnVec(P.VX);
    cusparseDestroySpMat(P.A);
    if (P.Buffer)
      cudaFree(P.Buffer); // waits for the calls that use it
  };
  Plan Key{Device, Stream, RowPtr, Cols, Vals, X, Y, Rows, Columns, Nnz,
           Alg, nullptr, nullptr, nullptr, nullptr};
  Plan *Found = nullptr;
  for (size_t I = 0; I < Plans.size() && !Found; ++I) {
    const Plan &P = Plans[I];
    if (P.Device == Device && P.Stream == Stream && P.RowPtr == RowPtr &&
        P.Cols == Cols && P.Vals == Vals && P.X == X && P.Y == Y &&
        P.Rows == Rows && P.Columns == Columns && P.Nnz == Nnz &&
        P.Alg == Alg) {
      Key = P;
      Plans.erase(Plans.begin() + I);
      Plans.push_back(Key);
      Found = &Plans.back();
    }
  }
  if (!Found) {
    size_t Scratch = 0;
    bool Made =
        cusparseCreateCsr(&Key.A, Rows, Columns, Nnz,
                          const_cast<Index *>(RowPtr),
                          const_cast<Index *>(Cols),
                          const_cast<Value *>(Vals), IndexType, IndexType,
                          CUSPARSE_INDEX_BASE_ZERO,
                          ValueType) == CUSPARSE_STATUS_SUCCESS &&
        cusparseCreateDnVec(&Key.VX, Columns, const_cast<Value *>(X),
                            ValueType) == CUSPARSE_STATUS_SUCCESS &&
        cusparseCreateDnVec(&Key.VY, Rows, Y, ValueType) ==
            CUSPARSE_STATUS_SUCCESS &&
        cusparseSpMV_bufferSize(Handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                &One, Key.A, Key.VX, &Zero, Key.VY,
                                ValueType, Method,
                                &Scratch) == CUSPARSE_STATUS_SUCCESS &&
        (Scratch == 0 || cudaMalloc(&Key.Buffer, Scratch) == cudaSuccess);
    if (!Made) {
      if (Key.VY)
        cusparseDestroyDnVec(Key.VY);
      if (Key.VX)
        cusparseDestroyDnVec(Key.VX);
      if (Key.A)
        cusparseDestroySpMat(Key.A);
      return cudaErrorNotSupported;
    }
    if (Plans.size() == 8) {
      Release(Plans.front());
      Plans.erase(Plans.begin());
    }
    Plans.push_back(Key);
    Found = &Plans.back();
  }
  if (cusparseSetStream(Handle, Stream) != CUSPARSE_STATUS_SUCCESS ||
      cusparseSpMV(Handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &One, Found->A,
                   Found->VX, &Zero, Found->VY, ValueType, Method,
                   Found->Buffer) != CUSPARSE_STATUS_SUCCESS)
    return cudaErrorNotSupported;
  return cudaSuccess;
}
