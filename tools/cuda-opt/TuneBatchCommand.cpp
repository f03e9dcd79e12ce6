//===- TuneBatchCommand.cpp - cuda-opt tune-batch -------------------------===//
//
// Part of cuda-opt. Tunes many files in shards (docs/cluster-tuning.md):
//
//   cuda-opt tune-batch FILE... -o DIR [--db DB] [--shards N] [tune options]
//       the shards one after another, or one per GPU at once (--gpus)
//   cuda-opt tune-batch FILE... -o DIR --db URL --slurm [--partition P]
//       [--time-limit T] [--batch-timeout S]
//       a Slurm job array, one task (and GPU) per shard, all writing into
//       the database URL; waits for it and reports each shard
//
// Every check is made before anything is written: no files, a file that is
// not there, two files of one name, -o that is not a new or empty
// directory, a bad --db, sbatch not found. Exits non-zero when a shard
// fails, naming it, its files and its log.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"
#include "SlurmJob.h"
#include "TuneBatch.h"

#include "cuda-opt/Search/TuningDatabase.h"
#include "cuda-opt/Support/GpuProbe.h"
#include "cuda-opt/Support/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <csignal>
#include <deque>
#include <thread>

using namespace llvm;

namespace cuda_opt {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point T) {
  return std::chrono::duration<double>(Clock::now() - T).count();
}

raw_ostream &note() { return WithColor::note(errs(), ToolName); }

/// "1 file", "2 files".
std::string files(size_t N) {
  return std::to_string(N) + (N == 1 ? " file" : " files");
}

/// What the batch runs, checked.
struct BatchPlan {
  BatchScript Script;
  std::string ScriptPath;
  /// Local runs: the GPU of each slot (nullopt: no --gpus for the shard);
  /// as many shards run at once as there are slots.
  std::vector<std::optional<int>> Slots;
  std::optional<SlurmCommands> Slurm;
};

/// How the batch ended, per shard.
struct ShardOutcome {
  std::optional<ShardStatus> Status;
  std::string SlurmState; ///< For a shard that left no status.
};

