// cub-histogram: CUB's histogram writes its counters, where the kernel it
// replaces added to the counters already in memory; the counts go to scratch
// counters first, and cudaoptAddCounts adds them (times the kernel's weight
// per element) to the histogram. Integer arithmetic modulo 2^bits, as the
// atomic additions were.
template <typename Counter, typename Count, typename Weight>
__global__ void cudaoptAddCounts(Counter *Hist, const Count *Counts,
                                 long long Bins, Weight W) {
  long long B = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (B < Bins)
    Hist[B] = (Counter)((unsigned long long)Hist[B] +
                        (unsigned long long)W * (unsigned long long)Counts[B]);
}
