//===- cuda-opt.cpp - The cuda-opt command --------------------------------===//
//
// Part of cuda-opt. Parses the command line and dispatches to one of the
// modes: --list-passes, --list-kernels, --analyze, --passes, and the MLIR
// mode --lower-sparse-matmul (an .mlir input, lib/SparseLowering).
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Analysis/KernelModelText.h"
#include "cuda-opt/Frontend/CudaToolchain.h"
#include "cuda-opt/Frontend/SourceParser.h"
#include "cuda-opt/Capture/Capture.h"
#include "cuda-opt/Search/Tuner.h"
#include "cuda-opt/Support/OutputFile.h"
#include "cuda-opt/Pass/Pipeline.h"
#include "cuda-opt/Transforms/InitAllTransforms.h"
#include "SparseEncodeCommand.h"
#ifdef CUDA_OPT_WITH_MLIR
#include "cuda-opt/SparseLowering/Driver.h"
#endif

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <limits>

using namespace clang;
using namespace llvm;
using namespace cuda_opt;

static cl::OptionCategory Category("cuda-opt options");

static cl::list<std::string> InputFiles(cl::Positional, cl::desc("<file.cu>..."),
                                        cl::cat(Category));
static cl::opt<std::string>
    BuildPath("p", cl::desc("Build directory containing compile_commands.json"),
              cl::value_desc("dir"), cl::cat(Category));
static cl::opt<std::string> CudaPath(
    "cuda-path",
    cl::desc("CUDA installation (default: $CUDA_PATH, then /usr/local/cuda)"),
    cl::value_desc("dir"), cl::cat(Category));
static cl::opt<std::string> ResourceDir(
    "resource-dir",
    cl::desc("clang resource directory (default: next to cuda-opt, then the "
             "build's)"),
    cl::value_desc("dir"), cl::cat(Category));
static cl::opt<std::string> GpuArch("cuda-gpu-arch",
                                    cl::desc("GPU architecture (default sm_90)"),
                                    cl::init("sm_90"), cl::cat(Category));

static cl::opt<bool> ListPasses("list-passes",
                                cl::desc("List every transform and exit"),
                                cl::cat(Category));
static cl::opt<bool> ListKernels("list-kernels",
                                 cl::desc("List the __global__ kernels, their "
                                          "parameters and launch sites"),
                                 cl::cat(Category));
static cl::opt<bool>
    Tune("tune",
         cl::desc("Rewrite, measure the variants on the GPU and keep the "
                  "fastest verified one (also spelled 'cuda-opt tune FILE')"),
         cl::cat(Category));
static cl::opt<std::string>
    SpecPath("spec",
             cl::desc("tune: JSON spec giving sizes, launch shape and inputs "
                      "(spec mode; see docs/tuning.md)"),
             cl::value_desc("file.json"), cl::cat(Category));
static cl::opt<unsigned> Budget("budget",
                                cl::desc("tune: most variants to measure"),
                                cl::init(64), cl::cat(Category));
static cl::opt<std::string> PolicyName(
    "policy",
    cl::desc("tune: the order in which candidates are measured within the "
             "budget: 'learned' (default: the policy trained on measured "
             "speedups, docs/policy.md) or 'round-robin'"),
    cl::init("learned"), cl::cat(Category));
static cl::opt<bool> PrintCandidateSpace(
    "print-candidate-space",
    cl::desc("Print every candidate pipeline tune enumerates, in round-robin "
             "order, one per line (what bench/policy/train.py ranks)"),
    cl::Hidden, cl::cat(Category));
static cl::opt<bool> DryRun(
    "dry-run",
    cl::desc("tune: list the candidates that would be measured (rewritten "
             "and checked for legality), with nothing compiled or run; no GPU "
             "needed"),
    cl::cat(Category));
static cl::opt<unsigned> TimeBudget(
    "time",
    cl::desc("tune: seconds for the whole tune; kernels and variants not "
             "reached by then are reported as skipped (default: no limit)"),
    cl::value_desc("S"), cl::init(0), cl::cat(Category));
