//===- Options.h - The command line of cuda-opt -----------------*- C++ -*-===//
//
// Part of cuda-opt. Every option of the tool, declared here and defined in
// Options.cpp, all in one category. The modes read them from here; main()
// only parses and dispatches.
//
//   cuda-opt [--tune | --list-kernels | --analyze | --passes=P | ...] FILE...
//   cuda-opt tune FILE...            (the `tune` subcommand, same options)
//   cuda-opt apply FILE --db DB      (the best recorded variants, no GPU)
//   cuda-opt db ACTION ARGS...       (the tuning database: DbCommand.cpp)
//   cuda-opt tune-batch FILE... -o DIR [--slurm] (shards of tune runs:
//                                    TuneBatchCommand.cpp)
//   cuda-opt sparse-encode INPUT ... (its own parser: SparseEncodeCommand.cpp)
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TOOLS_OPTIONS_H
#define CUDA_OPT_TOOLS_OPTIONS_H

#include "cuda-opt/Support/FpModel.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace cuda_opt {
namespace cli {

extern llvm::cl::OptionCategory Category;

/// `cuda-opt tune FILE`: the same options as the top level (see Options.cpp).
extern llvm::cl::SubCommand TuneCommand;
/// `cuda-opt apply FILE`: re-apply the best recorded variants.
extern llvm::cl::SubCommand ApplyCommand;
/// `cuda-opt db {best,list,merge,export,import,stats,hash}`: the action and
/// its arguments are the positional arguments (InputFiles).
extern llvm::cl::SubCommand DbCommand;
/// `cuda-opt tune-batch FILE... -o DIR`: tune the files in shards, locally
/// (one per GPU) or as a Slurm job array (--slurm); the tune options pass
/// through to every shard (tuneBatchForwardedArgs).
extern llvm::cl::SubCommand TuneBatchCommand;
/// `cuda-opt sparse-encode`: listed by --help; main() hands its arguments to
/// runSparseEncodeCommand before the options are parsed.
extern llvm::cl::SubCommand SparseEncodeCommand;

// Inputs and parsing.
extern llvm::cl::list<std::string> InputFiles;
extern llvm::cl::opt<std::string> BuildPath;
extern llvm::cl::opt<std::string> CudaPath;
extern llvm::cl::opt<std::string> ResourceDir;
extern llvm::cl::opt<std::string> GpuArch;
extern llvm::cl::opt<bool> CudaLegacy;
extern llvm::cl::opt<std::string> KernelName;
extern llvm::cl::opt<std::string> OutputPath;
extern llvm::cl::opt<bool> JSON;

// Modes.
extern llvm::cl::opt<bool> ListPasses;
extern llvm::cl::opt<bool> PrintCandidateSpace;
extern llvm::cl::opt<bool> ListKernels;
extern llvm::cl::opt<bool> ListRegions;
extern llvm::cl::opt<unsigned> OutlineRegion;
extern llvm::cl::opt<bool> Analyze;
extern llvm::cl::opt<bool> Tune;
extern llvm::cl::opt<bool> InstrumentCapture;
extern llvm::cl::opt<bool> CompileCubin;
extern llvm::cl::opt<std::string> Passes;
extern llvm::cl::opt<std::string> Candidates;
extern llvm::cl::opt<bool> LowerSparseMatmul;

// --passes.
extern llvm::cl::opt<FpModel> FpModelOpt;
extern llvm::cl::opt<bool> Fp64ShadowMode;
enum class EmitKind { Source, Diff, Report };
extern llvm::cl::opt<EmitKind> Emit;
extern llvm::cl::opt<bool> NoFormat;

// tune.
extern llvm::cl::opt<std::string> SpecPath;
extern llvm::cl::opt<unsigned> Budget;
extern llvm::cl::opt<std::string> PolicyName;
extern llvm::cl::opt<std::string> PolicyModel;
extern llvm::cl::opt<unsigned> OnlineRounds;
extern llvm::cl::opt<std::string> TestReplayMeasurements;
extern llvm::cl::opt<bool> DryRun;
extern llvm::cl::opt<unsigned> TimeBudget;
extern llvm::cl::opt<std::string> RunCommand;
extern llvm::cl::opt<std::string> GemmLibrary;
extern llvm::cl::opt<std::string> CudnnRoot;
extern llvm::cl::opt<std::string> MeasureWorker;
extern llvm::cl::opt<std::string> WorkDir;
extern llvm::cl::opt<std::string> RunArgs;
extern llvm::cl::opt<int64_t> LaunchIndex;
extern llvm::cl::opt<double> RelTol;
extern llvm::cl::opt<unsigned> OrigRuns;
extern llvm::cl::list<int> Gpus;
extern llvm::cl::opt<unsigned> ProgramTimeout;

// The tuning database (tune, apply, db).
extern llvm::cl::opt<std::string> DbPath;
extern llvm::cl::opt<bool> NoDb;
extern llvm::cl::opt<std::string> KernelHashFilter;
extern llvm::cl::opt<std::string> GpuModel;
extern llvm::cl::opt<std::string> Signature;

// tune-batch.
extern llvm::cl::opt<bool> Slurm;
extern llvm::cl::opt<unsigned> Shards;
extern llvm::cl::opt<std::string> Partition;
extern llvm::cl::opt<std::string> TimeLimit;
extern llvm::cl::opt<unsigned> BatchTimeout;
extern llvm::cl::opt<unsigned> PollInterval;

// --instrument-capture.
extern llvm::cl::list<std::string> ProbeVariants;

// --lower-sparse-matmul.
extern llvm::cl::opt<double> MinSparsity;
extern llvm::cl::opt<double> MaxBytesPerElement;
extern llvm::cl::opt<bool> VerifyDiagnostics;
extern llvm::cl::opt<bool> SplitInputFile;

/// Parse the command line (\p Argc stops before "--"); exits on a syntax
/// error, --help and --version, as cl::ParseCommandLineOptions does.
void parseCommandLine(int Argc, const char *const *Argv);

/// The one mode the command line selects.
enum class Mode {
  /// No mode given: rewrite as tune does without a GPU, measuring nothing.
  Predict,
  ListKernels,
  ListRegions,
  Analyze,
  Tune,
  InstrumentCapture,
  CompileCubin,
  Fp64Shadow,
  Passes,
  LowerSparseMatmul,
  Apply,
  Db,
  TuneBatch
};

/// The mode, or why the modes given are not exactly one.
llvm::Expected<Mode> selectMode();

/// The options given to `tune-batch` that every shard's `cuda-opt tune`
/// gets, as arguments (paths made absolute: a Slurm task may start
/// elsewhere); --db is not among them (the batch passes its own).
std::vector<std::string> tuneBatchForwardedArgs();

} // namespace cli
} // namespace cuda_opt

#endif // CUDA_OPT_TOOLS_OPTIONS_H
