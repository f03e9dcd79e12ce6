// Added by cuda-opt cooperative-rows: a row is shared by a group of Lanes
// consecutive threads of a warp (Lanes a power of two, at most 32). Each
// thread of the group holds a partial result; these helpers combine the
// partials with shuffles inside the group (a butterfly over Lanes / 2, ...,
// 1) and leave the row's result in every thread of the group.

/// The lanes of the calling thread's group, as a warp lane mask (1-D
/// blocks whose size is a multiple of Lanes).
static __device__ __forceinline__ unsigned cudaOptRowGroupMask(int Lanes) {
  if (Lanes >= 32)
    return 0xffffffffu;
  unsigned First = threadIdx.x % 32u / Lanes * Lanes;
  return ((1u << Lanes) - 1u) << First;
}

/// The sum of the group's partial sums.
template <typename T>
static __device__ __forceinline__ T cudaOptRowSum(T V, unsigned Mask,
                                                   int Lanes) {
  for (int Offset = Lanes / 2; Offset > 0; Offset /= 2)
    V += __shfl_xor_sync(Mask, V, Offset, Lanes);
  return V;
}

/// The product of the group's partial products.
template <typename T>
static __device__ __forceinline__ T cudaOptRowProduct(T V, unsigned Mask,
                                                       int Lanes) {
  for (int Offset = Lanes / 2; Offset > 0; Offset /= 2)
    V *= __shfl_xor_sync(Mask, V, Offset, Lanes);
  return V;
}

/// The largest partial, compared with '>' as the loop compared; the first
/// lane's result is given to all so that they agree bit for bit.
template <typename T>
static __device__ __forceinline__ T cudaOptRowMax(T V, unsigned Mask,
                                                   int Lanes) {
  for (int Offset = Lanes / 2; Offset > 0; Offset /= 2) {
    T Other = __shfl_xor_sync(Mask, V, Offset, Lanes);
    V = Other > V ? Other : V;
  }
  return __shfl_sync(Mask, V, 0, Lanes);
}

/// The smallest partial, compared with '<' as the loop compared.
template <typename T>
static __device__ __forceinline__ T cudaOptRowMin(T V, unsigned Mask,
                                                   int Lanes) {
  for (int Offset = Lanes / 2; Offset > 0; Offset /= 2) {
    T Other = __shfl_xor_sync(Mask, V, Offset, Lanes);
    V = Other < V ? Other : V;
  }
  return __shfl_sync(Mask, V, 0, Lanes);
}

/// fmaxf / fmax of the group's partials (NaNs skipped, as the loop did).
static __device__ __forceinline__ float cudaOptRowFmax(float V, unsigned Mask,
                                                       int Lanes) {
  for (int Offset = Lanes / 2; Offset > 0; Offset /= 2)
    V = fmaxf(V, __shfl_xor_sync(Mask, V, Offset, Lanes));
  return V;
}
static __device__ __forceinline__ double cudaOptRowFmax(double V, unsigned Mask,
                                                        int Lanes) {
  for (int Offset = Lanes / 2; Offset > 0; Offset /= 2)
    V = fmax(V, __shfl_xor_sync(Mask, V, Offset, Lanes));
  return V;
}

/// fminf / fmin of the group's partials.
static __device__ __forceinline__ float cudaOptRowFmin(float V, unsigned Mask,
                                                       int Lanes) {
  for (int Offset = Lanes / 2; Offset > 0; Offset /= 2)
    V = fminf(V, __shfl_xor_sync(Mask, V, Offset, Lanes));
  return V;
}
static __device__ __forceinline__ double cudaOptRowFmin(double V, unsigned Mask,
                                                        int Lanes) {
  for (int Offset = Lanes / 2; Offset > 0; Offset /= 2)
    V = fmin(V, __shfl_xor_sync(Mask, V, Offset, Lanes));
  return V;
}