static cl::opt<std::string> RunCommand(
    "run",
    cl::desc("tune, program mode: shell command that builds and runs the "
             "program (e.g. 'make && ./app'), for programs built from several "
             "files; it runs in a copy of the current directory in which FILE "
             "is instrumented"),
    cl::value_desc("CMD"), cl::cat(Category));
static cl::opt<std::string> GemmLibrary(
    "gemm-library",
    cl::desc("tune: the shared runtime GEMM library (libcudaopt_gemm.so) the "
             "worker calls to measure gemm-specialize variants (default: next "
             "to the worker)"),
    cl::value_desc("path"), cl::cat(Category));
static cl::opt<std::string>
    MeasureWorker("measure-worker",
                  cl::desc("tune: the cuda-opt-measure worker (default: next "
                           "to cuda-opt)"),
                  cl::value_desc("path"), cl::cat(Category));
static cl::opt<std::string>
    WorkDir("work-dir", cl::desc("tune: keep jobs, results and logs here"),
            cl::value_desc("dir"), cl::cat(Category));
static cl::opt<std::string> RunArgs(
    "run-args",
    cl::desc("tune, program mode: arguments for the program (space-separated)"),
    cl::value_desc("ARGS"), cl::cat(Category));
static cl::opt<int64_t> LaunchIndex(
    "launch",
    cl::desc("tune, program mode: which launch of the kernel to capture "
             "(0 = the first)"),
    cl::init(0), cl::cat(Category));
static cl::opt<double> RelTol(
    "rtol",
    cl::desc("tune: relative tolerance when comparing a variant's outputs "
             "with the original's (default: the spec's, else 1e-5 for fp32, "
             "1e-2 for fp16/bf16, exact for integers)"),
    cl::init(-1), cl::cat(Category));
static cl::list<int> Gpus(
    "gpus",
    cl::desc("tune: GPUs to measure on, one worker each (default: all)"),
    cl::CommaSeparated, cl::value_desc("N,N,..."), cl::cat(Category));
static cl::opt<unsigned> ProgramTimeout(
    "program-timeout",
    cl::desc("tune, program mode: seconds the program may run"),
    cl::init(600), cl::cat(Category));
static cl::opt<bool> InstrumentCapture(
    "instrument-capture",
    cl::desc("Print the file with --kernel's launches routed through the "
             "capture runtime (what program-mode tune builds and runs)"),
    cl::cat(Category));
static cl::list<std::string> ProbeVariants(
    "probe-variant",
    cl::desc("--instrument-capture: also evaluate this variant's launch "
             "configuration at each site (the launch probe; repeatable, "
             "variants numbered from 1)"),
    cl::value_desc("file.cu"), cl::cat(Category));
static cl::opt<bool> CompileCubin(
    "compile-cubin",
    cl::desc("Compile the file's device code as tune compiles variants "
             "(NVRTC, else nvcc) and write the cubin to -o; says which "
             "compiler built it"),
    cl::cat(Category));
static cl::opt<bool> Analyze("analyze", cl::desc("Print the kernel model"),
                             cl::cat(Category));
static cl::opt<bool> JSON("json", cl::desc("Machine-readable output"),
                          cl::cat(Category));
static cl::opt<std::string> KernelName("kernel",
                                       cl::desc("Only this kernel"),
                                       cl::value_desc("name"),
                                       cl::cat(Category));
static cl::opt<std::string>
    Passes("passes",
           cl::desc("Transform pipeline, e.g. 'restrict-const,unroll{factor=4}'"),
           cl::value_desc("pipeline"), cl::cat(Category));
static cl::opt<std::string>
    OutputPath("o", cl::desc("Output file (one input) or directory (several)"),
               cl::value_desc("path"), cl::init("-"), cl::cat(Category));
enum class EmitKind { Source, Diff, Report };
static cl::opt<EmitKind> Emit(
    "emit", cl::desc("What --passes writes"), cl::init(EmitKind::Source),
    cl::values(clEnumValN(EmitKind::Source, "source", "the rewritten file"),
               clEnumValN(EmitKind::Diff, "diff", "a unified diff"),
               clEnumValN(EmitKind::Report, "report",
                          "what was applied where, and why not")),
    cl::cat(Category));
