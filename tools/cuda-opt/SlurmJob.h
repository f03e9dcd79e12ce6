//===- SlurmJob.h - A Slurm job array, submitted and watched ----*- C++ -*-===//
//
// Part of cuda-opt. What `tune-batch --slurm` asks of Slurm, through its
// client commands (the cluster's own, so that its configuration and
// authentication apply): sbatch --parsable submits the array, squeue says
// how many tasks are pending or running, scontrol what became of a task
// that left no result, scancel ends the job when the batch times out.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TOOLS_SLURMJOB_H
#define CUDA_OPT_TOOLS_SLURMJOB_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace cuda_opt {

/// The client commands, found on PATH.
struct SlurmCommands {
  std::string Sbatch, Squeue, Scontrol, Scancel;

  /// All four, or an error naming the one missing and how to get it.
  static llvm::Expected<SlurmCommands> find();
};

/// Submit \p Script (its #SBATCH lines say the rest); the job's id.
llvm::Expected<std::string> submitJob(const SlurmCommands &Slurm,
                                      llvm::StringRef Script);

/// The tasks of a job array that squeue still lists.
struct JobProgress {
  unsigned Pending = 0, Running = 0, Other = 0;
  unsigned active() const { return Pending + Running + Other; }
};

/// What squeue says of job \p JobId now; no task listed: the job is over.
llvm::Expected<JobProgress> jobProgress(const SlurmCommands &Slurm,
                                        llvm::StringRef JobId);

/// The state Slurm recorded for task \p Task of the array \p JobId
/// (COMPLETED, FAILED, TIMEOUT, CANCELLED, NODE_FAIL, ...), with its exit
/// code and reason when it has them; empty when Slurm no longer knows.
std::string taskState(const SlurmCommands &Slurm, llvm::StringRef JobId,
                      unsigned Task);

/// scancel the job (best effort).
void cancelJob(const SlurmCommands &Slurm, llvm::StringRef JobId);

} // namespace cuda_opt

#endif // CUDA_OPT_TOOLS_SLURMJOB_H
