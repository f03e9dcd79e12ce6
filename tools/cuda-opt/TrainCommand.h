//===- TrainCommand.h - `cuda-opt train` ------------------------*- C++ -*-===//
//
// Fits the learned ranker from a tuning database and writes the model file
// or its leave-one-program-out evaluation (docs/policy.md).
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_OPT_TOOLS_TRAINCOMMAND_H
#define CUDA_OPT_TOOLS_TRAINCOMMAND_H

/// Runs the subcommand; Argv[0] is "train". Returns the exit code.
int runTrainCommand(int Argc, const char **Argv);

#endif // CUDA_OPT_TOOLS_TRAINCOMMAND_H
