// cub-sort: the keys' bitonic network ran one launch per stage, reading and
// writing all n keys each time (log2(n) * (log2(n) + 1) / 2 passes). CUB's
// radix sort gives the same sorted keys in a few passes. The network sorts
// when n is a power of two and the step's one-dimensional grid ran one
// thread per key (at least one, for a kernel that returns from threads
// i >= Guard, when Guard is n); cudaoptBitonicSorts says whether that held
// for this run. Guard < 0: the kernel has no guard.
static bool cudaoptBitonicSorts(long long N, dim3 Grid, dim3 Block,
                                long long Guard = -1) {
  if (N < 2)
    return true;
  if ((N & (N - 1)) != 0 || Grid.y != 1 || Grid.z != 1 || Block.y != 1 ||
      Block.z != 1)
    return false;
  long long Threads = (long long)Grid.x * (long long)Block.x;
  return Guard < 0 ? Threads == N : Guard == N && Threads >= N;
}

// Sorts Keys[0, N) with CUB on the default stream: stream-ordered scratch and
// a second buffer, the result copied back into Keys when CUB left it in the
// second one. An error before the sort starts (the allocations) leaves the
// keys as they were and is returned, so the caller can run its loops
// instead; it is cleared from cudaGetLastError when no error was pending
// before, so the loops' own checks see what they would have seen.
template <typename Key>
static cudaError_t cudaoptSortKeys(Key *Keys, long long N, bool Descending) {
  if (N < 2)
    return cudaSuccess;
  cudaError_t Pending = cudaPeekAtLastError();
  Key *Alt = nullptr;
  void *Scratch = nullptr;
  size_t ScratchBytes = 0;
  cub::DoubleBuffer<Key> Buffers(Keys, Keys);
  cudaError_t Err =
      Descending ? cub::DeviceRadixSort::SortKeysDescending(
                       nullptr, ScratchBytes, Buffers, N)
                 : cub::DeviceRadixSort::SortKeys(nullptr, ScratchBytes,
                                                  Buffers, N);
  if (Err == cudaSuccess)
    Err = cudaMallocAsync((void **)&Alt, N * sizeof(Key), 0);
  if (Err == cudaSuccess)
    Err = cudaMallocAsync(&Scratch, ScratchBytes, 0);
  if (Err == cudaSuccess) {
    Buffers = cub::DoubleBuffer<Key>(Keys, Alt);
    Err = Descending ? cub::DeviceRadixSort::SortKeysDescending(
                           Scratch, ScratchBytes, Buffers, N)
                     : cub::DeviceRadixSort::SortKeys(Scratch, ScratchBytes,
                                                      Buffers, N);
    if (Err == cudaSuccess && Buffers.Current() != Keys)
      Err = cudaMemcpyAsync(Keys, Buffers.Current(), N * sizeof(Key),
                            cudaMemcpyDeviceToDevice, 0);
  }
  if (Scratch)
    cudaFreeAsync(Scratch, 0);
  if (Alt)
    cudaFreeAsync(Alt, 0);
  if (Err != cudaSuccess && Pending == cudaSuccess)
    (void)cudaGetLastError();
  return Err;
}