static cl::opt<bool> NoFormat("no-format",
                              cl::desc("Do not clang-format edited ranges"),
                              cl::cat(Category));

static cl::opt<bool> LowerSparseMatmul(
    "lower-sparse-matmul",
    cl::desc("MLIR: lower each linalg.matmul with a constant sparse weight to "
             "the three-layer SpMM runtime (one .mlir input; see "
             "docs/sparse-lowering.md)"),
    cl::cat(Category));
static cl::opt<double> MinSparsity(
    "min-sparsity",
    cl::desc("--lower-sparse-matmul: leave weights with a smaller fraction "
             "of zeros dense (default 0.3)"),
    cl::init(0.3), cl::cat(Category));
static cl::opt<double> MaxBytesPerElement(
    "max-bytes-per-element",
    cl::desc("--lower-sparse-matmul: leave weights dense when padding to "
             "16 x 256 blocks makes the encoding read at least this many "
             "bytes per element (default 2, dense fp16)"),
    cl::init(2.0), cl::cat(Category));
static cl::opt<bool> VerifyDiagnostics(
    "verify-diagnostics",
    cl::desc("--lower-sparse-matmul: check the diagnostics against the "
             "input's expected-* comments"),
    cl::cat(Category));
static cl::opt<bool> SplitInputFile(
    "split-input-file",
    cl::desc("--lower-sparse-matmul: process each '// -----' chunk of the "
             "input on its own"),
    cl::cat(Category));

static StringRef ToolName = "cuda-opt";

static int fail(const Twine &Message) {
  WithColor::error(errs(), ToolName) << Message << "\n";
  return 1;
}

static int fail(Error E) { return fail(toString(std::move(E))); }

static int listPasses() {
  for (const auto &T : TransformRegistry::createAll()) {
    outs() << "  " << T->getName();
    outs().indent(std::max<int>(1, 16 - (int)T->getName().size()))
        << "- " << T->getSummary() << "\n";
    for (const ParamSpec &P : T->getParams())
      if (P.IsText)
        outs() << "      " << P.Name << "=<text>: " << P.Help << "\n";
      else
        outs() << "      " << P.Name << "=<int> [" << P.Min << ".." << P.Max
               << (P.PowerOfTwo ? ", power of two" : "")
               << "] default " << P.Default << ": " << P.Help << "\n";
  }
  return 0;
}

/// Read a file and attach the parse flags it is compiled with.
static Expected<SourceInput>
loadInput(StringRef File, const tooling::CompilationDatabase *DB,
          ArrayRef<std::string> ExtraFlags) {
  SmallString<256> Abs(File);
  if (std::error_code EC = sys::fs::make_absolute(Abs))
    return createStringError(EC, "cannot resolve path '%s'", File.str().c_str());
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Abs);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read input file '%s': %s",
                             File.str().c_str(),
                             Buf.getError().message().c_str());
  SourceInput In;
  In.Path = std::string(Abs);
  In.Text = (*Buf)->getBuffer().str();
  if (DB) {
    std::vector<tooling::CompileCommand> Cmds = DB->getCompileCommands(Abs);
    if (Cmds.empty())
      WithColor::warning(errs(), ToolName)
          << "'" << File << "' is not in the compilation database; parsing "
          << "it with the flags given after '--' only\n";
    else
      In.Flags = filterParseFlags(Cmds.front().CommandLine);
  }
  In.Flags.insert(In.Flags.end(), ExtraFlags.begin(), ExtraFlags.end());
  return In;
}

/// Parse \p In and call \p Fn on every kernel --kernel selects (all when it
/// is not given). A --kernel that names no kernel is an error.
static int
forSelectedKernels(const Toolchain &TC, const SourceInput &In,
                   function_ref<void(clang::ASTContext &, const KernelInfo &)> Fn) {
  Expected<std::unique_ptr<ParsedSource>> Parsed = parseSource(TC, In);
  if (!Parsed)
    return fail(Parsed.takeError());
  clang::ASTContext &Ctx = (*Parsed)->getASTContext();
  std::vector<KernelInfo> Kernels = findKernels(Ctx);
  if (!KernelName.empty() && !lookupKernel(Kernels, KernelName))
    return fail("no kernel named '" + KernelName + "' in '" + In.Path + "'");
  for (const KernelInfo &K : Kernels)
    if (KernelName.empty() || K.name() == KernelName)
      Fn(Ctx, K);
  return 0;
}

