//===- SlurmJob.cpp - A Slurm job array, submitted and watched ------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "SlurmJob.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <optional>

using namespace llvm;

namespace cuda_opt {

namespace {

/// What a client command printed and how it ended.
struct CommandResult {
  int Status = -1;
  std::string Out, Err;
};

std::string slurp(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  return B ? (*B)->getBuffer().str() : std::string();
}

/// Run \p Program with \p Args (a client command answers in seconds; one
/// that hangs, with the controller down, is stopped after \p Timeout).
CommandResult runCommand(StringRef Program, ArrayRef<std::string> Args,
                         unsigned Timeout = 120) {
  CommandResult R;
  SmallString<128> OutPath, ErrPath;
  if (sys::fs::createTemporaryFile("cuda-opt-slurm", "out", OutPath) ||
      sys::fs::createTemporaryFile("cuda-opt-slurm", "err", ErrPath)) {
    R.Err = "cannot create a temporary file";
    return R;
  }
  SmallVector<StringRef> Argv = {Program};
  for (const std::string &A : Args)
    Argv.push_back(A);
  std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(OutPath),
                                          StringRef(ErrPath)};
  std::string ErrMsg;
  R.Status = sys::ExecuteAndWait(Program, Argv, std::nullopt, Redirects,
                                 Timeout, 0, &ErrMsg);
  R.Out = slurp(OutPath);
  R.Err = StringRef(slurp(ErrPath) + ErrMsg).trim().str();
  sys::fs::remove(OutPath);
  sys::fs::remove(ErrPath);
  return R;
}

} // namespace

Expected<SlurmCommands> SlurmCommands::find() {
  SlurmCommands S;
  struct {
    const char *Name;
    std::string *Into;
  } Commands[] = {{"sbatch", &S.Sbatch},
                  {"squeue", &S.Squeue},
                  {"scontrol", &S.Scontrol},
                  {"scancel", &S.Scancel}};
  for (auto &C : Commands) {
    ErrorOr<std::string> P = sys::findProgramByName(C.Name);
    if (!P)
      return createStringError(
          inconvertibleErrorCode(),
          "--slurm: '%s' was not found on PATH; run tune-batch where Slurm's "
          "client commands are installed (Debian: apt-get install "
          "slurm-client) or drop --slurm to run the shards here",
          C.Name);
    *C.Into = *P;
  }
  return S;
}

Expected<std::string> submitJob(const SlurmCommands &Slurm, StringRef Script) {
  CommandResult R = runCommand(Slurm.Sbatch, {"--parsable", Script.str()});
  // --parsable prints "JOBID" or "JOBID;CLUSTER".
  StringRef Id = StringRef(R.Out).trim().split(';').first;
  if (R.Status != 0 || Id.empty() || !all_of(Id, isDigit))
    return createStringError(inconvertibleErrorCode(),
                             "sbatch did not accept the job (exit %d): %s",
                             R.Status, (R.Err.empty() ? R.Out : R.Err).c_str());
  return Id.str();
}

Expected<JobProgress> jobProgress(const SlurmCommands &Slurm, StringRef JobId) {
  // One line per task (-r), its state in short form (PD, R, CG, ...).
  CommandResult R =
      runCommand(Slurm.Squeue, {"-h", "-r", "-j", JobId.str(), "-o", "%t"});
  if (R.Status != 0) {
    // A job gone from the controller's memory is over.
    if (StringRef(R.Err).contains("Invalid job id"))
      return JobProgress();
    return createStringError(inconvertibleErrorCode(),
                             "squeue failed (exit %d): %s", R.Status,
                             R.Err.c_str());
  }
  JobProgress P;
  SmallVector<StringRef> Lines;
  StringRef(R.Out).split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef L : Lines) {
    L = L.trim();
    if (L == "PD")
      ++P.Pending;
    else if (L == "R")
      ++P.Running;
    else if (!L.empty())
      ++P.Other;
  }
  return P;
}

std::string taskState(const SlurmCommands &Slurm, StringRef JobId,
                      unsigned Task) {
  CommandResult R =
      runCommand(Slurm.Scontrol,
                 {"-o", "show", "job", (JobId + "_" + Twine(Task)).str()}, 30);
  if (R.Status != 0)
    return "";
  std::string State;
  SmallVector<StringRef> Fields;
  StringRef(R.Out).split(Fields, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef F : Fields) {
    auto [Key, Value] = F.trim().split('=');
    if (Key == "JobState")
      State = Value.str() + State;
    else if (Key == "ExitCode" || (Key == "Reason" && Value != "None"))
      State += (" " + Key + "=" + Value).str();
  }
  return State;
}

void cancelJob(const SlurmCommands &Slurm, StringRef JobId) {
  runCommand(Slurm.Scancel, {JobId.str()}, 30);
}

} // namespace cuda_opt