/// The largest (Best, Index) pair of the group; equal values go to the
/// smaller index, as in a loop that keeps the first maximum it meets.
template <typename T, typename I>
static __device__ __forceinline__ void
cudaOptRowArgMax(T &Best, I &Index, unsigned Mask, int Lanes) {
  for (int Offset = Lanes / 2; Offset > 0; Offset /= 2) {
    T OtherBest = __shfl_xor_sync(Mask, Best, Offset, Lanes);
    I OtherIndex = __shfl_xor_sync(Mask, Index, Offset, Lanes);
    if (OtherBest > Best || (OtherBest == Best && OtherIndex < Index)) {
      Best = OtherBest;
      Index = OtherIndex;
    }
  }
  Best = __shfl_sync(Mask, Best, 0, Lanes);
  Index = __shfl_sync(Mask, Index, 0, Lanes);
}

/// The smallest (Best, Index) pair of the group; equal values go to the
/// smaller index.
template <typename T, typename I>
static __device__ __forceinline__ void
cudaOptRowArgMin(T &Best, I &Index, unsigned Mask, int Lanes) {
  for (int Offset = Lanes / 2; Offset > 0; Offset /= 2) {
    T OtherBest = __shfl_xor_sync(Mask, Best, Offset, Lanes);
    I OtherIndex = __shfl_xor_sync(Mask, Index, Offset, Lanes);
    if (OtherBest < Best || (OtherBest == Best && OtherIndex < Index)) {
      Best = OtherBest;
      Index = OtherIndex;
    }
  }
  Best = __shfl_sync(Mask, Best, 0, Lanes);
  Index = __shfl_sync(Mask, Index, 0, Lanes);
}

/// Eight 16-bit elements (__half, __nv_bfloat16, short) read and written
/// as one 16-byte vector by the vec=1 path.
template <typename T, int N> struct alignas(sizeof(T) * N) cudaOptVec {
  T v[N];
};

/// How many of the Count elements from P come before the first 16-byte
/// boundary (all of them when P is not even aligned to its element): the
/// vec=1 path reads those one by one and the rest as vectors.
template <typename T, typename I>
static __device__ __forceinline__ I cudaOptAlignHead(const T *P, I Count) {
  if (Count <= 0)
    return 0;
  unsigned Mis = reinterpret_cast<unsigned long long>(P) % 16u;
  if (Mis % sizeof(T))
    return Count;
  I Head = static_cast<I>((16u - Mis) % 16u / sizeof(T));
  return Head < Count ? Head : Count;
}

/// True when P may be read and written as a 16-byte vector.
static __device__ __forceinline__ bool cudaOptAligned16(const void *P) {
  return reinterpret_cast<unsigned long long>(P) % 16 == 0;
}

/// A row scan's step: the inclusive prefix sum of the group's terms in lane
/// order (Hillis-Steele over the group), so lane k gets V0 + ... + Vk.
template <typename T>
static __device__ __forceinline__ T cudaOptRowScanSum(T V, unsigned Mask,
                                                       int Lanes) {
  const int Lane = threadIdx.x % Lanes;
  for (int Offset = 1; Offset < Lanes; Offset *= 2) {
    T Other = __shfl_up_sync(Mask, V, Offset, Lanes);
    if (Lane >= Offset)
      V += Other;
  }
  return V;
}

/// The group's last lane's value: after cudaOptRowScanSum, the step's total,
/// the same in every lane.
template <typename T>
static __device__ __forceinline__ T cudaOptRowLast(T V, unsigned Mask,
                                                    int Lanes) {
  return __shfl_sync(Mask, V, Lanes - 1, Lanes);
}


/// cooperative-rows{scale-grid=1}: a launch's grid times Lanes, so that
/// each group of Lanes threads gets one row; capped at the largest 1-D grid
/// (the row loop strides over any rows beyond).
static inline unsigned cudaOptRowGroupGrid(unsigned long long Blocks,
                                           unsigned Lanes) {
  unsigned long long Scaled = Blocks * Lanes;
  return Scaled < 2147483647ull ? static_cast<unsigned>(Scaled) : 2147483647u;
}
