//===- SparseEncodeCommand.h - `cuda-opt sparse-encode` -------------------===//
//
// Converts a 2-D fp16/bf16 weight (.npy or .safetensors) to the three-layer
// sparse format (.tls, runtime/sparse) and reports where the nonzeros went.
//
//===----------------------------------------------------------------------===//

#ifndef CUDA_OPT_TOOLS_SPARSEENCODECOMMAND_H
#define CUDA_OPT_TOOLS_SPARSEENCODECOMMAND_H

/// Runs the subcommand; Argv[0] is "sparse-encode". Returns the exit code.
int runSparseEncodeCommand(int Argc, const char **Argv);

#endif // CUDA_OPT_TOOLS_SPARSEENCODECOMMAND_H