static void printInventory(const KernelInfo &K, const json::Object &O) {
  outs() << "kernel " << K.name() << " at " << *O.getString("location")
         << (K.isExternC() ? " [extern \"C\"]" : "") << "\n";
  if (K.Template) {
    outs() << "  template parameters:";
    for (const json::Value &TP : *O.getArray("template_parameters"))
      outs() << " " << *TP.getAsObject()->getString("name");
    outs() << "\n";
  }
  for (const json::Value &P : *O.getArray("parameters"))
    outs() << "  param " << *P.getAsObject()->getString("type") << " "
           << *P.getAsObject()->getString("name") << "\n";
  for (const json::Value &L : *O.getArray("launches")) {
    const json::Object &LO = *L.getAsObject();
    outs() << "  launch at " << *LO.getString("location") << " in "
           << *LO.getString("caller");
    if (auto G = LO.getString("grid")) {
      outs() << " <<<" << *G << ", " << *LO.getString("block");
      if (auto Sh = LO.getString("shmem"))
        outs() << ", " << *Sh;
      if (auto St = LO.getString("stream"))
        outs() << ", " << *St;
      outs() << ">>>";
    }
    outs() << "\n";
  }
  if (const json::Array *DL = O.getArray("device_launches"))
    for (const json::Value &L : *DL) {
      const json::Object &LO = *L.getAsObject();
      outs() << "  device-side launch at " << *LO.getString("location")
             << " in " << *LO.getString("caller")
             << " (dynamic parallelism: not modelled)\n";
    }
}

static int listKernels(const Toolchain &TC, const SourceInput &In,
                       json::Array &JsonOut) {
  return forSelectedKernels(TC, In, [&](clang::ASTContext &Ctx,
                                        const KernelInfo &K) {
    json::Value V = kernelInventoryToJSON(Ctx, K);
    if (JSON)
      JsonOut.push_back(std::move(V));
    else
      printInventory(K, *V.getAsObject());
  });
}

static int analyze(const Toolchain &TC, const SourceInput &In,
                   json::Array &JsonOut) {
  return forSelectedKernels(TC, In,
                            [&](clang::ASTContext &Ctx, const KernelInfo &K) {
                              JsonOut.push_back(analyzeKernelToJSON(Ctx, K));
                            });
}

static int instrumentCapture(const Toolchain &TC, const SourceInput &In,
                             StringRef Output) {
  Expected<std::unique_ptr<ParsedSource>> Parsed = parseSource(TC, In);
  if (!Parsed)
    return fail(Parsed.takeError());
  clang::ASTContext &Ctx = (*Parsed)->getASTContext();
  std::vector<KernelInfo> Kernels = findKernels(Ctx);
  const KernelInfo *K = nullptr;
  if (!KernelName.empty()) {
    K = lookupKernel(Kernels, KernelName);
    if (!K)
      return fail("no kernel named '" + KernelName + "' in '" + In.Path + "'");
  } else if (Kernels.size() == 1) {
    K = &Kernels.front();
  } else {
    return fail("--instrument-capture needs --kernel=NAME when the file "
                "defines several kernels");
  }
  std::vector<std::vector<LaunchProbe>> Probes;
  if (!ProbeVariants.empty()) {
    ProbeBase Base = probeBase(Ctx, *K, In.Text);
    Probes.resize(Base.Launches.size());
    int Number = 1;
    for (const std::string &F : ProbeVariants) {
      ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(F);
      if (!B)
        return fail("cannot read '" + F + "': " + B.getError().message());
      SourceInput V = In; // Same path and flags: includes resolve alike.
      V.Text = (*B)->getBuffer().str();
      Expected<std::unique_ptr<ParsedSource>> VP = parseSource(TC, V);
      if (!VP)
        return fail(VP.takeError());
      std::vector<KernelInfo> VKs = findKernels((*VP)->getASTContext());
      const KernelInfo *VK = lookupKernel(VKs, K->name());
      if (!VK)
        return fail("'" + F + "' does not define kernel '" + K->name() + "'");
      Expected<std::vector<LaunchProbe>> Sites = launchProbesFor(
          Base, (*VP)->getASTContext(), *VK, V.Text, Number++);
      if (!Sites)
        return fail("'" + F + "' cannot be probed: " +
                    toString(Sites.takeError()));
      for (size_t S = 0; S < Sites->size(); ++S)
        Probes[S].push_back((*Sites)[S]);
    }
  }
  Expected<InstrumentedSource> I = instrumentForCapture(
      Ctx, *K, In.Text, Probes.empty() ? nullptr : &Probes);
  if (!I)
    return fail(I.takeError());
  for (const std::string &S : I->Skipped)
    WithColor::warning(errs(), ToolName) << "launch not instrumented: " << S
                                         << "\n";
  if (Error E = writeFileAtomically(Output, I->Text))
    return fail(std::move(E));
  return 0;
}

