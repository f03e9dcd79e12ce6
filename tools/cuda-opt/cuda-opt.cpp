//===- cuda-opt.cpp - The cuda-opt command --------------------------------===//
//
// Part of cuda-opt. Registers the transforms, parses the command line
// (Options.h) and hands every input to the one mode it selects (Commands.h):
// none (tune's rewrite without measuring), tune, --list-kernels, --analyze,
// --passes, --instrument-capture, --compile-cubin, apply or the MLIR mode
// --lower-sparse-matmul; --list-passes, `cuda-opt db` and
// `cuda-opt sparse-encode` take no input files of their own, and
// `cuda-opt tune-batch` hands its files to shards of `cuda-opt tune`.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"
#include "SparseEncodeCommand.h"
#include "TrainCommand.h"

#include "cuda-opt/Transforms/InitAllTransforms.h"

#include "clang/Basic/Stack.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/thread.h"
#include "llvm/Support/Path.h"

#include <csignal>

using namespace llvm;
using namespace cuda_opt;

/// The checks that need no input parsed, in the order cuda-opt has always
/// made them; returns the pipeline of --passes.
static Expected<std::vector<PassInvocation>> checkArguments(cli::Mode M) {
  if (cli::VerifyDiagnostics || cli::SplitInputFile)
    return makeError("--verify-diagnostics and --split-input-file go with "
                     "--lower-sparse-matmul");
  for (const std::string &File : cli::InputFiles)
    if (StringRef(File).ends_with(".mlir"))
      return makeError("'" + File + "' is MLIR; the only mode for .mlir "
                       "inputs is --lower-sparse-matmul");
  if (cli::PolicyName != "ranker" && cli::PolicyName != "knn" &&
      cli::PolicyName != "learned" && cli::PolicyName != "round-robin")
    return makeError("--policy must be 'ranker', 'knn' (or its old name "
                     "'learned') or 'round-robin', not '" +
                     cli::PolicyName + "'");
  if (cli::PolicyModel.getNumOccurrences() && cli::PolicyName != "ranker")
    return makeError("--policy-model is the learned ranker's model; it goes "
                     "with --policy=ranker, not --policy=" +
                     cli::PolicyName);
  if (cli::OnlineRounds.getNumOccurrences()) {
    if (cli::OnlineRounds == 0)
      return makeError("--online-rounds=0: give 1 (one batch) or more "
                       "rounds");
    if (cli::OnlineRounds > 1 && cli::PolicyName != "ranker")
      return makeError("--online-rounds re-ranks with the learned ranker; it "
                       "goes with --policy=ranker (--policy=" +
                       cli::PolicyName + " measures in one batch)");
    if (cli::OnlineRounds > 1 && !cli::Candidates.empty())
      return makeError("--online-rounds re-ranks the candidate space; "
                       "--candidates gives a fixed order, measured in one "
                       "batch");
  }
  // Validate the pipeline before any parsing: a typo should fail fast.
  if (M != cli::Mode::Passes)
    return std::vector<PassInvocation>();
  return parsePipeline(cli::Passes);
}

/// Where the output for \p File goes: -o itself, or -o/FILENAME when several
/// inputs are rewritten into a directory.
static std::string outputFor(StringRef File) {
  if (cli::InputFiles.size() < 2 || cli::OutputPath == "-")
    return cli::OutputPath;
  SmallString<256> P(cli::OutputPath);
  sys::path::append(P, sys::path::filename(File));
  return std::string(P);
}

/// \p Argv as a shell command with `tune` after the tool's name: what
/// measures the rewrite that cuda-opt without a mode predicts.
static std::string tuneCommandLine(int Argc, const char *const *Argv) {
  std::string Cmd = "cuda-opt tune";
  for (int I = 1; I < Argc; ++I) {
    StringRef A = Argv[I];
    bool Plain = !A.empty() && llvm::all_of(A, [](char C) {
      return isAlnum(C) || StringRef("_-./=:,+@%").contains(C);
    });
    Cmd += " ";
    if (Plain) {
      Cmd += A;
      continue;
    }
    Cmd += "'";
    for (char C : A)
      Cmd += C == '\'' ? std::string("'\\''") : std::string(1, C);
    Cmd += "'";
  }
  return Cmd;
}

