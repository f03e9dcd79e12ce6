//===- TuneBatch.h - The shards of cuda-opt tune-batch ----------*- C++ -*-===//
//
// Part of cuda-opt. `tune-batch FILE... -o DIR` deals the files into shards
// and writes DIR/tune-batch.sh, one bash script that tunes one shard
// (`bash tune-batch.sh SHARD [GPU]`, or under Slurm the task
// $SLURM_ARRAY_TASK_ID of the job array its #SBATCH lines describe). Each
// file becomes `cuda-opt tune FILE --db DB ... -o DIR/NAME`; the shard ends
// by writing DIR/status/shard-N (its exit and each file's), which
// tune-batch reads back. TuneBatchScript.cpp writes and reads these;
// TuneBatchCommand.cpp drives the batch, SlurmJob.cpp talks to Slurm.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TOOLS_TUNEBATCH_H
#define CUDA_OPT_TOOLS_TUNEBATCH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cuda_opt {

/// What the script runs.
struct BatchScript {
  std::string CudaOpt;    ///< This cuda-opt, absolute.
  std::string Database;   ///< --db (a path made absolute, or a URL).
  std::string OutDir;     ///< -o, absolute.
  std::string WorkingDir; ///< Where the shards run (relative -I flags).
  std::vector<std::string> TuneArgs;   ///< cli::tuneBatchForwardedArgs().
  std::vector<std::string> ParseFlags; ///< After "--".
  std::vector<std::vector<std::string>> Shards; ///< Absolute paths.
  /// The #SBATCH lines: a GPU per task unless DryRun; the partition and
  /// time limit when given.
  bool DryRun = false;
  std::string Partition, TimeLimit;
};

/// The files dealt round-robin into \p Count shards (file I into shard
/// I mod Count), in their order.
std::vector<std::vector<std::string>>
dealIntoShards(llvm::ArrayRef<std::string> Files, unsigned Count);

/// The text of DIR/tune-batch.sh.
std::string batchScriptText(const BatchScript &S);

/// `name` as one bash word ('...' when it has to be).
std::string shellWord(llvm::StringRef Word);

/// What a shard left in DIR/status/shard-N; nullopt: no such file (the
/// shard did not finish: killed, timed out, its node lost).
struct ShardStatus {
  int Exit = -1;
  std::vector<std::pair<int, std::string>> Files; ///< Exit, file.
};
std::optional<ShardStatus> readShardStatus(llvm::StringRef OutDir,
                                           unsigned Shard);

/// DIR/logs/shard-N.log: where a shard's output goes.
std::string shardLogPath(llvm::StringRef OutDir, unsigned Shard);

} // namespace cuda_opt

#endif // CUDA_OPT_TOOLS_TUNEBATCH_H