static int compileCubin(const Toolchain &TC, const SourceInput &In,
                        StringRef Output) {
  if (Output == "-")
    return fail("--compile-cubin needs -o FILE.cubin");
  VariantSource V;
  V.Id = "file";
  V.Text = In.Text;
  if (!KernelName.empty()) {
    // NVRTC's output must contain this kernel (templates need nvcc's
    // instantiation from host code).
    Expected<std::unique_ptr<ParsedSource>> Parsed = parseSource(TC, In);
    if (!Parsed)
      return fail(Parsed.takeError());
    clang::ASTContext &Ctx = (*Parsed)->getASTContext();
    std::vector<KernelInfo> Kernels = findKernels(Ctx);
    const KernelInfo *K = lookupKernel(Kernels, KernelName);
    if (!K)
      return fail("no kernel named '" + KernelName + "' in '" + In.Path + "'");
    V.Entry = kernelSymbol(Ctx, K->Decl);
  }
  CompileOptions CO;
  CO.SourcePath = In.Path;
  CO.Flags = In.Flags;
  CO.Arch = TC.GpuArch;
  SmallString<256> Cache;
  if (std::error_code EC = sys::fs::createUniqueDirectory("cuda-opt-cubin", Cache))
    return fail("cannot create a directory: " + EC.message());
  CO.CacheDir = std::string(Cache); // Fresh: always compile.
  std::vector<std::string> Errors;
  std::vector<std::string> Cubins = compileVariants(TC, {V}, CO, Errors);
  if (Cubins[0].empty())
    return fail(Errors[0]);
  std::string How = "compiled by nvcc";
  SmallString<256> Log(Cubins[0]);
  sys::path::replace_extension(Log, "log");
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Log)) {
    StringRef First = (*B)->getBuffer().split('\n').first;
    if (First.starts_with("compiled by NVRTC") || First.starts_with("NVRTC"))
      How = First.str();
  }
  if (std::error_code EC = sys::fs::copy_file(Cubins[0], Output))
    return fail("cannot write " + Output + ": " + EC.message());
  sys::fs::remove_directories(Cache);
  errs() << ToolName << ": " << How << "\n";
  return 0;
}

static int transform(const Toolchain &TC, const SourceInput &In,
                     ArrayRef<PassInvocation> Pipeline, StringRef Output) {
  PipelineOptions Opts;
  Opts.KernelName = KernelName;
  Opts.Format = !NoFormat;
  Expected<PipelineResult> R = runPipeline(TC, In, Pipeline, Opts);
  if (!R)
    return fail(R.takeError());
  std::string Out;
  switch (Emit) {
  case EmitKind::Source:
    Out = R->Text;
    break;
  case EmitKind::Diff:
    Out = unifiedDiff(In.Path, In.Text, In.Path, R->Text);
    break;
  case EmitKind::Report: {
    raw_string_ostream OS(Out);
    if (JSON) {
      json::Value V = R->toJSON();
      V.getAsObject()->insert({"file", In.Path});
      OS << formatv("{0:2}", V) << "\n";
    } else {
      OS << "file " << In.Path << "\n";
      for (const StepRecord &S : R->Steps) {
        OS << "  " << S.Pass << " on " << S.Kernel << ": ";
        if (S.Applied)
          OS << "applied (" << S.Edits << " edits)\n";
        else
          OS << "skipped: " << S.Reason << "\n";
      }
    }
    break;
  }
  }
  if (Error E = writeFileAtomically(Output, Out))
    return fail(std::move(E));
  return 0;
}

