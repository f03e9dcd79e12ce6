//===- Options.cpp - The command line of cuda-opt -------------------------===//
//
// Part of cuda-opt. The definitions of the options in Options.h, the parse,
// and the check that exactly one mode is given.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include "cuda-opt/Support/Version.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdio>
#include <memory>

using namespace llvm;

namespace cuda_opt {
namespace cli {

cl::OptionCategory Category("cuda-opt options");

cl::SubCommand TuneCommand(
    "tune", "Rewrite, measure the variants on the GPU and keep the fastest "
            "verified one (same options as --tune)");
cl::SubCommand
    ApplyCommand("apply",
                 "Re-apply, to each kernel the tuning database knows, its best "
                 "recorded verified variant (no GPU needed; --db DB)");
cl::SubCommand
    DbCommand("db",
              "The tuning database: 'db stats', 'db list [--kernel-hash H]', "
              "'db best FILE.cu', 'db export [-o F]', 'db import F.jsonl...', "
              "'db merge A B', 'db hash FILE.cu' (docs/tuning-database.md)");
cl::SubCommand TuneBatchCommand(
    "tune-batch",
    "Tune many files in shards: locally (one shard per GPU) or, with "
    "--slurm, as a Slurm job array writing into one shared tuning database "
    "(--db postgresql://...); waits and reports each shard "
    "(docs/cluster-tuning.md)");
// Registered so that --help lists it. Its arguments never reach cl: its
// parser's messages (tested in test/Sparse) are not cl's.
cl::SubCommand SparseEncodeCommand(
    "sparse-encode", "Encode a 2-D fp16/bf16 weight in the three-layer sparse "
                     "format (see 'cuda-opt sparse-encode --help')");

// Every option is in both the top level and `tune`: `cuda-opt tune FILE` was
// `cuda-opt --tune FILE` spelled as a subcommand and takes the same options,
// with the same errors for the wrong ones (a mode flag after `tune` is the
// "exclusive" error) and the same suggestions for misspelt ones.
// `apply` and `db` take them too: they parse files the same way (and `db`
// reads its action from the positional arguments).
// `tune-batch` takes them to pass the tune options on to its shards.
static cl::SubCommandGroup Driver({&cl::SubCommand::getTopLevel(), &TuneCommand,
                                   &ApplyCommand, &DbCommand,
                                   &TuneBatchCommand});

cl::list<std::string> InputFiles(cl::Positional, cl::desc("<file.cu>..."),
                                 cl::cat(Category), cl::sub(Driver));
cl::opt<std::string>
    BuildPath("p", cl::desc("Build directory containing compile_commands.json"),
              cl::value_desc("dir"), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> CudaPath(
    "cuda-path",
    cl::desc("CUDA installation (default: $CUDA_PATH, then /usr/local/cuda)"),
    cl::value_desc("dir"), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> ResourceDir(
    "resource-dir",
    cl::desc("clang resource directory (default: next to cuda-opt, then the "
             "build's)"),
    cl::value_desc("dir"), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> GpuArch("cuda-gpu-arch",
                             cl::desc("GPU architecture (default sm_90)"),
                             cl::init("sm_90"), cl::cat(Category),
                             cl::sub(Driver));

cl::opt<bool> CudaLegacy(
    "cuda-legacy",
    cl::desc("Map the runtime calls CUDA 13 removed whose successors do the "
             "same (cudaThreadSynchronize, cudaThreadExit, "
             "cudaThreadSet/GetLimit, cudaThreadSet/GetCacheConfig -> "
             "cudaDevice*); rewritten files carry the mapping at their top "
             "so that nvcc 13 builds them (docs/nvcc-compatibility.md)"),
    cl::cat(Category), cl::sub(Driver));

cl::opt<bool> ListPasses("list-passes",
                         cl::desc("List every transform and exit"),
                         cl::cat(Category), cl::sub(Driver));
cl::opt<bool> ListKernels("list-kernels",
                          cl::desc("List the __global__ kernels, their "
                                   "parameters and launch sites"),
                          cl::cat(Category), cl::sub(Driver));
cl::opt<bool> ListRegions(
    "list-regions",
    cl::desc("List the host regions: runs of kernel launches and device "
             "memory operations in host code, with their buffers"),
    cl::cat(Category), cl::sub(Driver));
cl::opt<unsigned> OutlineRegion(
    "outline-region",
    cl::desc("With --list-regions: print region N (from 1) outlined as tune "
             "builds it into a library for the measurement worker"),
    cl::value_desc("N"), cl::init(0), cl::cat(Category), cl::sub(Driver));
cl::opt<bool>
    Tune("tune",
         cl::desc("Rewrite, measure the variants on the GPU and keep the "
                  "fastest verified one (also spelled 'cuda-opt tune FILE')"),
         cl::cat(Category), cl::sub(Driver));
cl::opt<std::string>
    SpecPath("spec",
             cl::desc("tune: JSON spec giving sizes, launch shape and inputs "
                      "(spec mode; see docs/tuning.md)"),
             cl::value_desc("file.json"), cl::cat(Category), cl::sub(Driver));
cl::opt<unsigned> Budget("budget", cl::desc("tune: most variants to measure"),
                         cl::init(64), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> PolicyName(
    "policy",
    cl::desc("tune: the order in which candidates are measured within the "
             "budget: 'ranker' (default: the learned ranker, gradient-boosted "
             "trees trained on measured speedups, docs/policy.md), 'knn' "
             "(the k-nearest-neighbour policy; 'learned' is its old name) or "
             "'round-robin'. Without a measurement, the ranker predicts each "
             "kernel's best strict rewrite; the others apply the default "
             "pipeline where legal"),
    cl::init("ranker"), cl::cat(Category), cl::sub(Driver));
cl::opt<unsigned> OnlineRounds(
    "online-rounds",
    cl::desc("tune, with --policy=ranker: measure a kernel's budget in up to "
             "N rounds when it has more candidates than the budget takes, "
             "re-ranking the rest from what each round measured (default 4; "
             "1: one batch in the ranker's order; docs/policy.md)"),
    cl::value_desc("N"), cl::init(4), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> TestReplayMeasurements(
    "test-replay-measurements",
    cl::desc("tune, spec mode, for tests only: take every measurement from "
             "this JSON file instead of compiling and running the variants on "
             "a GPU (docs/tuning.md)"),
    cl::value_desc("replay.json"), cl::Hidden, cl::cat(Category),
    cl::sub(Driver));
cl::opt<std::string> PolicyModel(
    "policy-model",
    cl::desc("tune: the ranker model file to use (cuda-opt train -o FILE; "
             "default: $CUDA_OPT_POLICY_MODEL, else the built-in model)"),
    cl::value_desc("model.json"), cl::cat(Category), cl::sub(Driver));
cl::opt<bool> PrintCandidateSpace(
    "print-candidate-space",
    cl::desc("Print every candidate pipeline tune enumerates, in round-robin "
             "order, one per line (what bench/policy/train.py ranks)"),
    cl::Hidden, cl::cat(Category), cl::sub(Driver));
cl::opt<bool> DryRun(
    "dry-run",
    cl::desc("tune: list the candidates that would be measured (rewritten "
             "and checked for legality), with nothing compiled or run; no GPU "
             "needed"),
    cl::cat(Category), cl::sub(Driver));
cl::opt<unsigned> TimeBudget(
    "time",
    cl::desc("tune: seconds for the whole tune; kernels and variants not "
             "reached by then are reported as skipped (default: no limit)"),
    cl::value_desc("S"), cl::init(0), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> RunCommand(
    "run",
    cl::desc("tune, program mode: shell command that builds and runs the "
             "program (e.g. 'make && ./app'), for programs built from several "
             "files; it runs in a copy of the current directory in which FILE "
             "is instrumented"),
    cl::value_desc("CMD"), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> GemmLibrary(
    "gemm-library",
    cl::desc("tune: the shared runtime GEMM library (libcudaopt_gemm.so) the "
             "worker calls to measure gemm-specialize variants (default: next "
             "to the worker)"),
    cl::value_desc("path"), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> CudnnRoot(
    "cudnn-root",
    cl::desc("tune: the cuDNN installation conv-cudnn variants are built "
             "against (include/cudnn.h, lib/ or lib64/libcudnn.so*; default: "
             "$CUDNN_ROOT, then the CUDA path)"),
    cl::value_desc("dir"), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string>
    MeasureWorker("measure-worker",
                  cl::desc("tune: the cuda-opt-measure worker (default: next "
                           "to cuda-opt)"),
                  cl::value_desc("path"), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> WorkDir("work-dir",
                             cl::desc("tune: keep jobs, results and logs here"),
                             cl::value_desc("dir"), cl::cat(Category),
                             cl::sub(Driver));
cl::opt<std::string> RunArgs(
    "run-args",
    cl::desc("tune, program mode: arguments for the program (space-separated)"),
    cl::value_desc("ARGS"), cl::cat(Category), cl::sub(Driver));
cl::opt<int64_t> LaunchIndex(
    "launch",
    cl::desc("tune, program mode: which launch of the kernel to capture "
             "(0 = the first)"),
    cl::init(0), cl::cat(Category), cl::sub(Driver));
cl::opt<double> RelTol(
    "rtol",
    cl::desc("tune: relative tolerance when comparing a variant's outputs "
             "with the original's (default: the spec's, else 1e-5 for fp32, "
             "1e-2 for fp16/bf16, exact for integers)"),
    cl::init(-1), cl::cat(Category), cl::sub(Driver));
cl::opt<unsigned> OrigRuns(
    "orig-runs",
    cl::desc("tune, --fp-model=reassoc: runs of the original per seed on the "
             "same inputs; its largest error against the fp64 reference is "
             "the one variants are held to (1 to 16, default 3: an output "
             "summed with float atomics has another error each run)"),
    cl::value_desc("N"), cl::init(3), cl::cat(Category), cl::sub(Driver));
cl::list<int>
    Gpus("gpus",
         cl::desc("tune: GPUs to measure on, one worker each (default: all)"),
         cl::CommaSeparated, cl::value_desc("N,N,..."), cl::cat(Category),
         cl::sub(Driver));
cl::opt<unsigned>
    ProgramTimeout("program-timeout",
                   cl::desc("tune, program mode: seconds the program may run"),
                   cl::init(600), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> DbPath(
    "db",
    cl::desc("tune, apply, db, tune-batch: the tuning database, a SQLite "
             "file or postgresql://USER@HOST:PORT/DB (default "
             "$XDG_CACHE_HOME/cuda-opt/tuning.db, else "
             "~/.cache/cuda-opt/tuning.db; docs/tuning-database.md)"),
    cl::value_desc("path|url"), cl::cat(Category), cl::sub(Driver));
cl::opt<bool> NoDb("no-db",
                   cl::desc("tune: neither record measurements in the tuning "
                            "database nor reuse them"),
                   cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> KernelHashFilter(
    "kernel-hash", cl::desc("db list: only the rows of this kernel hash"),
    cl::value_desc("hash"), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> GpuModel(
    "gpu-model",
    cl::desc("apply, db best/list: only measurements made on this GPU model "
             "(e.g. 'NVIDIA H200'; default: any)"),
    cl::value_desc("name"), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> Signature(
    "signature",
    cl::desc("apply, db best: the problem signature to prefer (as 'db list' "
             "shows it; with apply, --spec gives it too); default: the "
             "recorded one with the best speedup"),
    cl::value_desc("sig"), cl::cat(Category), cl::sub(Driver));
cl::opt<bool> Slurm(
    "slurm",
    cl::desc("tune-batch: submit the shards as a Slurm job array (sbatch), "
             "one GPU per task, and wait for it"),
    cl::cat(Category), cl::sub(TuneBatchCommand));
cl::opt<unsigned>
    Shards("shards",
           cl::desc("tune-batch: how many shards the files are dealt into "
                    "(default: with --slurm one per file, else one per GPU)"),
           cl::value_desc("N"), cl::init(0), cl::cat(Category),
           cl::sub(TuneBatchCommand));
cl::opt<std::string> Partition(
    "partition", cl::desc("tune-batch --slurm: the Slurm partition to run in"),
    cl::value_desc("name"), cl::cat(Category), cl::sub(TuneBatchCommand));
cl::opt<std::string> TimeLimit(
    "time-limit",
    cl::desc("tune-batch --slurm: each task's Slurm time limit (sbatch "
             "--time: MINUTES, H:MM:SS or D-HH:MM)"),
    cl::value_desc("time"), cl::cat(Category), cl::sub(TuneBatchCommand));
cl::opt<unsigned> BatchTimeout(
    "batch-timeout",
    cl::desc("tune-batch: seconds to wait for all shards; then the job is "
             "cancelled and tune-batch fails (default: no limit)"),
    cl::value_desc("S"), cl::init(0), cl::cat(Category),
    cl::sub(TuneBatchCommand));
cl::opt<unsigned> PollInterval(
    "poll-interval",
    cl::desc("tune-batch --slurm: seconds between two looks at the job "
             "(squeue)"),
    cl::value_desc("S"), cl::init(10), cl::Hidden, cl::cat(Category),
    cl::sub(TuneBatchCommand));
cl::opt<bool> InstrumentCapture(
    "instrument-capture",
    cl::desc("Print the file with --kernel's launches routed through the "
             "capture runtime (what program-mode tune builds and runs)"),
    cl::cat(Category), cl::sub(Driver));
cl::list<std::string> ProbeVariants(
    "probe-variant",
    cl::desc("--instrument-capture: also evaluate this variant's launch "
             "configuration at each site (the launch probe; repeatable, "
             "variants numbered from 1)"),
    cl::value_desc("file.cu"), cl::cat(Category), cl::sub(Driver));
cl::opt<bool> CompileCubin(
    "compile-cubin",
    cl::desc("Compile the file's device code as tune compiles variants "
             "(NVRTC, else nvcc) and write the cubin to -o; says which "
             "compiler built it"),
    cl::cat(Category), cl::sub(Driver));
cl::opt<FpModel> FpModelOpt(
    "fp-model",
    cl::desc("What rewrites may do to floating-point results "
             "(docs/fp-model.md)"),
    cl::init(FpModel::Reassoc),
    cl::values(clEnumValN(FpModel::Strict, "strict",
                          "every output bitwise equal to the original's"),
               clEnumValN(FpModel::Reassoc, "reassoc",
                          "reductions may be reordered; tune verifies "
                          "against an fp64 reference (default)"),
               clEnumValN(FpModel::Fast, "fast",
                          "also lower precision and approximate math; "
                          "tune needs --rtol")),
    cl::cat(Category), cl::sub(Driver));
cl::opt<bool> Fp64ShadowMode(
    "fp64-shadow",
    cl::desc("Print the file with the fp64 shadow of --kernel appended (the "
             "reference tune verifies float outputs against), or why there "
             "is none"),
    cl::cat(Category), cl::sub(Driver));
cl::opt<bool> Analyze("analyze", cl::desc("Print the kernel model"),
                      cl::cat(Category), cl::sub(Driver));
cl::opt<bool> JSON("json", cl::desc("Machine-readable output"),
                   cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> KernelName("kernel", cl::desc("Only this kernel"),
                                cl::value_desc("name"), cl::cat(Category),
                                cl::sub(Driver));
cl::opt<std::string> Passes(
    "passes",
    cl::desc("Transform pipeline, e.g. 'restrict-const,unroll{factor=4}'"),
    cl::value_desc("pipeline"), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string> Candidates(
    "candidates",
    cl::desc("tune: measure only these pipelines, separated by ';' (e.g. "
             "'unroll{factor=4};restrict-const,vectorize{width=4}'), instead "
             "of the candidate space; without a measurement (no mode, or no "
             "GPU), the ones the prediction chooses from"),
    cl::value_desc("p1;p2;..."), cl::cat(Category), cl::sub(Driver));
cl::opt<std::string>
    OutputPath("o", cl::desc("Output file (one input) or directory (several)"),
               cl::value_desc("path"), cl::init("-"), cl::cat(Category),
               cl::sub(Driver));
cl::opt<EmitKind> Emit(
    "emit", cl::desc("What --passes writes"), cl::init(EmitKind::Source),
    cl::values(clEnumValN(EmitKind::Source, "source", "the rewritten file"),
               clEnumValN(EmitKind::Diff, "diff", "a unified diff"),
               clEnumValN(EmitKind::Report, "report",
                          "what was applied where, and why not")),
    cl::cat(Category), cl::sub(Driver));
cl::opt<bool> NoFormat("no-format",
                       cl::desc("Do not clang-format edited ranges"),
                       cl::cat(Category), cl::sub(Driver));

cl::opt<bool> LowerSparseMatmul(
    "lower-sparse-matmul",
    cl::desc("MLIR: lower each linalg.matmul with a constant sparse weight to "
             "the three-layer SpMM runtime (one .mlir input; see "
             "docs/sparse-lowering.md)"),
    cl::cat(Category), cl::sub(Driver));
cl::opt<double> MinSparsity(
    "min-sparsity",
    cl::desc("--lower-sparse-matmul: leave weights with a smaller fraction "
             "of zeros dense (default 0.3)"),
    cl::init(0.3), cl::cat(Category), cl::sub(Driver));
cl::opt<double> MaxBytesPerElement(
    "max-bytes-per-element",
    cl::desc("--lower-sparse-matmul: leave weights dense when padding to "
             "16 x 256 blocks makes the encoding read at least this many "
             "bytes per element (default 2, dense fp16)"),
    cl::init(2.0), cl::cat(Category), cl::sub(Driver));
cl::opt<bool> VerifyDiagnostics(
    "verify-diagnostics",
    cl::desc("--lower-sparse-matmul: check the diagnostics against the "
             "input's expected-* comments"),
    cl::cat(Category), cl::sub(Driver));
cl::opt<bool> SplitInputFile(
    "split-input-file",
    cl::desc("--lower-sparse-matmul: process each '// -----' chunk of the "
             "input on its own"),
    cl::cat(Category), cl::sub(Driver));

void parseCommandLine(int Argc, const char *const *Argv) {
  cl::HideUnrelatedOptions(Category);
  cl::HideUnrelatedOptions(Category, TuneCommand);
  cl::HideUnrelatedOptions(Category, ApplyCommand);
  cl::HideUnrelatedOptions(Category, DbCommand);
  cl::HideUnrelatedOptions(Category, TuneBatchCommand);
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "cuda-opt " << CudaOptVersion << " (LLVM/Clang "
       << LLVM_VERSION_STRING << ")\n";
  });
  cl::ParseCommandLineOptions(
      Argc, Argv,
      "cuda-opt: analyse and rewrite CUDA kernels\n\n"
      "  cuda-opt FILE.cu -o OUT.cu      (the default pipeline where legal; "
      "predicted, not measured)\n"
      "  cuda-opt --list-kernels FILE.cu [-- FLAGS]\n"
      "  cuda-opt --list-regions FILE.cu [--json]\n"
      "  cuda-opt --analyze FILE.cu [--kernel NAME] --json\n"
      "  cuda-opt --passes='restrict-const,unroll{factor=4}' FILE.cu -o "
      "OUT.cu\n"
      "  cuda-opt tune FILE.cu -o OUT.cu [--db DB | --no-db]\n"
      "  cuda-opt apply FILE.cu --db DB -o OUT.cu\n"
      "  cuda-opt db {stats,list,best,export,import,merge,hash} ...\n"
      "  cuda-opt tune-batch FILE.cu... --db URL -o DIR [--slurm]\n"
      "  cuda-opt --lower-sparse-matmul IN.mlir -o OUT.mlir\n");
}

static Error error(const Twine &Message) { return createStringError(Message); }

/// tune-batch: the tune options pass on to the shards; those that name one
/// file's kernel or program do not fit several files.
static Expected<Mode> selectTuneBatch() {
  const cl::Option *PerFile[] = {&KernelName, &SpecPath,    &RunCommand,
                                 &RunArgs,    &LaunchIndex, &WorkDir,
                                 &NoDb,       &Signature,   &GpuModel};
  for (const cl::Option *O : PerFile)
    if (O->getNumOccurrences())
      return error("--" + O->ArgStr +
                   " does not go with tune-batch, whose shards tune "
                   "whole files (run 'cuda-opt tune' for one file)");
  const cl::Option *Modes[] = {&Tune,
                               &ListKernels,
                               &ListRegions,
                               &Analyze,
                               &InstrumentCapture,
                               &CompileCubin,
                               &Fp64ShadowMode,
                               &LowerSparseMatmul,
                               &Passes,
                               &JSON};
  for (const cl::Option *O : Modes)
    if (O->getNumOccurrences())
      return error("--" + O->ArgStr + " does not go with tune-batch");
  if (Slurm && Gpus.getNumOccurrences())
    return error("--gpus picks this machine's GPUs; under --slurm each task "
                 "runs on the GPU Slurm gives it (--gres=gpu:1)");
  if (!Slurm &&
      (Partition.getNumOccurrences() || TimeLimit.getNumOccurrences()))
    return error("--partition and --time-limit go with --slurm");
  return Mode::TuneBatch;
}

Expected<Mode> selectMode() {
  if (DbCommand)
    return Mode::Db;
  if (TuneBatchCommand)
    return selectTuneBatch();
  const bool Tuning = Tune || TuneCommand;
  const bool Applying = static_cast<bool>(ApplyCommand);
  if (NoDb && !Tuning)
    return error("--no-db goes with tune (which records measurements and "
                 "reuses them)");
  if (DbPath.getNumOccurrences() && !Tuning && !Applying)
    return error("--db goes with tune, apply, db and tune-batch");
  if (NoDb && DbPath.getNumOccurrences())
    return error("--db and --no-db exclude each other");
  if (KernelHashFilter.getNumOccurrences())
    return error("--kernel-hash goes with 'db list'");
  if ((GpuModel.getNumOccurrences() || Signature.getNumOccurrences()) &&
      !Applying)
    return error("--gpu-model and --signature go with apply and db");
  const bool Transforming = !Passes.empty() && !Tuning;
  int Modes = ListKernels + ListRegions + Analyze + Tuning + InstrumentCapture +
              CompileCubin + Fp64ShadowMode + Transforming + LowerSparseMatmul +
              Applying;
  if (OutlineRegion.getNumOccurrences() && !ListRegions)
    return error("--outline-region=N goes with --list-regions (which lists "
                 "the regions N counts)");
  if (Modes == 0) {
    if (Passes.getNumOccurrences())
      return error("nothing to do: --passes is empty; give a pipeline, e.g. "
                   "--passes='restrict-const,unroll{factor=4}' (see "
                   "--list-passes)");
    if (InputFiles.empty())
      return error(
          "nothing to do: give one of tune, --list-kernels, --list-regions, "
          "--analyze, "
          "--passes=PIPELINE, --instrument-capture, --compile-cubin, "
          "--fp64-shadow, --lower-sparse-matmul or --list-passes (see "
          "--help), and the input files");
    // No mode: what tune does without a GPU, whatever the machine has. The
    // options that only steer measuring would be ignored; say so instead.
    // (--policy, --policy-model and --candidates steer the prediction.)
    // (std::addressof: cl::list's operator& gives its vector of values.)
    const cl::Option *MeasuringOptions[] = {&SpecPath,
                                            &Budget,
                                            &DryRun,
                                            &TimeBudget,
                                            &RunCommand,
                                            &GemmLibrary,
                                            &CudnnRoot,
                                            &MeasureWorker,
                                            &WorkDir,
                                            &RunArgs,
                                            &LaunchIndex,
                                            &RelTol,
                                            std::addressof(Gpus),
                                            &ProgramTimeout,
                                            &OrigRuns,
                                            &OnlineRounds,
                                            &TestReplayMeasurements};
    for (const cl::Option *O : MeasuringOptions)
      if (O->getNumOccurrences())
        return error("--" + O->ArgStr +
                     " steers measuring; give it with tune (cuda-opt tune "
                     "FILE ...). Without a mode, cuda-opt applies a predicted "
                     "rewrite and measures nothing");
    return Mode::Predict;
  }
  if (Modes > 1)
    return error("tune, --list-kernels, --list-regions, --analyze, --passes, "
                 "--instrument-capture, --compile-cubin, --fp64-shadow and "
                 "--lower-sparse-matmul are exclusive; give one of them");
  if (!Candidates.empty() && !Tuning)
    return error("--candidates chooses what tune measures; use it with tune "
                 "(to apply one pipeline without measuring, use --passes)");
  if (ListKernels)
    return Mode::ListKernels;
  if (ListRegions)
    return Mode::ListRegions;
  if (Analyze)
    return Mode::Analyze;
  if (Tuning)
    return Mode::Tune;
  if (Applying)
    return Mode::Apply;
  if (InstrumentCapture)
    return Mode::InstrumentCapture;
  if (CompileCubin)
    return Mode::CompileCubin;
  if (Fp64ShadowMode)
    return Mode::Fp64Shadow;
  if (Transforming)
    return Mode::Passes;
  return Mode::LowerSparseMatmul;
}

std::vector<std::string> tuneBatchForwardedArgs() {
  std::vector<std::string> Out;
  auto Arg = [&](const cl::Option &O, const Twine &Value) {
    if (O.getNumOccurrences())
      Out.push_back(("--" + O.ArgStr + "=" + Value).str());
  };
  auto Path = [&](const cl::opt<std::string> &O) {
    SmallString<256> P(O.getValue());
    if (!P.empty())
      sys::fs::make_absolute(P);
    Arg(O, P);
  };
  auto Flag = [&](const cl::opt<bool> &O) {
    if (O.getNumOccurrences() && O)
      Out.push_back(("--" + O.ArgStr).str());
  };
  Path(BuildPath);
  Path(CudaPath);
  Path(ResourceDir);
  Arg(GpuArch, GpuArch.getValue());
  Flag(CudaLegacy);
  Flag(NoFormat);
  Arg(FpModelOpt, fpModelName(FpModelOpt));
  Arg(Budget, Twine(Budget.getValue()));
  Arg(PolicyName, PolicyName.getValue());
  Path(PolicyModel);
  Arg(OnlineRounds, Twine(OnlineRounds.getValue()));
  Flag(DryRun);
  Arg(TimeBudget, Twine(TimeBudget.getValue()));
  Arg(Candidates, Candidates.getValue());
  Path(GemmLibrary);
  Path(CudnnRoot);
  Path(MeasureWorker);
  char Tol[40];
  std::snprintf(Tol, sizeof(Tol), "%.17g", RelTol.getValue());
  Arg(RelTol, Tol);
  Arg(OrigRuns, Twine(OrigRuns.getValue()));
  Arg(ProgramTimeout, Twine(ProgramTimeout.getValue()));
  return Out;
}

} // namespace cli
} // namespace cuda_opt
