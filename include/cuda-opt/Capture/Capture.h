//===- Capture.h - Program mode: capture a real launch, replay it -*- C++ -*-===//
//
// Part of cuda-opt. Program mode measures a kernel on the inputs its own
// program gives it: cuda-opt instruments the kernel's launch sites (each
// `k<<<...>>>(...)` becomes a call into runtime/capture/cuda_opt_capture.h),
// builds and runs the instrumented program once, and reads back the launch it
// recorded: grid, block, shared memory, by-value argument bytes, and before
// and after snapshots of every allocation a pointer argument points into.
// The snapshots become the measurement job's buffers (file-initialised, with
// the pointer's offset), so variants are replayed on exactly those inputs.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_CAPTURE_CAPTURE_H
#define CUDA_OPT_CAPTURE_CAPTURE_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Frontend/SourceParser.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

/// The capture runtime header's text, embedded at build time.
llvm::StringRef captureRuntimeHeader();

struct InstrumentedSource {
  std::string Text;
  unsigned Sites = 0;         ///< Launches rewritten.
  std::vector<std::string> Skipped; ///< "file:line: why" per launch left as is.
};

/// One launch of a kernel that capture can route, as source text.
struct LaunchText {
  std::string Callee, Grid, Block, Shmem, Stream;
  std::vector<std::string> Args;
  unsigned Begin = 0, End = 0; ///< File offsets of the launch expression.
};

/// The launches of \p K in the main file that capture can instrument, in
/// site order (the numbering cuda_opt_capture::launch uses); the others
/// are described in \p Skipped ("file:line: why").
std::vector<LaunchText> instrumentableLaunches(clang::ASTContext &Ctx,
                                               const KernelInfo &K,
                                               std::vector<std::string> *Skipped);

/// A variant's launch configuration to evaluate at a site of the original
/// program (the launch probe: docs/tuning.md).
struct LaunchProbe {
  int Variant = 0;
  std::string Grid, Block, Shmem;
};

/// Rewrite every launch of \p K in the main file to go through
/// cuda_opt_capture::launch, and include the capture runtime first. With
/// \p Probes (indexed by site), each site first evaluates its probes'
/// launch configurations. Fails when no launch of \p K could be
/// instrumented.
llvm::Expected<InstrumentedSource>
instrumentForCapture(clang::ASTContext &Ctx, const KernelInfo &K,
                     llvm::StringRef Text,
                     const std::vector<std::vector<LaunchProbe>> *Probes = nullptr);

/// \p Text without \p K's definition: two versions of a file with equal
/// results differ only inside the kernel, so their programs launch it alike.
std::string textWithoutKernel(clang::ASTContext &Ctx, const KernelInfo &K,
                              llvm::StringRef Text);

/// What a variant is compared with to decide whether the launch probe can
/// learn its launch: the original's host code with the kernel and its
/// launches masked, its launches, and its parameters' sizes.
struct ProbeBase {
  std::string MaskedHostCode;
  std::vector<LaunchText> Launches;
  std::vector<std::pair<uint64_t, bool>> ParameterShape; ///< bits, pointer?
};
ProbeBase probeBase(clang::ASTContext &Ctx, const KernelInfo &K,
                    llvm::StringRef Text);

/// The probes (one per site of the original) that give variant number
/// \p Variant's launches, or why it cannot be probed: its host code differs
/// from the original's outside the kernel's launch statements, or a launch
/// passes different arguments, or the kernel's parameters changed size.
llvm::Expected<std::vector<LaunchProbe>>
launchProbesFor(const ProbeBase &Original, clang::ASTContext &Ctx,
                const KernelInfo &K, llvm::StringRef Text, int Variant);

/// One parameter of a recorded launch.
struct CapturedParam {
  enum Kind { Value, Pointer, Null } K = Value;
  std::vector<uint8_t> Bytes; ///< Value: the argument's bytes.
  int Alloc = -1;             ///< Pointer: index into Allocs.
  uint64_t Offset = 0;
  std::string Memory; ///< Pointer: device | managed | host | unknown.
};

struct CapturedAlloc {
  uint64_t Size = 0;
  std::string Before, After; ///< Snapshot files (full captures only).
  bool Changed = false;      ///< Before and after differ.
};