/// `cuda-opt tune`: measure candidate rewrites and keep the fastest verified
/// one; without a GPU (or inputs to run on) rewrite with the default pipeline
/// and say that nothing was measured.
static int tuneFile(const Toolchain &TC, const SourceInput &In,
                    StringRef Output, StringRef ExecutablePath) {
  if (!RunCommand.empty() && !RunArgs.empty())
    return fail("--run-args passes arguments to the program cuda-opt builds "
                "from FILE; with --run, put them in the command");
  if (!RunCommand.empty() && !SpecPath.empty())
    return fail("--run (program mode) and --spec (spec mode) exclude each "
                "other");
  TuneOptions Opts;
  Opts.KernelName = KernelName;
  Opts.SpecPath = SpecPath;
  Opts.Pipeline = Passes;
  Opts.Budget = Budget;
  Opts.Format = !NoFormat;
  Opts.WorkerPath = MeasureWorker.empty() ? findMeasureWorker(ExecutablePath)
                                          : std::string(MeasureWorker);
  Opts.ShowProgress = errs().is_displayed();
  SmallVector<StringRef> ProgramArgs;
  StringRef(RunArgs).split(ProgramArgs, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef A : ProgramArgs)
    Opts.ProgramArgs.push_back(A.str());
  Opts.LaunchIndex = LaunchIndex;
  Opts.Devices.assign(Gpus.begin(), Gpus.end());
  Opts.RelTol = RelTol;
  Opts.ProgramTimeoutSeconds = ProgramTimeout;
  Opts.RunCommand = RunCommand;
  if (!GemmLibrary.empty()) {
    Opts.GemmLibraryPath = GemmLibrary;
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
  Opts.TimeSeconds = TimeBudget;
  Opts.DryRun = DryRun;
  Opts.LearnedPolicy = PolicyName == "learned";
  SmallString<256> Work;
  if (WorkDir.empty()) {
    if (std::error_code EC = sys::fs::createUniqueDirectory("cuda-opt-tune", Work))
      return fail("cannot create a work directory: " + EC.message());
  } else {
    Work = WorkDir;
  }
  Opts.WorkDir = std::string(Work);
  Expected<TuneResult> R = tune(TC, In, Opts);
  if (!R)
    return fail(R.takeError());
  if (Error E = writeFileAtomically(Output, R->Text))
    return fail(std::move(E));
  std::string Json;
  raw_string_ostream JOS(Json);
  JOS << formatv("{0:2}", R->toJSON(In.Path)) << "\n";
  std::string Md = R->toMarkdown(In.Path);
  if (Output != "-") {
    if (Error E = writeFileAtomically((Output + ".report.md").str(), Md))
      return fail(std::move(E));
    if (Error E = writeFileAtomically((Output + ".report.json").str(), Json))
      return fail(std::move(E));
  }
  if (DryRun) {
    unsigned Candidates = 0;
    for (const CandidateRecord &C : R->Candidates)
      Candidates += C.Status == "candidate";
    WithColor::note(errs(), ToolName)
        << "dry run: " << Candidates << " candidates for " << R->Kernel
        << formatv(" ({0} rejected before measuring), rewritten in {1:F1} s",
                   R->Candidates.size() - Candidates, R->Seconds)
        << (Output != "-" ? "; report in " + Output.str() + ".report.md" : "")
        << "\n";
    return 0;
  }
  if (!R->Measured) {
    unsigned Applied = 0;
    for (const CandidateRecord &C : R->Candidates)
      Applied += C.Status == "applied";
    WithColor::note(errs(), ToolName)
        << "not measured (" << R->NotMeasuredReason << "); applied " << Applied
        << " of " << R->Candidates.size() << " pass/kernel steps of '"
        << R->ChosenPipeline << "'"
        << (Output != "-" ? "; report in " + Output.str() + ".report.md" : "")
        << "\n";
    return 0;
  }
  WithColor::note(errs(), ToolName)
      << R->Kernel << " on " << R->Device << ": "
      << formatv("{0:F4} ms -> {1:F4} ms ({2:F3}x) with '{3}'; {4} variants "
                 "in {5:F1} s",
                 R->BaselineMs, R->BestMs,
                 R->BestMs > 0 ? R->BaselineMs / R->BestMs : 0.0,
                 R->ChosenPipeline.empty() ? "(original)" : R->ChosenPipeline,
                 R->VariantsMeasured, R->Seconds)
      << (Output != "-" ? "; report in " + Output.str() + ".report.md" : "")
      << "\n";
  return 0;
}

/// The MLIR mode: never parses its input as CUDA.
static int lowerSparseMatmul() {
  if (InputFiles.size() != 1)
    return fail("--lower-sparse-matmul takes one .mlir file");
  if (!(MinSparsity >= 0.0 && MinSparsity <= 1.0))
    return fail("--min-sparsity must be between 0 and 1");
  if (!(MaxBytesPerElement > 0.0))
    return fail("--max-bytes-per-element must be positive");
#ifdef CUDA_OPT_WITH_MLIR
  MlirDriverOptions Opts;
  Opts.VerifyDiagnostics = VerifyDiagnostics;
  Opts.SplitInputFile = SplitInputFile;
  Opts.MinSparsity = MinSparsity;
  Opts.MaxBytesPerElement = MaxBytesPerElement;
  return runLowerSparseMatmul(InputFiles.front(), OutputPath, Opts);
#else
  return fail("this cuda-opt was built without MLIR (CUDA_OPT_WITH_MLIR=OFF); "
              "--lower-sparse-matmul is unavailable");
#endif
}

int main(int argc, const char **argv) {
  InitLLVM X(argc, argv);
  registerAllTransforms();
  if (argc > 1 && StringRef(argv[1]) == "sparse-encode")
    return runSparseEncodeCommand(argc - 1, argv + 1);
  // `cuda-opt tune FILE` is spelled as a subcommand; treat it as --tune.
  std::vector<const char *> Argv(argv, argv + argc);
  if (argc > 1 && StringRef(argv[1]) == "tune")
    Argv[1] = "--tune";
  argv = Argv.data();
  // Everything after "--" is parse flags for every input.
  std::vector<std::string> ExtraFlags;
  int ToolArgc = argc;
  for (int I = 1; I < argc; ++I)
    if (StringRef(argv[I]) == "--") {
      ToolArgc = I;
      for (int J = I + 1; J < argc; ++J)
        ExtraFlags.push_back(argv[J]);
      break;
    }
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "cuda-opt 0.1 (LLVM/Clang " << LLVM_VERSION_STRING << ")\n";
  });
  cl::ParseCommandLineOptions(
      ToolArgc, argv,
      "cuda-opt: analyse and rewrite CUDA kernels\n\n"
      "  cuda-opt --list-kernels FILE.cu [-- FLAGS]\n"
      "  cuda-opt --analyze FILE.cu [--kernel NAME] --json\n"
      "  cuda-opt --passes='restrict-const,unroll{factor=4}' FILE.cu -o OUT.cu\n"
      "  cuda-opt tune FILE.cu -o OUT.cu\n"
      "  cuda-opt --lower-sparse-matmul IN.mlir -o OUT.mlir\n");

  if (ListPasses)
    return listPasses();
  if (PrintCandidateSpace) {
    for (const std::string &P :
         candidatePipelines(std::numeric_limits<unsigned>::max()))
      outs() << P << "\n";
    return 0;
  }

  int Modes = ListKernels + Analyze + Tune + InstrumentCapture +
              CompileCubin + (!Passes.empty() && !Tune) + LowerSparseMatmul;
  if (Modes == 0)
    return fail("nothing to do: give one of tune, --list-kernels, --analyze, "
                "--passes=PIPELINE, --instrument-capture, --compile-cubin, "
                "--lower-sparse-matmul or --list-passes (see --help)");
  if (Modes > 1)
    return fail("tune, --list-kernels, --analyze, --passes, "
                "--instrument-capture, --compile-cubin and "
                "--lower-sparse-matmul are exclusive; give one of them");
  if (InputFiles.empty())
    return fail(LowerSparseMatmul ? "no input file; give one .mlir file"
                                  : "no input files; give one or more .cu "
                                    "files");
  if (LowerSparseMatmul)
    return lowerSparseMatmul();
  if (VerifyDiagnostics || SplitInputFile)
    return fail("--verify-diagnostics and --split-input-file go with "
                "--lower-sparse-matmul");
  for (const std::string &File : InputFiles)
    if (StringRef(File).ends_with(".mlir"))
      return fail("'" + File + "' is MLIR; the only mode for .mlir inputs "
                  "is --lower-sparse-matmul");

  if (PolicyName != "learned" && PolicyName != "round-robin")
    return fail("--policy must be 'learned' or 'round-robin', not '" +
                PolicyName + "'");
  // Validate the pipeline before any parsing: a typo should fail fast.
  std::vector<PassInvocation> Pipeline;
  if (!Passes.empty() && !Tune) {
    Expected<std::vector<PassInvocation>> P = parsePipeline(Passes);
    if (!P)
      return fail(P.takeError());
    Pipeline = std::move(*P);
  }

  std::unique_ptr<tooling::CompilationDatabase> DB;
  if (!BuildPath.empty()) {
    std::string Err;
    DB = tooling::CompilationDatabase::loadFromDirectory(BuildPath, Err);
    if (!DB)
      return fail("cannot load compile_commands.json from '" + BuildPath +
                  "': " + Err);
  }

  ToolchainOptions TO;
  TO.CudaPath = CudaPath;
  TO.ResourceDir = ResourceDir;
  TO.GpuArch = GpuArch;
  TO.ExecutablePath =
      sys::fs::getMainExecutable(argv[0], (void *)(intptr_t)&listPasses);
  Expected<Toolchain> TC = Toolchain::discover(TO);
  if (!TC)
    return fail(TC.takeError());

  const bool ManyInputs = InputFiles.size() > 1;
  if ((!Passes.empty() || Tune) && ManyInputs && OutputPath != "-" &&
      !sys::fs::is_directory(OutputPath))
    return fail("with several inputs, -o must name an existing directory");

  int RC = 0;
  json::Array JsonOut;
  for (const std::string &File : InputFiles) {
    Expected<SourceInput> In = loadInput(File, DB.get(), ExtraFlags);
    if (!In) {
      RC = fail(In.takeError());
      continue;
    }
    int FileRC = 0;
    if (ListKernels)
      FileRC = listKernels(*TC, *In, JsonOut);
    else if (Analyze)
      FileRC = analyze(*TC, *In, JsonOut);
    else if (InstrumentCapture)
      FileRC = instrumentCapture(*TC, *In, OutputPath);
    else if (CompileCubin)
      FileRC = compileCubin(*TC, *In, OutputPath);
    else {
      std::string Out = OutputPath;
      if (ManyInputs && OutputPath != "-") {
        SmallString<256> P(OutputPath);
        sys::path::append(P, sys::path::filename(File));
        Out = std::string(P);
      }
      FileRC = Tune ? tuneFile(*TC, *In, Out, TO.ExecutablePath)
                    : transform(*TC, *In, Pipeline, Out);
    }
    RC |= FileRC;
  }
  if (Analyze && !JSON) {
    for (const json::Value &V : JsonOut)
      printKernelModelText(*V.getAsObject(), outs());
  } else if ((ListKernels || Analyze) && JSON) {
    outs() << formatv("{0:2}", json::Value(std::move(JsonOut))) << "\n";
  }
  return RC;
}
