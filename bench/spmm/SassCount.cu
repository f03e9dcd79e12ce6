//===- SassCount.cu - The kernels bench/spmm/sass-count.py counts ---------===//
//
// Instantiates the pipeline-3 kernel (tlsSpmmBulkKernel) with the table
// decode, the bit-sliced one, the bit-sliced one with gatherRanked, with
// gatherRankedMin and with that unrolled (DECODE 0-4) for one n-tile
// (TLS_NT, default 8), TLS_WARPS consumer warps x TLS_STAGES stages (default
// 8 x 3, the planner's up to n-tile 32), fp16. Compiled alone
// to a cubin (device code only) by the script, with TLS_SASS_MARKERS
// defined for the phase markers or without for the real code.
//
//===----------------------------------------------------------------------===//

#include "SpmmBulkKernel.cuh"

#ifndef TLS_NT
#define TLS_NT 8
#endif
#ifndef TLS_WARPS
#define TLS_WARPS 8
#endif
#ifndef TLS_STAGES
#define TLS_STAGES 3
#endif

namespace cudaopt {
namespace sparse {
// Host references make nvcc emit both instantiations.
void *SassCountKernels[] = {
    reinterpret_cast<void *>(
        tlsSpmmBulkKernel<TLS_NT, TLS_WARPS, TLS_STAGES, false, DecodeTables>),
    reinterpret_cast<void *>(
        tlsSpmmBulkKernel<TLS_NT, TLS_WARPS, TLS_STAGES, false, DecodeBits>),
    reinterpret_cast<void *>(
        tlsSpmmBulkKernel<TLS_NT, TLS_WARPS, TLS_STAGES, false, DecodeBitsRanked>),
    reinterpret_cast<void *>(
        tlsSpmmBulkKernel<TLS_NT, TLS_WARPS, TLS_STAGES, false, DecodeBitsMin>),
    reinterpret_cast<void *>(
        tlsSpmmBulkKernel<TLS_NT, TLS_WARPS, TLS_STAGES, false, DecodeBitsMin4>),
};
} // namespace sparse
} // namespace cudaopt