/// The tool's work, run on a thread with a large stack (see main).
static int runTool(int argc, const char **argv) {
  clang::noteBottomOfStack();
  registerAllTransforms();
  if (argc > 1 && StringRef(argv[1]) == cli::SparseEncodeCommand.getName())
    return runSparseEncodeCommand(argc - 1, argv + 1);
  if (argc > 1 && StringRef(argv[1]) == "train")
    return runTrainCommand(argc - 1, argv + 1);
  // Everything after "--" is parse flags for every input.
  int ToolArgc = argc;
  std::vector<std::string> ExtraFlags = takeParseFlags(ToolArgc, argv);
  cli::parseCommandLine(ToolArgc, argv);

  if (cli::ListPasses) {
    listPasses();
    return 0;
  }
  if (cli::PrintCandidateSpace) {
    printCandidateSpace();
    return 0;
  }
  Expected<cli::Mode> M = cli::selectMode();
  if (!M)
    return reportError(M.takeError());
  ToolchainOptions TO;
  TO.CudaPath = cli::CudaPath;
  TO.ResourceDir = cli::ResourceDir;
  TO.GpuArch = cli::GpuArch;
  TO.CudaLegacy = cli::CudaLegacy;
  TO.ExecutablePath =
      sys::fs::getMainExecutable(argv[0], (void *)(intptr_t)&outputFor);
  // The action is the first positional argument; only some actions parse
  // files (and need the toolchain).
  if (*M == cli::Mode::Db)
    return runDbCommand(TO, ExtraFlags);
  if (*M == cli::Mode::TuneBatch)
    return runTuneBatch(TO, ExtraFlags);
  if (cli::InputFiles.empty())
    return reportError(makeError(*M == cli::Mode::LowerSparseMatmul
                                     ? "no input file; give one .mlir file"
                                     : "no input files; give one or more .cu "
                                       "files"));
  if (*M == cli::Mode::LowerSparseMatmul)
    return lowerSparseMatmul();
  Expected<std::vector<PassInvocation>> Pipeline = checkArguments(*M);
  if (!Pipeline)
    return reportError(Pipeline.takeError());
  Expected<std::unique_ptr<clang::tooling::CompilationDatabase>> DB =
      loadCompilationDatabase();
  if (!DB)
    return reportError(DB.takeError());

  Expected<Toolchain> TC = Toolchain::discover(TO);
  if (!TC)
    return reportError(TC.takeError());

  const bool Rewriting = *M == cli::Mode::Passes || *M == cli::Mode::Tune ||
                         *M == cli::Mode::Predict || *M == cli::Mode::Apply;
  if (Rewriting && cli::InputFiles.size() > 1 && cli::OutputPath != "-" &&
      !sys::fs::is_directory(cli::OutputPath))
    return reportError(
        makeError("with several inputs, -o must name an existing directory"));

  int RC = 0;
  json::Array JsonOut;
  for (const std::string &File : cli::InputFiles) {
    Expected<SourceInput> In = loadInput(File, DB->get(), ExtraFlags);
    if (!In) {
      RC = reportError(In.takeError());
      continue;
    }
    Error E = [&] {
      switch (*M) {
      case cli::Mode::ListKernels:
        return listKernels(*TC, *In, JsonOut);
      case cli::Mode::ListRegions:
        return listRegions(*TC, *In, JsonOut);
      case cli::Mode::Analyze:
        return analyze(*TC, *In, JsonOut);
      case cli::Mode::InstrumentCapture:
        return instrumentCapture(*TC, *In, cli::OutputPath);
      case cli::Mode::CompileCubin:
        return compileCubin(*TC, *In, cli::OutputPath);
      case cli::Mode::Fp64Shadow:
        return printFp64Shadow(*TC, *In, cli::OutputPath);
      case cli::Mode::Passes:
        return runPasses(*TC, *In, *Pipeline, outputFor(File));
      case cli::Mode::Tune:
        return tuneFile(*TC, *In, outputFor(File), TO.ExecutablePath);
      case cli::Mode::Predict:
        return tuneFile(*TC, *In, outputFor(File), TO.ExecutablePath,
                        tuneCommandLine(argc, argv));
      case cli::Mode::Apply:
        return applyRecorded(*TC, *In, outputFor(File));
      case cli::Mode::LowerSparseMatmul:
      case cli::Mode::Db:
      case cli::Mode::TuneBatch:
        break;
      }
      llvm_unreachable("the MLIR mode, db and tune-batch returned above");
    }();
    if (E)
      RC = reportError(std::move(E));
  }
  if (*M == cli::Mode::ListKernels)
    printKernelList(std::move(JsonOut));
  else if (*M == cli::Mode::ListRegions)
    printRegionList(std::move(JsonOut));
  else if (*M == cli::Mode::Analyze)
    printAnalyses(std::move(JsonOut));
  return RC;
}

int main(int argc, const char **argv) {
  InitLLVM X(argc, argv);
  // Past a file-size limit (ulimit -f) a write raises SIGXFSZ, which LLVM's
  // crash handler turns into a stack dump; ignored, the write fails with
  // EFBIG and the output writer reports it like a full disk.
  std::signal(SIGXFSZ, SIG_IGN);
  // Clang's parser recurses once per nesting level of an expression; a
  // few hundred nested parentheses (or macros expanding to them) overflow
  // the 8 MiB main-thread stack. clang itself parses on a thread with more
  // stack when it must; cuda-opt runs everything on one with 256 MiB (only
  // touched pages are committed), and Clang's own limits
  // (-fbracket-depth, template depth) then report errors instead.
  int Status = 1;
  llvm::thread Worker(std::optional<unsigned>(256u << 20),
                      [&] { Status = runTool(argc, argv); });
  Worker.join();
  return Status;
}