struct CapturedLaunch {
  std::string Dir;
  std::string Kernel;
  unsigned Site = 0;
  int64_t Launch = 0;
  std::array<int64_t, 3> Grid{1, 1, 1}, Block{1, 1, 1};
  int64_t Shmem = 0;
  bool DefaultStream = true;
  bool Full = true;
  std::vector<CapturedParam> Params;
  std::vector<CapturedAlloc> Allocs;
  /// Launch probes recorded at this launch: variant number -> its launch.
  struct Probed {
    int Variant = 0;
    std::array<int64_t, 3> Grid{1, 1, 1}, Block{1, 1, 1};
    int64_t Shmem = 0;
  };
  std::vector<Probed> Probes;

  /// Read $Dir/capture.json (and compare snapshots for Changed).
  static llvm::Expected<CapturedLaunch> load(llvm::StringRef Dir);
};

struct CaptureOptions {
  std::string WorkDir;            ///< Builds and snapshots go below it.
  std::string Tag = "original";   ///< Subdirectory name.
  std::vector<std::string> Flags; ///< -I/-D/-std of the file (for nvcc).
  std::string Arch = "sm_90";
  std::vector<std::string> ProgramArgs;
  int64_t LaunchIndex = 0;        ///< Which launch of the sites to record.
  bool ConfigOnly = false;        ///< Record the launch shape and stop.
  unsigned TimeoutSeconds = 600;
  /// --run: a shell command that builds and runs the program (several
  /// files, the user's build). It runs in a copy of RunRoot in which the
  /// file is instrumented; ProgramArgs, Flags and Arch are then unused.
  std::string RunCommand;
  std::string RunRoot;
  /// Launch probes to evaluate at each site (see instrumentForCapture).
  std::vector<std::vector<LaunchProbe>> Probes;
};

/// Instrument \p Input (already parsed as \p Parsed), build it with nvcc and
/// run it; returns the recorded launch.
llvm::Expected<CapturedLaunch> captureLaunch(const Toolchain &TC,
                                             const SourceInput &Input,
                                             ParsedSource &Parsed,
                                             llvm::StringRef Kernel,
                                             const CaptureOptions &Opts);

/// Build and run \p InstrumentedText (the input with its capture calls in
/// place) as captureLaunch does; \p What names the recorded call in errors
/// ("launch #0 of kernel 'k'").
llvm::Expected<CapturedLaunch>
captureInstrumented(const Toolchain &TC, const SourceInput &Input,
                    llvm::StringRef InstrumentedText, llvm::StringRef What,
                    const CaptureOptions &Opts);

/// The arguments of a measurement job (runtime/measure format) that replay
/// \p L for kernel \p K: each pointer becomes a buffer initialised from its
/// allocation's snapshot, offset as captured; pointers into one allocation
/// share one buffer; by-value arguments are passed as their raw bytes.
/// Buffers the launch changed are outputs. Fails with the reason when the
/// launch cannot be replayed (host memory, unknown pointers).
/// A captured by-value argument of integer type \p T (4 or 8 bytes) as a
/// number; nullopt for anything else.
std::optional<int64_t> capturedInteger(const CapturedParam &P,
                                       clang::QualType T);

/// A captured by-value (or null pointer) argument as a job scalar: its raw
/// bytes.
llvm::json::Object scalarReplayArg(llvm::StringRef Name,
                                   const CapturedParam &P);

/// The job dtype of a buffer of \p Pointee elements in allocation \p A at
/// byte \p Offset, with the element size in \p Elt; "u8" (bit for bit)
/// when the type has no dtype or does not divide the allocation.
std::string replayDType(clang::QualType Pointee, const CapturedAlloc &A,
                        uint64_t Offset, clang::ASTContext &Ctx,
                        uint64_t &Elt);

llvm::Expected<llvm::json::Array> replayArgs(const CapturedLaunch &L,
                                             clang::ASTContext &Ctx,
                                             const KernelInfo &K,
                                             const KernelModel &Model);

/// True if the file defines `main` (program mode is the default then).
bool definesMain(clang::ASTContext &Ctx);

} // namespace cuda_opt

#endif // CUDA_OPT_CAPTURE_CAPTURE_H
