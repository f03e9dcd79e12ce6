//===- Job.h - A measurement job: variants, arguments, plan -----*- C++ -*-===//
//
// Part of cuda-opt's runtime: the measurement worker's view of its job file
// (WorkerProtocol.h) and the steps every phase takes to run a variant on the
// job's buffers (reset, parameters, launch).
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_MEASURE_JOB_H
#define CUDA_OPT_RUNTIME_MEASURE_JOB_H

#include "CublasReference.h"
#include "DType.h"
#include "Json.h"
#include "LibraryCall.h"
#include "WorkerProtocol.h"

#include <cuda.h>

#include <iterator>
#include <string>
#include <vector>

namespace co_runtime {

class WorkerContext;

/// Every buffer sits between two guard bands of GuardBytes filled with
/// GuardByte; pure outputs are filled with PoisonByte before each run.
const size_t GuardBytes = 4096;
const unsigned char GuardByte = 0xA5;
const unsigned char PoisonByte = 0xFF; // NaN for every float type.

struct Arg {
  std::string Name;
  bool IsBuffer = false;
  DType Type = DType::Invalid;
  // Buffers.
  size_t Count = 0;
  bool Output = false, Input = true;
  /// Written by the code but dead after the run (an intermediate of a host
  /// region): reset like an input and guarded, but neither compared with
  /// the baseline nor checked unchanged. Never an output.
  bool Scratch = false;
  std::string Init = cuda_opt::worker::arg::InitUniform; // arg::Init*
  double Lo = -1, Hi = 1;
  std::string File;
  /// Program mode: for seeds after the first, floating-point contents of a
  /// file-initialised buffer are redrawn within the captured value range.
  bool Perturb = false;
  /// The file's contents, read once per job (pinned: uploaded every seed).
  unsigned char *Captured = nullptr;
  /// Program mode: the buffer's contents after the captured launch. The
  /// baseline's output on the captured inputs (the first seed) must match
  /// it, or the replay does not reproduce the program's launch.
  std::string ExpectFile;
  /// Bytes from the buffer's start to where the kernel's pointer points.
  size_t Offset = 0;
  /// Program mode: this pointer points into the buffer of argument SameAs.
  int SameAs = -1;
  CUdeviceptr Alloc = 0; // Start of the guarded allocation.
  unsigned char *Host = nullptr; // Generated contents for this seed (pinned).
  /// This seed's initial contents, on the device: every run starts from a
  /// device-to-device copy of it, and inputs are checked against it.
  CUdeviceptr Pristine = 0;
  /// The baseline's output for this seed, on the device, and the absolute
  /// floor of the relative comparison derived from its scale.
  CUdeviceptr Expected = 0;
  double Floor = 0;
  /// --fp-model=reassoc: the fp64 shadow's copy of a promoted buffer (double
  /// elements), and for a float output whether the shadow computed it this
  /// seed, the baseline's largest error against it and its largest |value|.
  CUdeviceptr Shadow = 0;
  bool HasShadowRef = false;
  double BaselineShadowError = 0, ShadowScale = 0;
  /// An output written in rows of contiguous elements (job "row_length",
  /// or the scalar argument "row_length_arg" holds it; 0 / -1: none).
  size_t RowLength = 0;
  int RowLengthArg = -1;
  /// The rows of the per-row check (0: per buffer only) and, when rows were
  /// given, how the output is checked or why not per row (the report).
  size_t Rows = 0;
  std::string RowNote;
  /// Per row, on the device (doubles): the baseline's largest error against
  /// the shadow over its runs, the shadow's largest |value|, and a
  /// variant's error (scratch).
  CUdeviceptr RowBaselineError = 0, RowScale = 0, RowError = 0;
  /// The baseline's output on the captured inputs, on the host, for the
  /// replay-fidelity check (program mode, first seed only).
  std::vector<unsigned char> ExpectedHost;
  // Scalars: the bytes passed to the kernel.
  std::vector<unsigned char> Scalar = std::vector<unsigned char>(8, 0);
  size_t bytes() const { return Count * dtypeSize(Type); }
  CUdeviceptr data() const { return Alloc + GuardBytes; }
};

struct Variant {
  std::string Id, Module, Entry;
  unsigned Grid[3] = {1, 1, 1}, Block[3] = {1, 1, 1};
  unsigned Shmem = 0;
  CUmodule Mod = nullptr;
  CUfunction Fn = nullptr;
  /// A library call in place of the kernel launch (LibraryCall.h); only a
  /// cudaopt_region call can be the baseline.
  bool IsLibrary = false;
  LibraryCall Lib;
  bool Ok = true;
  std::string Error;
  std::vector<double> Times;
  double MaxRelError = 0;
  bool Skipped = false; // The job's time limit ran out before its turn.
  /// How the outputs were checked (variant_result::Check) and, against the
  /// fp64 shadow, the largest error and its largest ratio to the baseline's.
  std::string Check;
  double Fp64Error = 0, Fp64ErrorRatio = 0;
  /// Racing: timing stopped after a few rounds because the variant was
  /// clearly slower than the baseline (its Times are those rounds only).
  bool StoppedEarly = false;
};

/// The baseline kernel promoted to double (WorkerProtocol.h, shadow::*).
struct ShadowKernel {
  bool Present = false;
  std::string Module, Entry;
  unsigned Shmem = 0;
  std::vector<bool> Promote;
  CUmodule Mod = nullptr;
  CUfunction Fn = nullptr;
  /// Why the shadow cannot be used ("" while it can).
  std::string Unusable;
  double BaselineError = 0; // Largest over buffers and seeds.
};

struct Job {
  using Defaults = cuda_opt::worker::Defaults;
  int Device = 0;
  std::vector<Variant> Variants; // [0] is the baseline.
  std::vector<Arg> Args;
  std::vector<unsigned> Seeds{std::begin(Defaults::Seeds),
                              std::end(Defaults::Seeds)};
  int Runs = Defaults::Runs, Warmup = Defaults::Warmup;
  bool FlushL2 = Defaults::FlushL2;
  double RelTol = -1; // <0: per-dtype default.
  /// "strict", "reassoc", "fast", or "" (tolerance check).
  std::string FpModel;
  ShadowKernel Shadow;
  /// Baseline runs per seed when outputs are checked against the shadow;
  /// the largest error over them is the original's.
  int OrigRuns = Defaults::OrigRuns;
  /// Seconds after the worker starts when verification stops taking new
  /// variants (<0: none); the ones verified by then are still timed.
  double TimeLimit = -1;
  /// Racing ("race": true): after RaceRounds timed rounds, a variant whose
  /// fastest run is slower than RaceFactor x the baseline's median so far
  /// stops being timed; it cannot be chosen, and the rounds it would take
  /// (the slow variants are the expensive ones) go unspent.
  bool Race = false;
  int RaceRounds = Defaults::RaceRounds;
  double RaceFactor = Defaults::RaceFactor;
  /// GEMM-like kernels: cuBLAS on the same problem, timed alongside.
  bool HasGemmRef = false;
  GemmReference GemmRef;
  /// "gpu_lock": {"dir", "wait_flag"}: the GPU lock (GpuLockFiles.h) is held
  /// shared from the start and exclusively while timing; WaitFlag exists
  /// while the worker waits for it, so the client's deadline pauses.
  std::string LockDir, LockWaitFlag;

