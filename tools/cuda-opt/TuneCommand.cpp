//===- TuneCommand.cpp - cuda-opt tune ------------------------------------===//
//
// Part of cuda-opt. Measures candidate rewrites and keeps the fastest
// verified one; without a GPU (or inputs to run on) rewrites with the default
// pipeline and says that nothing was measured, in a note and in the output's
// first line. cuda-opt without a mode does the latter on any machine. Writes
// the source to -o and, beside it, the report as OUT.report.md and
// OUT.report.json.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"

#include "cuda-opt/Search/Ranker.h"

#include "cuda-opt/Frontend/NvccCompat.h"
#include "cuda-opt/Pass/Pipeline.h"
#include "cuda-opt/Search/Tuner.h"
#include "cuda-opt/Search/TuningDatabase.h"
#include "cuda-opt/Support/GpuProbe.h"
#include "cuda-opt/Support/OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace llvm;

namespace cuda_opt {

/// TuneOptions from the command line.
static Expected<TuneOptions> tuneOptions(StringRef ExecutablePath) {
  TuneOptions Opts;
  Opts.KernelName = cli::KernelName;
  Opts.SpecPath = cli::SpecPath;
  Opts.Pipeline = cli::Passes;
  Opts.Budget = cli::Budget;
  SmallVector<StringRef> Candidates;
  StringRef(cli::Candidates).split(Candidates, ';', -1, /*KeepEmpty=*/false);
  for (StringRef C : Candidates) {
    C = C.trim();
    if (C.empty())
      continue;
    if (Expected<std::vector<PassInvocation>> P = parsePipeline(C); !P)
      return makeError("--candidates: '" + C + "': " + toString(P.takeError()));
    Opts.Candidates.push_back(C.str());
  }
  Opts.Format = !cli::NoFormat;
  Opts.WorkerPath = cli::MeasureWorker.empty()
                        ? findMeasureWorker(ExecutablePath)
                        : std::string(cli::MeasureWorker);
  Opts.ShowProgress = errs().is_displayed();
  SmallVector<StringRef> ProgramArgs;
  StringRef(cli::RunArgs).split(ProgramArgs, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef A : ProgramArgs)
    Opts.ProgramArgs.push_back(A.str());
  Opts.LaunchIndex = cli::LaunchIndex;
  Opts.Devices.assign(cli::Gpus.begin(), cli::Gpus.end());
  Opts.RelTol = cli::RelTol;
  Opts.Model = cli::FpModelOpt;
  if (Opts.Model == FpModel::Fast && Opts.RelTol < 0)
    return makeError("--fp-model=fast lets variants use lower precision; "
                     "say how far their outputs may be from the original's "
                     "with --rtol=TOL (e.g. --rtol=1e-3)");
  if (cli::OrigRuns < 1 || cli::OrigRuns > 16)
    return makeError("--orig-runs=" + std::to_string(cli::OrigRuns) +
                     ": give 1 to 16 runs of the original per seed");
  Opts.OrigRuns = static_cast<int>(cli::OrigRuns);
  Opts.ProgramTimeoutSeconds = cli::ProgramTimeout;
  Opts.RunCommand = cli::RunCommand;
  if (!cli::GemmLibrary.empty()) {
    Opts.GemmLibraryPath = cli::GemmLibrary;
  } else if (!Opts.WorkerPath.empty()) {
    SmallString<256> Lib(sys::path::parent_path(Opts.WorkerPath));
    sys::path::append(Lib, "libcudaopt_gemm.so");
    if (sys::fs::exists(Lib))
      Opts.GemmLibraryPath = std::string(Lib);
  }
  if (!Opts.GemmLibraryPath.empty()) {
    SmallString<256> Abs(Opts.GemmLibraryPath);
    sys::fs::make_absolute(Abs); // The worker dlopens it from anywhere.
    Opts.GemmLibraryPath = std::string(Abs);
  }
  if (!cli::CudnnRoot.empty()) {
    Opts.CudnnRoot = cli::CudnnRoot;
    SmallString<256> Header(Opts.CudnnRoot);
    sys::path::append(Header, "include", "cudnn.h");
    if (!sys::fs::exists(Header))
      return makeError("--cudnn-root=" + cli::CudnnRoot + ": no " +
                       Header.str().str() +
                       "; give the directory that holds include/cudnn.h");
  } else if (const char *Env = std::getenv("CUDNN_ROOT")) {
    Opts.CudnnRoot = Env;
  }
  Opts.OnRewriteStep = [](const StepRecord &S) { printNotes(S.Notes); };
  Opts.TimeSeconds = cli::TimeBudget;
  Opts.DryRun = cli::DryRun;
  Opts.LearnedPolicy =
      cli::PolicyName == "learned" || cli::PolicyName == "knn";
  if (cli::PolicyName == "ranker") {
    std::string ModelPath = cli::PolicyModel;
    const char *Env = std::getenv("CUDA_OPT_POLICY_MODEL");
    if (ModelPath.empty() && Env && *Env)
      ModelPath = Env;
    if (ModelPath.empty()) {
      Opts.Ranker = std::shared_ptr<const RankerModel>(
          &RankerModel::builtin(), [](const RankerModel *) {});
    } else {
      Expected<RankerModel> M = RankerModel::load(ModelPath);
      if (!M)
        return M.takeError();
      Opts.Ranker = std::make_shared<const RankerModel>(std::move(*M));
    }
  }
  Opts.OnlineRounds = cli::OnlineRounds;
  if (!cli::TestReplayMeasurements.empty()) {
    if (cli::SpecPath.empty())
      return makeError("--test-replay-measurements replays spec mode's "
                       "measurements (tests only); give --spec=FILE");
    Opts.TestReplayPath = cli::TestReplayMeasurements;
  }
  SmallString<256> Work;
  if (cli::WorkDir.empty()) {
    if (std::error_code EC =
            sys::fs::createUniqueDirectory("cuda-opt-tune", Work))
      return makeError("cannot create a work directory: " + EC.message());
  } else {
    Work = cli::WorkDir;
  }
  Opts.WorkDir = std::string(Work);
  return Opts;
}

/// The first line of the output of a rewrite that was not measured: which
/// pipeline, that it is a prediction, and why nothing was measured.
static std::string notMeasuredHeader(const TuneResult &R, unsigned Applied,
                                     StringRef MeasureCommand) {
  std::string Why = StringRef(R.NotMeasuredReason).take_front(300).str();
  for (char &C : Why)
    if (C == '\n')
      C = ' ';
  std::string Header =
      MeasureCommand.empty() ? "// cuda-opt tune: " : "// cuda-opt: ";
  if (!R.PredictedBy.empty() && Applied == 0)
    Header += "nothing rewritten: no rewrite that keeps every floating-point "
              "operation is predicted faster; not measured";
  else if (!R.PredictedBy.empty())
    Header += "'" + R.ChosenPipeline +
              "' predicted (learned ranker, strict), not measured";
  else if (Applied == 0)
    Header += "nothing rewritten: no pass of '" + R.ChosenPipeline +
              "' applies to this file; not measured";
  else
    Header += "'" + R.ChosenPipeline +
              "' applied where legal; predicted, not measured";
  if (MeasureCommand.empty())
    Header += " (" + Why + ")";
  Header += ".\n";
  if (!MeasureCommand.empty())
    Header += "// To measure it: " + MeasureCommand.str() + "\n";
  return Header;
}

Error tuneFile(const Toolchain &TC, const SourceInput &In, StringRef Output,
               StringRef ExecutablePath, StringRef MeasureCommand) {
  if (!cli::RunCommand.empty() && !cli::RunArgs.empty())
    return makeError("--run-args passes arguments to the program cuda-opt "
                     "builds from FILE; with --run, put them in the command");
  if (!cli::RunCommand.empty() && !cli::SpecPath.empty())
    return makeError("--run (program mode) and --spec (spec mode) exclude "
                     "each other");
  Expected<TuneOptions> Opts = tuneOptions(ExecutablePath);
  if (!Opts)
    return Opts.takeError();
  Opts->MeasureNothing = !MeasureCommand.empty();
  // The tuning database: opened before any GPU work. An explicit --db that
  // cannot be used is an error; the default one is a warning, and tune goes
  // on without it. cuda-opt without a mode leaves it alone, as do machines
  // without a GPU and CUDA_OPT_TUNING_DB=off unless --db is given. A dry
  // run uses only an explicit --db, where it records its candidates as
  // unmeasured rows (docs/cluster-tuning.md).
  std::unique_ptr<TuningDatabase> Db;
  const bool ExplicitDb = cli::DbPath.getNumOccurrences() > 0;
  if (ExplicitDb)
    if (Error E = checkTuningDatabaseLocation(cli::DbPath))
      return E;
  if (!cli::NoDb && !Opts->MeasureNothing &&
      (ExplicitDb || (!cli::DryRun && !defaultTuningDatabaseOff() &&
                      !probeGpus().Devices.empty()))) {
    Expected<std::unique_ptr<TuningDatabase>> D =
        openTuningDatabase(TuningDatabase::OpenMode::Create);
    if (!D) {
      if (ExplicitDb)
        return D.takeError();
      WithColor::warning(errs(), ToolName)
          << toString(D.takeError())
          << "; tuning without the tuning database (--no-db says so "
             "quietly)\n";
    } else {
      Db = std::move(*D);
    }
  }
  Opts->Database = Db.get();
  Expected<TuneResult> R = tune(TC, In, *Opts);
  if (!R)
    return R.takeError();
  for (const std::string &N : R->DatabaseNotes)
    WithColor::note(errs(), ToolName) << N << "\n";
  // Which round measured what (--online-rounds).
  for (const KernelOutcome &K : R->Kernels)
    for (const MeasureRound &MR : K.Rounds)
      WithColor::note(errs(), ToolName)
          << K.Kernel << ": " << describeRound(MR) << "\n";
  unsigned Applied = 0;
  for (const CandidateRecord &C : R->Candidates)
    Applied += C.Status == "applied";
  R->Text = standaloneText(TC, R->Text);
  if (!R->Measured && !cli::DryRun)
    R->Text = notMeasuredHeader(*R, Applied, MeasureCommand) + R->Text;
  if (Error E = writeFileAtomically(Output, R->Text))
    return E;
  std::string Json;
  raw_string_ostream JOS(Json);
  JOS << formatv("{0:2}", R->toJSON(In.Path)) << "\n";
  std::string Md = R->toMarkdown(In.Path);
  std::string ReportNote;
  if (Output != "-") {
    if (Error E = writeFileAtomically((Output + ".report.md").str(), Md))
      return E;
    if (Error E = writeFileAtomically((Output + ".report.json").str(), Json))
      return E;
    ReportNote = "; report in " + Output.str() + ".report.md";
  }
  if (cli::DryRun) {
    unsigned Candidates = 0;
    std::set<std::string> Regions; // The region phase's "region #N (...)".
    for (const CandidateRecord &C : R->Candidates) {
      Candidates += C.Status == "candidate";
      if (StringRef(C.Kernel).starts_with("region #"))
        Regions.insert(C.Kernel);
    }
    WithColor::note(errs(), ToolName)
        << "dry run: " << Candidates << " candidates for " << R->Kernel
        << (Regions.empty() ? ""
                            : " and " + std::to_string(Regions.size()) +
                                  " host region" +
                                  (Regions.size() > 1 ? "s" : ""))
        << formatv(" ({0} rejected before measuring), rewritten in {1:F1} s",
                   R->Candidates.size() - Candidates, R->Seconds)
        << ReportNote << "\n";
    if (Db)
      WithColor::note(errs(), ToolName)
          << "dry run: recorded " << R->VariantsRecorded << " candidates in "
          << Db->path() << " as not measured (verdict not-measured; "
          << Candidates - R->VariantsRecorded << " already there)\n";
    return Error::success();
  }
  // What was applied, for the notes below.
  std::string What;
  if (!R->PredictedBy.empty())
    What = (Applied ? "'" + R->ChosenPipeline + "'" : std::string("nothing")) +
           " (learned ranker, rewrites that keep every floating-point "
           "operation; " +
           std::to_string(Applied) + " of " +
           std::to_string(R->Candidates.size()) + " kernels rewritten)";
  else
    What = "applied " + std::to_string(Applied) + " of " +
           std::to_string(R->Candidates.size()) + " pass/kernel steps of '" +
           R->ChosenPipeline + "'";
  if (!MeasureCommand.empty()) {
    WithColor::note(errs(), ToolName)
        << "predicted, not measured: " << What
        << (R->PredictedBy.empty() ? " (each pass where legal)" : "")
        << "; to measure the variants on a GPU and keep the fastest "
           "verified one, run: "
        << MeasureCommand << ReportNote << "\n";
    return Error::success();
  }
  if (!R->Measured) {
    WithColor::note(errs(), ToolName)
        << "not measured (" << R->NotMeasuredReason << "); "
        << (R->PredictedBy.empty() ? "" : "predicted: ") << What << ReportNote
        << "\n";
    return Error::success();
  }
  WithColor::note(errs(), ToolName)
      << R->Kernel << " on " << R->Device << ": "
      << formatv("{0:F4} ms -> {1:F4} ms ({2:F3}x) with '{3}'; {4} variants "
                 "in {5:F1} s",
                 R->BaselineMs, R->BestMs,
                 R->BestMs > 0 ? R->BaselineMs / R->BestMs : 0.0,
                 R->ChosenPipeline.empty() ? "(original)" : R->ChosenPipeline,
                 R->VariantsMeasured, R->Seconds)
      << ReportNote << "\n";
  return Error::success();
}

} // namespace cuda_opt
