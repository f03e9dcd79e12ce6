// Added by cuda-opt vectorize: N elements of T read and written as one
// aligned vector (8 __half in one 16-byte access), for element types and
// widths without a CUDA vector type.
#ifndef CUDA_OPT_VECTOR_LANES
#define CUDA_OPT_VECTOR_LANES
template <typename T, int N> struct alignas(sizeof(T) * N) cudaOptLanes {
  T v[N];
};
#endif
