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

#endif // CUDAOPT_GEMM_SM90CONFIGS_H