std::string absolute(StringRef Path) {
  SmallString<256> P(Path);
  sys::fs::make_absolute(P);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

/// The checks, before anything is written.
Expected<BatchPlan> planBatch(ArrayRef<std::string> ExtraFlags,
                              StringRef ExecutablePath) {
  BatchPlan Plan;
  BatchScript &S = Plan.Script;
  if (cli::InputFiles.empty())
    return makeError("tune-batch: no input files; give the .cu files to tune");
  if (!cli::OutputPath.getNumOccurrences() || cli::OutputPath == "-")
    return makeError("tune-batch: give -o DIR, a new directory for the tuned "
                     "files, the shards' logs and the batch script");
  S.OutDir = absolute(cli::OutputPath);
  if (sys::fs::exists(S.OutDir)) {
    std::error_code EC;
    if (!sys::fs::is_directory(S.OutDir) ||
        sys::fs::directory_iterator(S.OutDir, EC) !=
            sys::fs::directory_iterator())
      return makeError("tune-batch: -o " + cli::OutputPath +
                       " exists and is not an empty directory; give a new "
                       "one (each batch writes its own script, logs and "
                       "results)");
  }
  StringSet<> Names;
  std::vector<std::string> Files;
  for (const std::string &F : cli::InputFiles) {
    if (!sys::fs::is_regular_file(F) ||
        sys::fs::access(F, sys::fs::AccessMode::Exist))
      return makeError("tune-batch: no file '" + F + "'");
    StringRef Name = sys::path::filename(F);
    if (!Names.insert(Name).second)
      return makeError("tune-batch: two inputs are named '" + Name +
                       "'; the tuned files all go to -o DIR under their "
                       "names, so give files of different names");
    Files.push_back(absolute(F));
  }

  // The database every shard writes into.
  if (cli::DbPath.getNumOccurrences()) {
    if (Error E = checkTuningDatabaseLocation(cli::DbPath))
      return std::move(E);
    S.Database = isPostgresUrl(cli::DbPath) ? cli::DbPath.getValue()
                                            : absolute(cli::DbPath);
  } else if (cli::Slurm) {
    return makeError("tune-batch --slurm: give --db with a database every "
                     "node reaches (postgresql://USER@HOST:PORT/DB, or a "
                     "SQLite file on a shared file system)");
  } else if (defaultTuningDatabaseOff()) {
    return makeError("tune-batch: CUDA_OPT_TUNING_DB=off and no --db: give "
                     "the database the shards record into");
  } else {
    S.Database = defaultTuningDatabasePath();
  }

  if (cli::Shards.getNumOccurrences() && cli::Shards == 0)
    return makeError("tune-batch: --shards=0; give 1 or more");
  S.DryRun = cli::DryRun;
  if (cli::Slurm) {
    if (!cli::TimeLimit.empty() &&
        !all_of(cli::TimeLimit.getValue(),
                [](char C) { return isDigit(C) || C == ':' || C == '-'; }))
      return makeError("--time-limit=" + cli::TimeLimit +
                       ": give MINUTES, H:MM:SS or D-HH:MM (sbatch --time)");
    Expected<SlurmCommands> Slurm = SlurmCommands::find();
    if (!Slurm)
      return Slurm.takeError();
    Plan.Slurm = *Slurm;
    S.Partition = cli::Partition;
    S.TimeLimit = cli::TimeLimit;
  } else if (!cli::DryRun) {
    // One shard at a time per GPU; without a GPU one at a time, and tune
    // says in each output that it measured nothing.
    std::vector<int> Gpus(cli::Gpus.begin(), cli::Gpus.end());
    if (Gpus.empty())
      for (const GpuInfo &G : probeGpus().Devices)
        Gpus.push_back(G.Ordinal);
    for (int G : Gpus)
      Plan.Slots.push_back(G);
  }
  if (Plan.Slots.empty())
    Plan.Slots.push_back(std::nullopt);

  unsigned Count = cli::Shards  ? static_cast<unsigned>(cli::Shards)
                   : cli::Slurm ? Files.size()
                                : Plan.Slots.size();
  if (Count > Files.size()) {
    note() << "tune-batch: " << Count << " shards asked for "
           << files(Files.size()) << "; running " << Files.size() << "\n";
    Count = Files.size();
  }
  S.Shards = dealIntoShards(Files, Count);
  S.CudaOpt = ExecutablePath.str();
  SmallString<256> Cwd;
  sys::fs::current_path(Cwd);
  S.WorkingDir = std::string(Cwd);
  if (cli::Slurm)
    for (StringRef Dir : {StringRef(S.OutDir), StringRef(S.WorkingDir)})
      if (any_of(Dir, isSpace))
        return makeError("tune-batch --slurm: '" + Dir +
                         "' has a space, which #SBATCH lines cannot hold; "
                         "run from and write to paths without one");
  S.TuneArgs = cli::tuneBatchForwardedArgs();
  S.ParseFlags.assign(ExtraFlags.begin(), ExtraFlags.end());
  SmallString<256> Script(S.OutDir);
  sys::path::append(Script, "tune-batch.sh");
  Plan.ScriptPath = std::string(Script);
  return Plan;
}

/// DIR, DIR/logs, DIR/status and DIR/tune-batch.sh.
Error writeBatch(const BatchPlan &Plan) {
  for (StringRef Sub : {"", "logs", "status"}) {
    SmallString<256> D(Plan.Script.OutDir);
    if (!Sub.empty())
      sys::path::append(D, Sub);
    if (std::error_code EC = sys::fs::create_directories(D))
      return makeError("tune-batch: cannot create '" + D +
                       "': " + EC.message());
  }
  if (Error E =
          writeFileAtomically(Plan.ScriptPath, batchScriptText(Plan.Script)))
    return E;
  sys::fs::setPermissions(Plan.ScriptPath, sys::fs::all_read |
                                               sys::fs::owner_write |
                                               sys::fs::all_exe);
  return Error::success();
}

/// The shards on this machine: as many at once as there are slots (GPUs),
/// each `bash tune-batch.sh SHARD [GPU]` with its output in its log.
/// Returns false when --batch-timeout stopped them.
Expected<bool> runLocally(const BatchPlan &Plan) {
  ErrorOr<std::string> Bash = sys::findProgramByName("bash");
  if (!Bash)
    return makeError("tune-batch: bash was not found on PATH");
  struct Running {
    unsigned Shard;
    size_t Slot;
    sys::ProcessInfo PI;
    Clock::time_point Start;
  };
  std::deque<unsigned> Queue;
  for (unsigned I = 0; I < Plan.Script.Shards.size(); ++I)
    Queue.push_back(I);
  std::vector<bool> Busy(Plan.Slots.size(), false);
  std::vector<Running> Active;
  const Clock::time_point Start = Clock::now();
  bool TimedOut = false;
  while (!Queue.empty() || !Active.empty()) {
    for (size_t Slot = 0; Slot < Busy.size() && !Queue.empty() && !TimedOut;
         ++Slot) {
      if (Busy[Slot])
        continue;
      unsigned Shard = Queue.front();
      Queue.pop_front();
      std::string Log = shardLogPath(Plan.Script.OutDir, Shard);
      std::string ShardArg = std::to_string(Shard);
      std::optional<int> Gpu = Plan.Slots[Slot];
      std::string GpuArg = Gpu ? std::to_string(*Gpu) : "";
      SmallVector<StringRef> Args = {"bash", Plan.ScriptPath, ShardArg};
      if (Gpu)
        Args.push_back(GpuArg);
      std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(Log),
                                              StringRef(Log)};
      std::string Err;
      sys::ProcessInfo PI =
          sys::ExecuteNoWait(*Bash, Args, std::nullopt, Redirects, 0, &Err);
      if (PI.Pid == sys::ProcessInfo::InvalidPid)
        return makeError("tune-batch: cannot start shard " + ShardArg + ": " +
                         Err);
      note() << "shard " << Shard << " ("
             << files(Plan.Script.Shards[Shard].size()) << ") started"
             << (Gpu ? " on GPU " + GpuArg : "") << "; log " << Log << "\n";
      Busy[Slot] = true;
      Active.push_back({Shard, Slot, PI, Clock::now()});
    }
    for (size_t I = 0; I < Active.size();) {
      sys::ProcessInfo Done =
          sys::Wait(Active[I].PI, 0, nullptr, nullptr, /*Polling=*/true);
      if (Done.Pid == 0) {
        ++I;
        continue;
      }
      note() << "shard " << Active[I].Shard << " ended (exit "
             << Done.ReturnCode << ") after "
             << formatv("{0:F1}", secondsSince(Active[I].Start)) << " s\n";
      Busy[Active[I].Slot] = false;
      Active.erase(Active.begin() + I);
    }
    if (!TimedOut && cli::BatchTimeout &&
        secondsSince(Start) > cli::BatchTimeout) {
      TimedOut = true;
      Queue.clear();
      for (const Running &R : Active)
        ::kill(R.PI.Pid, SIGTERM); // The script ends its tune too.
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return !TimedOut;
}

/// Submit the array and wait for it, saying what changes. Returns false
/// when --batch-timeout cancelled it.
Expected<bool> runOnSlurm(const BatchPlan &Plan, std::string &JobId) {
  const SlurmCommands &Slurm = *Plan.Slurm;
  Expected<std::string> Id = submitJob(Slurm, Plan.ScriptPath);
  if (!Id)
    return Id.takeError();
  JobId = *Id;
  unsigned Interval = std::max(1u, static_cast<unsigned>(cli::PollInterval));
  note() << "submitted Slurm job " << JobId << " (array 0-"
         << Plan.Script.Shards.size() - 1 << "); waiting for it (squeue every "
         << Interval << " s)\n";
  const Clock::time_point Start = Clock::now();
  std::string Last;
  unsigned Failures = 0;
  while (true) {
    Expected<JobProgress> P = jobProgress(Slurm, JobId);
    if (!P) {
      // The controller may be busy for a moment; not for minutes.
      if (++Failures == 30)
        return makeError("tune-batch: lost track of Slurm job " + JobId + ": " +
                         toString(P.takeError()) +
                         "; it may still run (squeue -j " + JobId + ")");
      consumeError(P.takeError());
    } else {
      Failures = 0;
      if (P->active() == 0) {
        note() << "job " << JobId << ": every task has left the queue after "
               << formatv("{0:F0}", secondsSince(Start)) << " s\n";
        return true;
      }
      std::string Now = formatv("{0} pending, {1} running, {2} finishing",
                                P->Pending, P->Running, P->Other);
      if (Now != Last)
        note() << "job " << JobId << ": " << Now << " ("
               << formatv("{0:F0}", secondsSince(Start)) << " s)\n";
      Last = Now;
    }
    if (cli::BatchTimeout && secondsSince(Start) > cli::BatchTimeout) {
      // Cancelled, its tasks leave the queue in a moment; then Slurm says
      // CANCELLED rather than COMPLETING.
      cancelJob(Slurm, JobId);
      for (int Wait = 0; Wait < 30; ++Wait) {
        Expected<JobProgress> Left = jobProgress(Slurm, JobId);
        if (!Left) {
          consumeError(Left.takeError());
          break;
        }
        if (Left->active() == 0)
          break;
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
      }
      return false;
    }
    std::this_thread::sleep_for(std::chrono::seconds(Interval));
  }
}

/// Rows in the database now (another writer's rows count too).
Expected<int64_t> rowCount(StringRef Database) {
  Expected<std::unique_ptr<TuningDatabase>> Db =
      TuningDatabase::open(Database, TuningDatabase::OpenMode::Create);
  if (!Db)
    return Db.takeError();
  Expected<TuningStats> St = (*Db)->stats();
  if (!St)
    return St.takeError();
  return St->Rows;
}

std::string outputOf(StringRef OutDir, StringRef File) {
  SmallString<256> P(OutDir);
  sys::path::append(P, sys::path::filename(File));
  return std::string(P);
}

/// Each shard's outcome on the terminal and in DIR/tune-batch.json;
/// returns how many failed.
unsigned report(const BatchPlan &Plan, ArrayRef<ShardOutcome> Outcomes,
                StringRef JobId, StringRef DbName, int64_t RowsBefore,
                std::optional<int64_t> RowsAfter) {
  const BatchScript &S = Plan.Script;
  unsigned Failed = 0;
  json::Array Shards;
  for (size_t I = 0; I < Outcomes.size(); ++I) {
    const ShardOutcome &O = Outcomes[I];
    std::string Log = shardLogPath(S.OutDir, I);
    json::Array Files;
    std::vector<std::string> Bad;
    for (const std::string &F : S.Shards[I]) {
      std::optional<int> Exit;
      if (O.Status)
        for (const auto &[Code, Name] : O.Status->Files)
          if (Name == F)
            Exit = Code;
      if (!Exit || *Exit != 0)
        Bad.push_back(F + (Exit ? formatv(" (exit {0})", *Exit).str()
                                : std::string(" (not reached)")));
      Files.push_back(json::Object{
          {"file", F},
          {"exit", Exit ? json::Value(*Exit) : json::Value(nullptr)},
          {"output", outputOf(S.OutDir, F)}});
    }
    bool Ok = O.Status && O.Status->Exit == 0 && Bad.empty();
    Failed += !Ok;
    if (Ok) {
      note() << "shard " << I << ": " << files(S.Shards[I].size())
             << (S.DryRun ? " listed" : " tuned") << "; log " << Log << "\n";
    } else if (!O.Status) {
      WithColor::error(errs(), ToolName)
          << "shard " << I << " did not finish"
          << (O.SlurmState.empty() ? std::string()
                                   : " (Slurm: " + O.SlurmState + ")")
          << ": " << join(S.Shards[I], ", ") << " left without a result; see "
          << Log << "\n";
    } else {
      WithColor::error(errs(), ToolName)
          << "shard " << I << " failed: " << Bad.size() << " of "
          << files(S.Shards[I].size()) << ": " << join(Bad, ", ") << "; see "
          << Log << "\n";
    }
    json::Object Shard{
        {"shard", static_cast<int64_t>(I)},
        {"finished", O.Status.has_value()},
        {"exit", O.Status ? json::Value(O.Status->Exit) : json::Value(nullptr)},
        {"log", Log},
        {"files", std::move(Files)}};
    if (!O.SlurmState.empty())
      Shard["slurm_state"] = O.SlurmState;
    Shards.push_back(std::move(Shard));
  }
  json::Object Summary{
      {"database", DbName},
      {"slurm_job", JobId.empty() ? json::Value(nullptr) : json::Value(JobId)},
      {"dry_run", S.DryRun},
      {"rows_before", RowsBefore},
      {"rows_after",
       RowsAfter ? json::Value(*RowsAfter) : json::Value(nullptr)},
      {"shards", std::move(Shards)}};
  SmallString<256> Json(S.OutDir);
  sys::path::append(Json, "tune-batch.json");
  std::string Text;
  raw_string_ostream OS(Text);
  OS << formatv("{0:2}", json::Value(std::move(Summary))) << "\n";
  if (Error E = writeFileAtomically(Json, Text))
    WithColor::warning(errs(), ToolName) << toString(std::move(E)) << "\n";
  note() << "tune-batch: " << Outcomes.size() - Failed << " of "
         << Outcomes.size() << " shards succeeded; ";
  if (RowsAfter)
    errs() << *RowsAfter - RowsBefore << " rows added to " << DbName << " ("
           << *RowsAfter << " now; concurrent writers' rows count too)";
  else
    errs() << "the database could not be read again";
  errs() << "; summary in " << Json << "\n";
  return Failed;
}

} // namespace

int runTuneBatch(const ToolchainOptions &TO, ArrayRef<std::string> ExtraFlags) {
  Expected<BatchPlan> Plan = planBatch(ExtraFlags, TO.ExecutablePath);
  if (!Plan)
    return reportError(Plan.takeError());
  // The database is opened (its schema created once, before the shards
  // race to) and counted before anything is written.
  Expected<std::unique_ptr<TuningDatabase>> Db = TuningDatabase::open(
      Plan->Script.Database, TuningDatabase::OpenMode::Create);
  if (!Db)
    return reportError(Db.takeError());
  Expected<TuningStats> Before = (*Db)->stats();
  if (!Before)
    return reportError(Before.takeError());
  const std::string DbName = (*Db)->path();
  Db->reset();
  if (Error E = writeBatch(*Plan))
    return reportError(std::move(E));
  size_t Count = 0;
  for (const std::vector<std::string> &S : Plan->Script.Shards)
    Count += S.size();
  note() << "tune-batch: " << files(Count) << " in "
         << Plan->Script.Shards.size()
         << (Plan->Script.Shards.size() == 1 ? " shard" : " shards")
         << (Plan->Script.DryRun ? " (dry run)" : "") << ", recording into "
         << DbName << " (" << Before->Rows << " rows); script "
         << Plan->ScriptPath << "\n";

  std::string JobId;
  Expected<bool> Finished =
      Plan->Slurm ? runOnSlurm(*Plan, JobId) : runLocally(*Plan);
  if (!Finished)
    return reportError(Finished.takeError());

  std::vector<ShardOutcome> Outcomes(Plan->Script.Shards.size());
  for (unsigned I = 0; I < Outcomes.size(); ++I) {
    Outcomes[I].Status = readShardStatus(Plan->Script.OutDir, I);
    if (!Outcomes[I].Status && Plan->Slurm)
      Outcomes[I].SlurmState = taskState(*Plan->Slurm, JobId, I);
  }
  Expected<int64_t> After = rowCount(Plan->Script.Database);
  std::optional<int64_t> RowsAfter;
  if (After)
    RowsAfter = *After;
  else
    WithColor::warning(errs(), ToolName) << toString(After.takeError()) << "\n";
  unsigned Failed =
      report(*Plan, Outcomes, JobId, DbName, Before->Rows, RowsAfter);
  if (!*Finished) {
    WithColor::error(errs(), ToolName)
        << "tune-batch: --batch-timeout=" << cli::BatchTimeout << " s passed; "
        << (JobId.empty() ? "the shards still running were stopped"
                          : "Slurm job " + JobId + " was cancelled")
        << "\n";
    return 1;
  }
  return Failed ? 1 : 0;
}

} // namespace cuda_opt