  /// The tolerance outputs of type T are compared with.
  double relTol(DType T) const {
    return RelTol >= 0 ? RelTol : defaultRelTol(T);
  }
};

/// Reads a job file's contents into Jb; false with a message in Error.
bool parseJob(const Json &J, Job &Jb, std::string &Error);

/// Loads every variant's module (or library); one that does not load is
/// marked failed with the reason.
void loadVariants(Job &Jb);
/// Allocates every buffer with its guard bands.
void allocateBuffers(WorkerContext &Ctx, Job &Jb);
/// Resets every buffer before a run: inputs get this seed's initial contents
/// (a copy on the GPU), pure outputs the poison, guard bands the guard
/// pattern.
void resetBuffers(WorkerContext &Ctx, Job &Jb);
/// The kernel parameters for the job's buffers; Ptrs holds each argument's
/// device address (0 for scalars) and must outlive the parameters.
std::vector<void *> kernelParams(Job &Jb, std::vector<CUdeviceptr> &Ptrs);
/// Launches V (or calls its library) on Stream; a region gets Params as its
/// args. A library that refuses the problem (or a region that returns an
/// error) marks V failed with its reason.
CUresult launch(Variant &V, std::vector<void *> &Params,
                const std::vector<CUdeviceptr> &Ptrs, CUstream Stream);

} // namespace co_runtime

#endif // CUDA_OPT_RUNTIME_MEASURE_JOB_H
