//===- WorkerProtocol.h - The measurement worker's files --------*- C++ -*-===//
//
// Part of cuda-opt's runtime. cuda-opt (lib/Measure) writes a job file, runs
// `cuda-opt-measure JOB.json RESULT.json` (runtime/measure) and reads the
// result file back. This header is the one definition of both files' member
// names, their fixed values, the worker's defaults and its exit status.
// Header-only and LLVM-free: the worker builds without LLVM on the GPU
// machine. docs/worker-protocol.md describes the protocol.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_RUNTIME_COMMON_WORKERPROTOCOL_H
#define CUDA_OPT_RUNTIME_COMMON_WORKERPROTOCOL_H

namespace cuda_opt {
namespace worker {

/// The worker's exit status.
enum ExitStatus : int {
  ExitOk = 0,
  /// The job failed; the result's "error" says why.
  ExitError = 2,
  /// A variant faulted and the CUDA context is lost; the result names it
  /// ("crashed_variant", "crash_error"). The client restarts the worker
  /// without it.
  ExitVariantFault = 3,
  /// Wrong arguments, or a job file that cannot be read or is not JSON.
  ExitUsage = 64,
};

/// The job's top-level members.
namespace job {
inline constexpr char Device[] = "device";       // CUDA device ordinal
inline constexpr char Variants[] = "variants";   // [variant]; [0] the baseline
inline constexpr char Args[] = "args";           // [arg], the kernel's order
inline constexpr char Seeds[] = "seeds";         // [unsigned]
inline constexpr char Timing[] = "timing";       // timing::*
inline constexpr char RelTol[] = "rtol";         // < 0: per-dtype default
inline constexpr char TimeLimit[] = "time_limit_s";
inline constexpr char Race[] = "race";           // bool
inline constexpr char Reference[] = "reference"; // reference::*
inline constexpr char GpuLock[] = "gpu_lock";    // gpu_lock::*
/// "strict" (outputs bitwise equal to the baseline's), "reassoc" (float
/// outputs checked against the fp64 shadow when there is one), "fast";
/// absent: the tolerance check against the baseline.
inline constexpr char FpModel[] = "fp_model";
inline constexpr char Shadow[] = "shadow"; // shadow::*
/// With a shadow: how many times the baseline runs per seed on the same
/// inputs (1..16); its largest error against the shadow over those runs is
/// the original's error (float atomics sum in a different order each run).
inline constexpr char OrigRuns[] = "orig_runs";
} // namespace job

/// "shadow" of the job: the baseline kernel promoted to double (the
/// reference of --fp-model=reassoc; lib/Measure/Fp64Shadow.cpp). It runs
/// with the baseline's grid and block on double copies of the arguments
/// "promote" marks (float buffers and float scalars).
namespace shadow {
inline constexpr char Module[] = "module";
inline constexpr char Entry[] = "entry";
inline constexpr char Shmem[] = "shmem";
inline constexpr char Promote[] = "promote"; // [bool] per argument
} // namespace shadow

/// A variant: a kernel in a cubin, or a library call in its place.
namespace variant {
inline constexpr char Id[] = "id";
inline constexpr char Module[] = "module"; // cubin or PTX file
inline constexpr char Entry[] = "entry";   // kernel symbol
inline constexpr char Grid[] = "grid";     // [x, y, z]
inline constexpr char Block[] = "block";   // [x, y, z]
inline constexpr char Shmem[] = "shmem";   // dynamic shared memory bytes
inline constexpr char Library[] = "library"; // library::*
} // namespace variant

/// A kernel argument: a device buffer or a scalar.
namespace arg {
inline constexpr char Name[] = "name";
inline constexpr char Kind[] = "kind";
inline constexpr char KindBuffer[] = "buffer";
inline constexpr char KindScalar[] = "scalar"; // any kind but "buffer"
inline constexpr char DType[] = "dtype";       // f32, f16, bf16, i32, u8, ...
// Buffers.
inline constexpr char Count[] = "count"; // elements
inline constexpr char Output[] = "output";
inline constexpr char Input[] = "input";
inline constexpr char Init[] = "init";
inline constexpr char InitUniform[] = "uniform"; // in [lo, hi]
inline constexpr char InitNormal[] = "normal";   // mean -+ sigma = lo, hi
inline constexpr char InitZero[] = "zero";
inline constexpr char InitIota[] = "iota";
inline constexpr char InitFile[] = "file"; // captured contents
inline constexpr char Lo[] = "lo";
inline constexpr char Hi[] = "hi";
inline constexpr char File[] = "file";
inline constexpr char Perturb[] = "perturb";         // redraw after seed 1
inline constexpr char ExpectFile[] = "expect_file"; // contents after the launch
inline constexpr char Offset[] = "offset";          // bytes into the buffer
inline constexpr char SameAs[] = "same_as";         // an earlier buffer
/// A buffer the code writes but whose contents after the run nobody reads
/// (a dead intermediate of a host region): reset like an input before each
/// run and guarded, but neither compared nor checked unchanged. Not with
/// "output".
inline constexpr char Scratch[] = "scratch";
/// An output written in rows of contiguous elements (the analysis proved
/// it; lib/Analysis/RowOutputs.h): the row length, as a number of elements
/// or as the index of the scalar argument that holds it. Against the fp64
/// shadow the error bound then also holds row by row.
inline constexpr char RowLength[] = "row_length";
inline constexpr char RowLengthArg[] = "row_length_arg";
// Scalars.
inline constexpr char Value[] = "value";
inline constexpr char Raw[] = "raw"; // the bytes, hex
} // namespace arg

/// "timing" of the job.
namespace timing {
inline constexpr char Runs[] = "runs";
inline constexpr char Warmup[] = "warmup";
inline constexpr char FlushL2[] = "flush_l2";
} // namespace timing

/// "gpu_lock" of the job (GpuLockFiles.h).
namespace gpu_lock {
inline constexpr char Dir[] = "dir";
/// A file that exists while the worker waits for the lock.
inline constexpr char WaitFlag[] = "wait_flag";
} // namespace gpu_lock

/// A variant's "library": cudaoptGemm on buffer arguments a, b, c, or a
/// host region outlined by cuda-opt and built into a shared library, called
/// as `extern "C" int entry(void **args, void *stream)` with the kernel
/// parameters (args[i] points to argument i's device pointer or scalar
/// bytes); it returns a cudaError_t. Only a region can be the baseline.
namespace library {
inline constexpr char Kind[] = "kind";
inline constexpr char KindGemm[] = "cudaopt_gemm";
inline constexpr char KindRegion[] = "cudaopt_region";
inline constexpr char Path[] = "path"; // the shared library
// cudaopt_region.
inline constexpr char Entry[] = "entry"; // the entry point's symbol
inline constexpr char RegionEntryDefault[] = "cudaopt_region_entry";
// cudaopt_gemm.
inline constexpr char M[] = "m";
inline constexpr char N[] = "n";
inline constexpr char K[] = "k";
inline constexpr char DType[] = "dtype"; // f16, bf16, f32
inline constexpr char BLayout[] = "b_layout";
inline constexpr char BLayoutCol[] = "col"; // else row-major
inline constexpr char A[] = "a";
inline constexpr char B[] = "b";
inline constexpr char C[] = "c";
inline constexpr char Lda[] = "lda";
inline constexpr char Ldb[] = "ldb";
inline constexpr char Ldc[] = "ldc";
inline constexpr char Alpha[] = "alpha";
inline constexpr char Beta[] = "beta";
inline constexpr char Batch[] = "batch";
inline constexpr char StrideA[] = "stride_a";
inline constexpr char StrideB[] = "stride_b";
inline constexpr char StrideC[] = "stride_c";
/// fp32 only: true lets the library sum over k in its own order (cuBLAS
/// SGEMM; gemm-specialize{f32-cublas=1}); false or absent keeps the exact
/// sequential FMA chain.
inline constexpr char Reassociate[] = "reassociate";
/// fp32 with reassociate only: cudaoptGemmProblem::LibraryAlgo (0 or absent
/// cublasSgemm, k >= 1 the k-th cuBLASLt candidate;
/// gemm-specialize{lt-algo=k}).
inline constexpr char LibraryAlgo[] = "library_algo";
} // namespace library

/// "reference" of the job and of the result: cuBLAS timed beside the
/// variants. The result's adds "timing" (stats::*) or "error".
namespace reference {
inline constexpr char Kind[] = "kind";
inline constexpr char KindCublasGemm[] = "cublas_gemm";
inline constexpr char M[] = "m";
inline constexpr char N[] = "n";
inline constexpr char K[] = "k";
inline constexpr char Batch[] = "batch";
inline constexpr char DType[] = "dtype";
inline constexpr char Timing[] = "timing";
inline constexpr char Error[] = "error";
} // namespace reference

/// The result's top-level members. The worker rewrites the file as it goes,
/// so a worker that dies leaves what it reached.
namespace result {
inline constexpr char Error[] = "error";
inline constexpr char CrashedVariant[] = "crashed_variant";
inline constexpr char CrashError[] = "crash_error";
inline constexpr char Device[] = "device"; // the GPU's name
/// What runs now: a variant id, InProgressTiming, or null when done.
inline constexpr char InProgress[] = "in_progress";
inline constexpr char InProgressTiming[] = "timing";
/// {id: error} of variants that failed verification (final verdicts).
inline constexpr char VerifyFailures[] = "verify_failures";
/// [string]: the replayed baseline differs from the program's launch.
inline constexpr char ReplayWarnings[] = "replay_warnings";
inline constexpr char LockWait[] = "lock_wait_s";
inline constexpr char PhaseSeconds[] = "phase_seconds"; // {phase: seconds}
inline constexpr char L2FlushBytes[] = "l2_flush_bytes";
inline constexpr char Complete[] = "complete";
inline constexpr char Variants[] = "variants"; // [variant_result::*]
inline constexpr char Reference[] = "reference";
/// shadow_result::*.
inline constexpr char Shadow[] = "shadow";
} // namespace result

/// The result's "shadow".
namespace shadow_result {
inline constexpr char Used[] = "used";   // bool
inline constexpr char Error[] = "error"; // why it was not used
/// The baseline's largest |output - shadow| over buffers, seeds and runs.
inline constexpr char OriginalError[] = "original_error";
inline constexpr char OriginalRuns[] = "original_runs"; // runs per seed
/// [string]: per output with rows, how it was checked ("out: per row, 16384
/// rows of 4096"), or why per buffer only.
inline constexpr char RowChecks[] = "row_checks";
} // namespace shadow_result

/// The phases of "phase_seconds".
namespace phase {
inline constexpr char Setup[] = "setup";
inline constexpr char Verify[] = "verify";
inline constexpr char TimingSetup[] = "timing-setup";
inline constexpr char Timing[] = "timing";
} // namespace phase

/// One entry of the result's "variants", in the job's order.
namespace variant_result {
inline constexpr char Id[] = "id";
inline constexpr char Verified[] = "verified";
inline constexpr char Error[] = "error";     // when not verified
inline constexpr char Skipped[] = "skipped"; // the time limit ran out
inline constexpr char Timing[] = "timing";   // stats::*
inline constexpr char StoppedEarly[] = "stopped_early"; // raced out
inline constexpr char MaxRelError[] = "max_rel_error";
inline constexpr char Speedup[] = "speedup"; // baseline median / median
/// How the outputs were checked: "bitwise", "fp64" (against the shadow),
/// "tolerance" (against the baseline, relative).
inline constexpr char Check[] = "check";
/// With "fp64": the largest |output - shadow|, and the largest ratio of it
/// to the baseline's own error (per buffer and seed).
inline constexpr char Fp64Error[] = "fp64_error";
inline constexpr char Fp64ErrorRatio[] = "fp64_error_ratio";
} // namespace variant_result

/// A timing summary (milliseconds).
namespace stats {
inline constexpr char MedianMs[] = "median_ms";
inline constexpr char MinMs[] = "min_ms";
inline constexpr char MaxMs[] = "max_ms";
inline constexpr char P10Ms[] = "p10_ms";
inline constexpr char P90Ms[] = "p90_ms";
inline constexpr char Runs[] = "runs";
} // namespace stats

/// What the worker assumes for members a job leaves out.
struct Defaults {
  static constexpr unsigned Seeds[] = {1, 2, 3};
  static constexpr int Runs = 20;
  static constexpr int Warmup = 3;
  static constexpr bool FlushL2 = true;
  /// Racing: after this many timed rounds a variant whose fastest run is
  /// slower than RaceFactor x the baseline's median stops being timed.
  static constexpr int RaceRounds = 5;
  static constexpr double RaceFactor = 1.25;
  /// Baseline runs per seed against the fp64 shadow (job "orig_runs").
  static constexpr int OrigRuns = 3;
  static constexpr int MaxOrigRuns = 16;
};

} // namespace worker
} // namespace cuda_opt

#endif // CUDA_OPT_RUNTIME_COMMON_WORKERPROTOCOL_H
