//===- Sm90Configs.h - the compiled sm_90a GEMM configurations --*- C++ -*-===//
//
// X(Id, BM, BN, NumConsumers, Stages, ModelEfficiency). Each row is compiled
// for fp16/bf16 x B col/row-major. ModelEfficiency is the cost model's guess
// of the fraction of tensor-core peak the main loop sustains (bigger tiles
// reuse more). Ids are stable: the tuned table refers to them.
//
//===----------------------------------------------------------------------===//

#ifndef CUDAOPT_GEMM_SM90CONFIGS_H
#define CUDAOPT_GEMM_SM90CONFIGS_H

#define CUDAOPT_GEMM_SM90_CONFIGS(X)                                           \
  X(0, 128, 256, 2, 4, 0.82)                                                   \
  X(1, 256, 128, 2, 4, 0.80)                                                   \
  X(2, 128, 128, 2, 6, 0.70)                                                   \
  X(3, 64, 256, 1, 5, 0.62)                                                    \
  X(4, 64, 128, 1, 8, 0.55)                                                    \
  X(5, 128, 64, 2, 8, 0.50)                                                    \
  X(6, 64, 64, 1, 12, 0.40)

/// The 192-wide tiles (issue 16 item 1): cuBLAS's 128x192 fills one wave on
/// shapes where 128/256-wide tiles leave SMs idle (e.g. N = 12288 over 132
/// SMs). Ids 9 and 10 follow the mma.sync kernels (7, 8: Internal.h), so the
/// ids the tuned table and recorded plans hold stay valid. Compiled and
/// checked (gemm-bench --special), but not offered by the cost model until
/// they are measured (Model.cpp, ModelOffers).
#define CUDAOPT_GEMM_SM90_WIDE_CONFIGS(X)                                      \
  X(9, 128, 192, 2, 4, 0.80)                                                   \
  X(10, 64, 192, 1, 6, 0.60)

/// The swapped narrow tiles (issue 16 item 3: decode-sized M on the tensor
/// cores, as cuBLAS's 64x8 ... 128x16 kernels do). They compute
/// C^T = B^T A^T: the problem's N runs along the wgmma M side (BM rows of
/// B) and its small M along the narrow wgmma N side (BN rows of A, K-major),
/// and the epilogue stores the transposed tile. B col-major ("TN", the
/// nn.Linear weight) is then a K-major A operand; B row-major an M-major
/// one (loaded in 64-row chunks, wgmma's transpose-A bit). One consumer
/// warpgroup (the math is trivial next to streaming the weight), deep rings
/// (~200 KB in flight per SM). Ids follow the wide tiles; the cost model
/// offers 11 and 12 where they were measured to win (Model.cpp).
/// KernelInfo::swapsOperands and Sm90Gemm::SwapAB both ask isSwappedTile
/// (Sm90Params.h).
#define CUDAOPT_GEMM_SM90_SWAP_CONFIGS(X)                                      \
  X(11, 128, 16, 1, 12, 0.50)                                                  \
  X(12, 64, 16, 1, 16, 0.40)                                                   \
  X(13, 128, 32, 1, 11, 0.50)

#endif // CUDAOPT_GEMM_SM90CONFIGS_H
