//===- Commands.h - The modes of cuda-opt -----------------------*- C++ -*-===//
//
// Part of cuda-opt. One function per mode, each in its own file; main()
// picks one (cli::selectMode) and calls it for every input. A mode reads its
// options from Options.h and returns an llvm::Error that main() reports.
// CommandUtils.cpp holds what the modes share: inputs, errors and notes.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TOOLS_COMMANDS_H
#define CUDA_OPT_TOOLS_COMMANDS_H

#include "cuda-opt/Frontend/CudaToolchain.h"
#include "cuda-opt/Frontend/SourceParser.h"
#include "cuda-opt/Pass/Pipeline.h"
#include "cuda-opt/Search/TuningDatabase.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

namespace clang {
class ASTContext;
namespace tooling {
class CompilationDatabase;
} // namespace tooling
} // namespace clang

namespace cuda_opt {
struct KernelInfo;

/// The name the tool's diagnostics start with.
constexpr llvm::StringLiteral ToolName = "cuda-opt";

/// An error with \p Message, for the tool to report.
llvm::Error makeError(const llvm::Twine &Message);

/// Print \p E as "cuda-opt: error: MESSAGE" and return the exit code 1.
/// (ExitOnError would print it without WithColor's colours, and a failed
/// input must not stop the next one.)
int reportError(llvm::Error E);

/// Print the notes of the applied pipeline steps, as the transforms' own
/// output did before notes became values.
void printNotes(llvm::ArrayRef<std::string> Notes);

// Inputs (CommandUtils.cpp).

/// The parse flags after "--", for every input; \p Argc becomes the count
/// of the arguments before it.
std::vector<std::string> takeParseFlags(int &Argc, const char *const *Argv);

/// compile_commands.json from -p DIR, or null without -p.
llvm::Expected<std::unique_ptr<clang::tooling::CompilationDatabase>>
loadCompilationDatabase();

/// Read \p File and attach the parse flags it is compiled with.
llvm::Expected<SourceInput>
loadInput(llvm::StringRef File, const clang::tooling::CompilationDatabase *DB,
          llvm::ArrayRef<std::string> ExtraFlags);

/// Parse \p In and call \p Fn on every kernel --kernel selects (all when it
/// is not given). A --kernel that names no kernel is an error.
llvm::Error forSelectedKernels(
    const Toolchain &TC, const SourceInput &In,
    llvm::function_ref<void(clang::ASTContext &, const KernelInfo &)> Fn);

// The modes, one file each.

/// --fp64-shadow: the file with the fp64 shadow of --kernel appended.
llvm::Error printFp64Shadow(const Toolchain &TC, const SourceInput &In,
                            llvm::StringRef Output);
/// --list-passes.
void listPasses();
/// --print-candidate-space.
void printCandidateSpace();
/// --list-kernels: text now, or with --json into \p JsonOut, which
/// printKernelList prints once every input is read.
llvm::Error listKernels(const Toolchain &TC, const SourceInput &In,
                        llvm::json::Array &JsonOut);
void printKernelList(llvm::json::Array Inventories);
/// --list-regions: the host regions of each file (HostRegions.h), as text
/// now or with --json into \p JsonOut, printed by printRegionList.
llvm::Error listRegions(const Toolchain &TC, const SourceInput &In,
                        llvm::json::Array &JsonOut);
void printRegionList(llvm::json::Array Regions);
/// --analyze: the kernel models into \p JsonOut; printAnalyses prints them.
llvm::Error analyze(const Toolchain &TC, const SourceInput &In,
                    llvm::json::Array &JsonOut);
void printAnalyses(llvm::json::Array Models);
/// --passes: apply \p Pipeline and write --emit's output to \p Output.
llvm::Error runPasses(const Toolchain &TC, const SourceInput &In,
                      llvm::ArrayRef<PassInvocation> Pipeline,
                      llvm::StringRef Output);
/// tune / --tune; with \p MeasureCommand (the tune command line to suggest),
/// cuda-opt without a mode: the rewrite tune makes without a GPU, predicted
/// and not measured, GPU or not.
llvm::Error tuneFile(const Toolchain &TC, const SourceInput &In,
                     llvm::StringRef Output, llvm::StringRef ExecutablePath,
                     llvm::StringRef MeasureCommand = "");
/// apply: the best recorded variant of each kernel the tuning database
/// knows (ApplyCommand.cpp).
llvm::Error applyRecorded(const Toolchain &TC, const SourceInput &In,
                          llvm::StringRef Output);
/// `cuda-opt db ACTION ...` (DbCommand.cpp); returns the exit code.
int runDbCommand(const ToolchainOptions &TO,
                 llvm::ArrayRef<std::string> ExtraFlags);
/// `cuda-opt tune-batch FILE... -o DIR` (TuneBatchCommand.cpp): the files
/// in shards of `cuda-opt tune`, run here or as a Slurm job array; returns
/// the exit code.
int runTuneBatch(const ToolchainOptions &TO,
                 llvm::ArrayRef<std::string> ExtraFlags);
/// The tuning database of --db, else the default one.
llvm::Expected<std::unique_ptr<TuningDatabase>>
openTuningDatabase(TuningDatabase::OpenMode Mode);
/// --instrument-capture.
llvm::Error instrumentCapture(const Toolchain &TC, const SourceInput &In,
                              llvm::StringRef Output);
/// --compile-cubin.
llvm::Error compileCubin(const Toolchain &TC, const SourceInput &In,
                         llvm::StringRef Output);
/// --lower-sparse-matmul: the MLIR mode; returns the exit code.
int lowerSparseMatmul();

} // namespace cuda_opt

#endif // CUDA_OPT_TOOLS_COMMANDS_H
