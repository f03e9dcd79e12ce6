//===- Worker.cpp - Verify and time kernel variants on one GPU ------------===//
//
// Part of cuda-opt's runtime: the measurement worker `cuda-opt-measure`.
//
//   cuda-opt-measure JOB.json RESULT.json
//
// JOB names compiled variants (cubin/PTX file, entry symbol, launch shape),
// the kernel's arguments (device buffers with dtype, element count, how to
// fill them, whether they are outputs; scalars), the seeds and the timing
// plan. For each seed every variant runs on identical inputs with outputs
// poisoned and guard bands around every buffer; its outputs must match the
// baseline's. Verified variants are then timed interleaved with the baseline
// (CUDA events around each launch, L2 flushed before each, median of N).
//
// A variant that faults poisons the CUDA context, so the worker records it
// in RESULT and exits with status 3; the caller restarts the worker without
// it. The caller also enforces a deadline (a variant that never finishes).
//
// Only the CUDA driver API is used: the worker needs no nvcc to build.
//
//===----------------------------------------------------------------------===//
#include "Compare.h"
#include "CublasReference.h"
#include "DType.h"
#include "DeviceCheck.h"
#include "Json.h"
#include "LibraryCall.h"
#include "Stats.h"
#include "cuda-opt/Support/GpuLockFiles.h"

#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace co_runtime;

namespace {

const size_t GuardBytes = 4096;
/// Before each timed call the GPU spins this long (DeviceChecks::spin), so
/// the call's host-side cost (launch, cuBLAS's or cudaoptGemm's per-call
/// work) overlaps the spin instead of counting as GPU time. Without it the
/// worker timed cublasGemmEx at 0.137 ms on a 4096x4096x1024 fp16 GEMM that
/// bench/gemm's graph-replay timing puts at 0.054 ms.
const unsigned SpinMicroseconds = 200;
const unsigned char GuardByte = 0xA5;
const unsigned char PoisonByte = 0xFF; // NaN for every float type.

struct Arg {
  std::string Name;
  bool IsBuffer = false;
  DType Type = DType::Invalid;
  // Buffers.
  size_t Count = 0;
  bool Output = false, Input = true;
  std::string Init = "uniform"; // uniform | normal | zero | file | iota
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
  /// A library call in place of the kernel launch (LibraryCall.h).
  bool IsLibrary = false;
  LibraryCall Lib;
  bool Ok = true;
  std::string Error;
  std::vector<double> Times;
  double MaxRelError = 0;
  bool Skipped = false; // The job's time limit ran out before its turn.
  /// Racing: timing stopped after a few rounds because the variant was
  /// clearly slower than the baseline (its Times are those rounds only).
  bool StoppedEarly = false;
};

struct Job {
  int Device = 0;
  std::vector<Variant> Variants; // [0] is the baseline.
  std::vector<Arg> Args;
  std::vector<unsigned> Seeds = {1, 2, 3};
  int Runs = 20, Warmup = 3;
  bool FlushL2 = true;
  double RelTol = -1; // <0: per-dtype default.
  /// Seconds after the worker starts when verification stops taking new
  /// variants (<0: none); the ones verified by then are still timed.
  double TimeLimit = -1;
  /// Racing ("race": true): after RaceRounds timed rounds, a variant whose
  /// fastest run is slower than RaceFactor x the baseline's median so far
  /// stops being timed; it cannot be chosen, and the rounds it would take
  /// (the slow variants are the expensive ones) go unspent.
  bool Race = false;
  int RaceRounds = 5;
  double RaceFactor = 1.25;
  /// GEMM-like kernels: cuBLAS on the same problem, timed alongside.
  bool HasGemmRef = false;
  GemmReference GemmRef;
  /// "gpu_lock": {"dir", "wait_flag"}: the GPU lock (GpuLockFiles.h) is held
  /// shared from the start and exclusively while timing; WaitFlag exists
  /// while the worker waits for it, so the client's deadline pauses.
  std::string LockDir, LockWaitFlag;
};

std::string ResultPath;
Json Result = Json::object();

void writeResult() {
  std::ofstream OS(ResultPath);
  OS << Result.dump(2) << "\n";
}

[[noreturn]] void fatal(const std::string &Msg, int Code = 2) {
  Result.set("error", Msg);
  writeResult();
  std::fprintf(stderr, "cuda-opt-measure: error: %s\n", Msg.c_str());
  std::exit(Code);
}

std::string cuErr(CUresult R) {
  const char *Name = nullptr, *Str = nullptr;
  cuGetErrorName(R, &Name);
  cuGetErrorString(R, &Str);
  return std::string(Name ? Name : "?") + " (" + (Str ? Str : "") + ")";
}

void check(CUresult R, const std::string &What) {
  if (R != CUDA_SUCCESS)
    fatal(What + ": " + cuErr(R));
}

/// A failure inside a variant: record it against the variant, then stop the
/// worker (the context is unusable after a fault).
[[noreturn]] void variantFault(Variant &V, const std::string &What,
                               CUresult R) {
  Result.set("crashed_variant", V.Id);
  Result.set("crash_error", What + ": " + cuErr(R));
  writeResult();
  std::fprintf(stderr, "cuda-opt-measure: variant %s faulted: %s\n",
               V.Id.c_str(), cuErr(R).c_str());
  std::exit(3);
}

bool parseHex(const std::string &Hex, std::vector<unsigned char> &Out) {
  if (Hex.size() % 2)
    return false;
  Out.clear();
  auto Digit = [](char C) {
    if (C >= '0' && C <= '9')
      return C - '0';
    if (C >= 'a' && C <= 'f')
      return C - 'a' + 10;
    if (C >= 'A' && C <= 'F')
      return C - 'A' + 10;
    return -1;
  };
  for (size_t I = 0; I < Hex.size(); I += 2) {
    int Hi = Digit(Hex[I]), Lo = Digit(Hex[I + 1]);
    if (Hi < 0 || Lo < 0)
      return false;
    Out.push_back(static_cast<unsigned char>(Hi * 16 + Lo));
  }
  return true;
}

Job parseJob(const Json &J) {
  Job Jb;
  Jb.Device = static_cast<int>(J["device"].integer(0));
  for (const Json &V : J["variants"].items()) {
    Variant Var;
    Var.Id = V["id"].string();
    Var.Module = V["module"].string();
    Var.Entry = V["entry"].string();
    for (int D = 0; D < 3; ++D) {
      if (D < (int)V["grid"].items().size())
        Var.Grid[D] = static_cast<unsigned>(V["grid"].items()[D].integer(1));
      if (D < (int)V["block"].items().size())
        Var.Block[D] = static_cast<unsigned>(V["block"].items()[D].integer(1));
    }
    Var.Shmem = static_cast<unsigned>(V["shmem"].integer(0));
    if (!V["library"].isNull()) {
      std::string Why;
      Var.IsLibrary = true;
      if (!Var.Lib.parse(V["library"], J["args"].items().size(), Why))
        fatal("variant '" + Var.Id + "': " + Why);
      if (Jb.Variants.empty())
        fatal("the baseline must be a kernel, not a library call");
      Jb.Variants.push_back(Var);
      continue;
    }
    if (Var.Id.empty() || Var.Module.empty() || Var.Entry.empty())
      fatal("each variant needs id, module and entry");
    Jb.Variants.push_back(Var);
  }
  if (Jb.Variants.empty())
    fatal("the job has no variants");
  for (const Json &A : J["args"].items()) {
    Arg Ar;
    Ar.Name = A["name"].string();
    Ar.IsBuffer = A["kind"].string() == "buffer";
    if (Ar.IsBuffer && !A["same_as"].isNull()) {
      Ar.SameAs = static_cast<int>(A["same_as"].integer(-1));
      Ar.Offset = static_cast<size_t>(A["offset"].integer(0));
      if (Ar.SameAs < 0 || Ar.SameAs >= static_cast<int>(Jb.Args.size()) ||
          !Jb.Args[Ar.SameAs].IsBuffer || Jb.Args[Ar.SameAs].SameAs >= 0)
        fatal("buffer '" + Ar.Name + "': same_as must name an earlier buffer");
      Jb.Args.push_back(Ar);
      continue;
    }
    if (!Ar.IsBuffer && !A["raw"].isNull()) {
      if (!parseHex(A["raw"].string(), Ar.Scalar) || Ar.Scalar.empty())
        fatal("scalar '" + Ar.Name + "': raw bytes must be hex digits");
      Ar.Type = DType::U8;
      Jb.Args.push_back(Ar);
      continue;
    }
    Ar.Type = parseDType(A["dtype"].string());
    if (Ar.Type == DType::Invalid)
      fatal("argument '" + Ar.Name + "' has unknown dtype '" +
            A["dtype"].string() + "'");
    if (Ar.IsBuffer) {
      Ar.Count = static_cast<size_t>(A["count"].integer(0));
      Ar.Output = A["output"].boolean(false);
      Ar.Input = A["input"].boolean(true);
      if (!A["init"].isNull())
        Ar.Init = A["init"].string();
      Ar.Lo = A["lo"].number(-1);
      Ar.Hi = A["hi"].number(1);
      Ar.File = A["file"].string();
      Ar.Perturb = A["perturb"].boolean(false);
      Ar.ExpectFile = A["expect_file"].string();
      Ar.Offset = static_cast<size_t>(A["offset"].integer(0));
      if (Ar.Count == 0)
        fatal("buffer '" + Ar.Name + "' has no element count");
    } else {
      storeFromDouble(Ar.Scalar.data(), 0, Ar.Type, A["value"].number(0));
      if (Ar.Type == DType::I64 || Ar.Type == DType::U64) {
        // Exact for 64-bit integers beyond 2^53.
        long long V = A["value"].integer(0);
        std::memcpy(Ar.Scalar.data(), &V, 8);
      }
    }
    Jb.Args.push_back(Ar);
  }
  if (!J["seeds"].isNull()) {
    Jb.Seeds.clear();
    for (const Json &S : J["seeds"].items())
      Jb.Seeds.push_back(static_cast<unsigned>(S.integer(1)));
  }
  Jb.Runs = static_cast<int>(J["timing"]["runs"].integer(20));
  Jb.Warmup = static_cast<int>(J["timing"]["warmup"].integer(3));
  Jb.FlushL2 = J["timing"]["flush_l2"].boolean(true);
  Jb.RelTol = J["rtol"].number(-1);
  Jb.TimeLimit = J["time_limit_s"].number(-1);
  Jb.Race = J["race"].boolean(false);
  Jb.LockDir = J["gpu_lock"]["dir"].string();
  Jb.LockWaitFlag = J["gpu_lock"]["wait_flag"].string();
  const Json &Ref = J["reference"];
  if (!Ref.isNull() && Ref["kind"].string() == "cublas_gemm") {
    Jb.HasGemmRef = true;
    Jb.GemmRef.M = Ref["m"].integer(0);
    Jb.GemmRef.N = Ref["n"].integer(0);
    Jb.GemmRef.K = Ref["k"].integer(0);
    Jb.GemmRef.Batch = Ref["batch"].integer(1);
    Jb.GemmRef.Type = parseDType(Ref["dtype"].string());
    if (Jb.GemmRef.M <= 0 || Jb.GemmRef.N <= 0 || Jb.GemmRef.K <= 0 ||
        Jb.GemmRef.Batch <= 0)
      fatal("reference: cublas_gemm needs positive m, n, k, batch");
  }
  return Jb;
}

uint32_t xorshift(uint32_t &S) {
  S ^= S << 13;
  S ^= S >> 17;
  S ^= S << 5;
  return S;
}

/// Pinned host memory: transfers of the large buffers tuning uses run at
/// full PCIe speed instead of through a pageable bounce buffer.
unsigned char *pinned(size_t Bytes) {
  void *P = nullptr;
  check(cuMemAllocHost(&P, Bytes ? Bytes : 1), "cuMemAllocHost");
  return static_cast<unsigned char *>(P);
}

DeviceChecks Checks;

void checkDevice(CUresult R, const std::string &What) {
  check(R, "on-GPU check (" + What + ")");
}

/// Generate a buffer's contents for one seed on the host (spec mode).
void generateHost(Arg &A, unsigned Seed, size_t ArgIndex) {
  if (!A.Host)
    A.Host = pinned(A.bytes());
  std::memset(A.Host, 0, A.bytes());
  if (A.Init == "zero")
    return;
  uint32_t S = Seed * 2654435761u + static_cast<uint32_t>(ArgIndex) * 40503u + 1u;
  if (S == 0)
    S = 1;
  if (A.Type == DType::F32 && A.Init == "uniform") {
    // The common case, without per-element type dispatch.
    float *F = reinterpret_cast<float *>(A.Host);
    const double Span = (A.Hi - A.Lo) / 4294967296.0;
    for (size_t I = 0; I < A.Count; ++I)
      F[I] = static_cast<float>(A.Lo + Span * xorshift(S));
    return;
  }
  for (size_t I = 0; I < A.Count; ++I) {
    double V;
    if (A.Init == "iota") {
      V = static_cast<double>(I);
    } else if (A.Init == "normal") {
      double U1 = (xorshift(S) + 1.0) / 4294967297.0;
      double U2 = (xorshift(S) + 1.0) / 4294967297.0;
      V = std::sqrt(-2 * std::log(U1)) * std::cos(6.283185307179586 * U2);
      V = A.Lo + (A.Hi - A.Lo) * 0.5 * (V + 1); // lo/hi = mean -+ sigma.
    } else if (isFloating(A.Type)) {
      V = A.Lo + (A.Hi - A.Lo) * (xorshift(S) / 4294967296.0);
    } else {
      long long Lo = static_cast<long long>(A.Lo), Hi = static_cast<long long>(A.Hi);
      V = static_cast<double>(Lo + static_cast<long long>(xorshift(S) % (Hi - Lo + 1)));
    }
    storeFromDouble(A.Host, I, A.Type, V);
  }
}

/// Put one seed's initial contents of a buffer into its pristine device
/// copy. Captured buffers are read from their file once per job; for seeds
/// after the first their floating-point values are redrawn on the GPU within
/// the captured range (integers, often indices, stay as captured).
void prepareSeed(Arg &A, unsigned Seed, size_t ArgIndex, bool FirstSeed) {
  if (A.Output && !A.Input)
    return; // Poisoned before every run.
  if (!A.Pristine)
    check(cuMemAlloc(&A.Pristine, A.bytes()), "cuMemAlloc (pristine copy)");
  if (A.Init != "file") {
    generateHost(A, Seed, ArgIndex);
    check(cuMemcpyHtoD(A.Pristine, A.Host, A.bytes()), "upload");
    return;
  }
  if (!A.Captured) {
    std::ifstream IS(A.File, std::ios::binary);
    if (!IS)
      fatal("cannot read captured contents of '" + A.Name + "' from " + A.File);
    A.Captured = pinned(A.bytes());
    IS.read(reinterpret_cast<char *>(A.Captured),
            static_cast<std::streamsize>(A.bytes()));
    if (static_cast<size_t>(IS.gcount()) != A.bytes())
      fatal("captured file " + A.File + " is shorter than buffer '" + A.Name +
            "'");
  }
  check(cuMemcpyHtoD(A.Pristine, A.Captured, A.bytes()), "upload");
  if (A.Perturb && !FirstSeed)
    checkDevice(Checks.redrawWithinRange(
                    A.Pristine, A.Count, A.Type,
                    Seed * 2654435761u + static_cast<uint32_t>(ArgIndex) + 1u),
                "redraw inputs");
}

/// Reset every buffer before a run: inputs get this seed's initial contents
/// (a copy on the GPU), pure outputs the poison, guard bands the guard
/// pattern.
void resetBuffers(Job &Jb) {
  for (Arg &A : Jb.Args) {
    if (!A.IsBuffer || A.SameAs >= 0)
      continue;
    check(cuMemsetD8(A.Alloc, GuardByte, GuardBytes), "guard");
    check(cuMemsetD8(A.data() + A.bytes(), GuardByte, GuardBytes), "guard");
    if (A.Output && !A.Input)
      check(cuMemsetD8(A.data(), PoisonByte, A.bytes()), "poison");
    else
      check(cuMemcpyDtoD(A.data(), A.Pristine, A.bytes()), "reset");
  }
}

std::vector<void *> kernelParams(Job &Jb, std::vector<CUdeviceptr> &Ptrs) {
  Ptrs.assign(Jb.Args.size(), 0);
  std::vector<void *> Params;
  for (size_t I = 0; I < Jb.Args.size(); ++I) {
    Arg &A = Jb.Args[I];
    if (A.IsBuffer) {
      Ptrs[I] = (A.SameAs >= 0 ? Jb.Args[A.SameAs].data() : A.data()) + A.Offset;
      Params.push_back(&Ptrs[I]);
    } else {
      Params.push_back(A.Scalar.data());
    }
  }
  return Params;
}

CUresult launch(Variant &V, std::vector<void *> &Params,
                const std::vector<CUdeviceptr> &Ptrs, CUstream Stream) {
  if (V.IsLibrary) {
    std::string Why;
    CUresult R = V.Lib.run(Ptrs, Stream, Why);
    if (R != CUDA_SUCCESS && V.Ok) {
      V.Ok = false;
      V.Error = Why;
    }
    return R;
  }
  return cuLaunchKernel(V.Fn, V.Grid[0], V.Grid[1], V.Grid[2], V.Block[0],
                        V.Block[1], V.Block[2], V.Shmem, Stream, Params.data(),
                        nullptr);
}

/// Run one variant on the current seed's inputs and check it on the GPU:
/// guard bands intact, inputs the baseline does not write unchanged, and
/// (for a variant) every output equal to the baseline's within tolerance.
/// The baseline's outputs are kept in each argument's Expected buffer.
void runAndCheck(Job &Jb, Variant &V, bool IsBaseline, unsigned Seed,
                 bool FirstSeed) {
  resetBuffers(Jb);
  std::vector<CUdeviceptr> Ptrs;
  std::vector<void *> Params = kernelParams(Jb, Ptrs);
  CUresult R = launch(V, Params, Ptrs, nullptr);
  if (R != CUDA_SUCCESS && V.IsLibrary)
    return; // The library refused the problem (V.Error says why).
  if (R != CUDA_SUCCESS)
    variantFault(V, "launch", R);
  R = cuCtxSynchronize();
  if (R != CUDA_SUCCESS)
    variantFault(V, "run", R);
  auto Fail = [&](const std::string &Why) {
    if (V.Ok) {
      V.Ok = false;
      V.Error = Why;
    }
  };
  for (Arg &A : Jb.Args) {
    if (!A.IsBuffer || A.SameAs >= 0 || !V.Ok)
      continue;
    for (CUdeviceptr G : {A.Alloc, A.data() + A.bytes()}) {
      uint64_t Bad = 0;
      checkDevice(Checks.bytesNotEqual(G, GuardBytes, GuardByte, Bad), "guard");
      if (Bad)
        Fail("wrote outside buffer '" + A.Name + "' (guard band changed)");
    }
    if (!A.Output) {
      // An input the baseline does not write must stay unchanged.
      uint64_t Bad = 0;
      checkDevice(Checks.bytesDiffer(A.data(), A.Pristine, A.bytes(), Bad),
                  "input");
      if (Bad)
        Fail("modified input buffer '" + A.Name + "'");
      continue;
    }
    double Tol = Jb.RelTol >= 0 ? Jb.RelTol : defaultRelTol(A.Type);
    if (IsBaseline) {
      if (!A.Expected)
        check(cuMemAlloc(&A.Expected, A.bytes()), "cuMemAlloc (expected)");
      check(cuMemcpyDtoD(A.Expected, A.data(), A.bytes()), "keep output");
      double Scale = 0;
      checkDevice(Checks.absMax(A.Expected, A.Count, A.Type, Scale), "scale");
      // Values far below the output's magnitude are compared absolutely: a
      // reordered sum that lands near zero has a large relative but tiny
      // absolute error (Compare.h).
      A.Floor = isFloating(A.Type) ? 1e-3 * (Scale > 0 ? Scale : 1.0) : 0.0;
      if (FirstSeed && !A.ExpectFile.empty()) {
        A.ExpectedHost.resize(A.bytes());
        check(cuMemcpyDtoH(A.ExpectedHost.data(), A.Expected, A.bytes()),
              "readback");
      }
      continue;
    }
    CompareResult C;
    checkDevice(Checks.compare(A.Expected, A.data(), A.Count, A.Type, Tol,
                               A.Floor, C),
                "compare");
    V.MaxRelError = std::max(V.MaxRelError, C.MaxRelError);
    if (!C.Equal)
      Fail("seed " + std::to_string(Seed) + ": " + C.describe(A.Name));
  }
}

/// Compare the baseline's outputs on the captured inputs with what the
/// program's own launch produced. A difference means the replay misses
/// state the kernel reads (a __device__ or __constant__ variable, a texture)
/// or the kernel is not deterministic; either way the comparison of
/// variants is weaker, so it is reported.
void checkReplayFidelity(Job &Jb) {
  Json Warnings = Json::array();
  for (Arg &A : Jb.Args) {
    if (!A.IsBuffer || A.SameAs >= 0 || !A.Output || A.ExpectFile.empty() ||
        A.ExpectedHost.empty())
      continue;
    std::ifstream IS(A.ExpectFile, std::ios::binary);
    std::vector<unsigned char> After(A.bytes());
    IS.read(reinterpret_cast<char *>(After.data()),
            static_cast<std::streamsize>(After.size()));
    if (static_cast<size_t>(IS.gcount()) != After.size()) {
      Warnings.push("cannot read " + A.ExpectFile);
      continue;
    }
    // Parts of a poisoned output the kernel does not write keep the poison
    // in the replay but the program's contents in the capture: skip them.
    const size_t E = dtypeSize(A.Type);
    const unsigned char *Replay = A.ExpectedHost.data();
    for (size_t I = 0; I < A.Count; ++I) {
      const unsigned char *X = Replay + I * E;
      if (std::all_of(X, X + E, [](unsigned char C) { return C == PoisonByte; }))
        std::memcpy(After.data() + I * E, X, E);
    }
    double Tol = Jb.RelTol >= 0 ? Jb.RelTol : defaultRelTol(A.Type);
    CompareResult C = compareBuffers(After.data(), Replay, A.Count, A.Type, Tol);
    if (!C.Equal)
      Warnings.push("replay differs from the program's own launch: " +
                    C.describe(A.Name));
    A.ExpectedHost = {};
  }
  Result.set("replay_warnings", Warnings);
}

Json statsJson(const TimingStats &S) {
  Json J = Json::object();
  J.set("median_ms", S.MedianMs);
  J.set("min_ms", S.MinMs);
  J.set("max_ms", S.MaxMs);
  J.set("p10_ms", S.P10Ms);
  J.set("p90_ms", S.P90Ms);
  J.set("runs", S.Runs);
  return J;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: cuda-opt-measure JOB.json RESULT.json\n");
    return 64;
  }
  ResultPath = argv[2];
  std::ifstream IS(argv[1]);
  if (!IS)
    fatal(std::string("cannot read job file ") + argv[1], 64);
  std::stringstream SS;
  SS << IS.rdbuf();
  std::string ParseError;
  Json J = Json::parse(SS.str(), ParseError);
  if (J.isNull())
    fatal("job file is not valid JSON: " + ParseError, 64);
  Job Jb = parseJob(J);
  const auto Started = std::chrono::steady_clock::now();
  // Where the worker's time goes (result "phase_seconds"), lock waits apart.
  Json Phases = Json::object();
  double LockWait = 0;
  auto PhaseStart = Started;
  auto EndPhase = [&](const char *Name) {
    const auto Now = std::chrono::steady_clock::now();
    Phases.set(Name, std::chrono::duration<double>(Now - PhaseStart).count());
    PhaseStart = Now;
  };
  std::unique_ptr<cuda_opt::GpuLockFiles> Lock;
  auto LockGpu = [&](bool Exclusive) {
    if (Jb.LockDir.empty())
      return;
    if (!Lock)
      Lock = std::make_unique<cuda_opt::GpuLockFiles>(Jb.LockDir, Jb.Device);
    const auto T0 = std::chrono::steady_clock::now();
    if (!Jb.LockWaitFlag.empty())
      std::ofstream(Jb.LockWaitFlag) << "waiting\n";
    if (Exclusive)
      Lock->lockExclusive();
    else
      Lock->lockShared();
    if (!Jb.LockWaitFlag.empty())
      std::remove(Jb.LockWaitFlag.c_str());
    const auto T1 = std::chrono::steady_clock::now();
    LockWait += std::chrono::duration<double>(T1 - T0).count();
    PhaseStart += T1 - T0;
    Result.set("lock_wait_s", LockWait);
  };
  // Nothing here runs while another process times on this GPU.
  LockGpu(/*Exclusive=*/false);

  check(cuInit(0), "cuInit");
  CUdevice Dev;
  check(cuDeviceGet(&Dev, Jb.Device), "cuDeviceGet");
  CUcontext Ctx;
  check(cuDevicePrimaryCtxRetain(&Ctx, Dev), "context");
  check(cuCtxSetCurrent(Ctx), "context");
  char Name[256] = {0};
  cuDeviceGetName(Name, sizeof(Name) - 1, Dev);
  Result.set("device", std::string(Name));

  for (Variant &V : Jb.Variants) {
    if (V.IsLibrary) {
      if (!V.Lib.load(V.Error))
        V.Ok = false;
      continue;
    }
    CUresult R = cuModuleLoad(&V.Mod, V.Module.c_str());
    if (R == CUDA_SUCCESS)
      R = cuModuleGetFunction(&V.Fn, V.Mod, V.Entry.c_str());
    if (R == CUDA_SUCCESS && V.Shmem > 48 * 1024)
      R = cuFuncSetAttribute(V.Fn,
                             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             static_cast<int>(V.Shmem));
    if (R != CUDA_SUCCESS) {
      V.Ok = false;
      V.Error = "cannot load " + V.Module + " entry " + V.Entry + ": " + cuErr(R);
    }
  }
  Variant &Base = Jb.Variants[0];
  if (!Base.Ok)
    fatal("baseline: " + Base.Error);

  for (Arg &A : Jb.Args)
    if (A.IsBuffer && A.SameAs < 0)
      check(cuMemAlloc(&A.Alloc, A.bytes() + 2 * GuardBytes), "cuMemAlloc");

  std::string ChecksError;
  if (!Checks.load(Dev, ChecksError))
    fatal(ChecksError);

  EndPhase("setup");

  // Verification on every seed.
  Json VerifyFailures = Json::object();
  for (size_t SI = 0; SI < Jb.Seeds.size(); ++SI) {
    unsigned Seed = Jb.Seeds[SI];
    for (size_t I = 0; I < Jb.Args.size(); ++I)
      if (Jb.Args[I].IsBuffer && Jb.Args[I].SameAs < 0)
        prepareSeed(Jb.Args[I], Seed, I, SI == 0);
    Result.set("in_progress", Base.Id);
    writeResult();
    runAndCheck(Jb, Base, /*IsBaseline=*/true, Seed, SI == 0);
    if (!Base.Ok)
      fatal("baseline: " + Base.Error);
    if (SI == 0)
      checkReplayFidelity(Jb);
    for (size_t VI = 1; VI < Jb.Variants.size(); ++VI) {
      Variant &V = Jb.Variants[VI];
      if (!V.Ok)
        continue;
      if (Jb.TimeLimit >= 0 &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                        Started)
                  .count() > Jb.TimeLimit) {
        V.Ok = false;
        V.Skipped = true;
        V.Error = "not measured: the time budget (--time) ran out";
        continue;
      }
      Result.set("in_progress", V.Id);
      writeResult();
      runAndCheck(Jb, V, /*IsBaseline=*/false, Seed, SI == 0);
      if (!V.Ok) {
        // Final: a restarted worker (after another variant's fault) need
        // not verify this one again.
        VerifyFailures.set(V.Id, V.Error);
        Result.set("verify_failures", VerifyFailures);
      }
    }
  }

  EndPhase("verify");

  // Timing: every verified variant interleaved with the baseline, one launch
  // per round each, L2 flushed before each launch.
  int L2Bytes = 0;
  cuDeviceGetAttribute(&L2Bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, Dev);
  size_t FlushBytes = std::max<size_t>(2 * static_cast<size_t>(L2Bytes), 128u << 20);
  CUdeviceptr Flush = 0;
  if (Jb.FlushL2)
    check(cuMemAlloc(&Flush, FlushBytes), "flush buffer");
  CUstream Stream;
  check(cuStreamCreate(&Stream, CU_STREAM_NON_BLOCKING), "stream");
  CUevent Start, Stop;
  check(cuEventCreate(&Start, CU_EVENT_DEFAULT), "event");
  check(cuEventCreate(&Stop, CU_EVENT_DEFAULT), "event");
  if (Jb.HasGemmRef)
    Jb.GemmRef.setUp(Stream);
  resetBuffers(Jb);
  std::vector<CUdeviceptr> Ptrs;
  std::vector<void *> Params = kernelParams(Jb, Ptrs);
  EndPhase("timing-setup");
  // Only the timing needs the GPU to itself.
  LockGpu(/*Exclusive=*/true);
  Result.set("in_progress", "timing");
  writeResult();
  for (int Round = 0; Round < Jb.Warmup + Jb.Runs; ++Round) {
    if (Jb.Race && Round == Jb.Warmup + Jb.RaceRounds) {
      const double BaseMedian = summarize(Base.Times).MedianMs;
      for (size_t VI = 1; VI < Jb.Variants.size(); ++VI) {
        Variant &V = Jb.Variants[VI];
        if (V.Ok && !V.Times.empty() &&
            *std::min_element(V.Times.begin(), V.Times.end()) >
                Jb.RaceFactor * BaseMedian)
          V.StoppedEarly = true;
      }
    }
    for (Variant &V : Jb.Variants) {
      if (!V.Ok || V.StoppedEarly)
        continue;
      if (Jb.FlushL2)
        check(cuMemsetD8Async(Flush, static_cast<unsigned char>(Round), FlushBytes,
                              Stream),
              "flush");
      check(Checks.spin(Stream, SpinMicroseconds), "spin");
      check(cuEventRecord(Start, Stream), "event");
      CUresult R = launch(V, Params, Ptrs, Stream);
      if (R != CUDA_SUCCESS && V.IsLibrary) {
        check(cuStreamSynchronize(Stream), "stream");
        continue;
      }
      if (R != CUDA_SUCCESS)
        variantFault(V, "timed launch", R);
      check(cuEventRecord(Stop, Stream), "event");
      R = cuEventSynchronize(Stop);
      if (R != CUDA_SUCCESS)
        variantFault(V, "timed run", R);
      float Ms = 0;
      check(cuEventElapsedTime(&Ms, Start, Stop), "elapsed");
      if (Round >= Jb.Warmup)
        V.Times.push_back(Ms);
    }
    if (Jb.HasGemmRef && Jb.GemmRef.Ok) {
      if (Jb.FlushL2)
        check(cuMemsetD8Async(Flush, static_cast<unsigned char>(Round),
                              FlushBytes, Stream),
              "flush");
      check(Checks.spin(Stream, SpinMicroseconds), "spin");
      check(cuEventRecord(Start, Stream), "event");
      bool Ok = Jb.GemmRef.run();
      check(cuEventRecord(Stop, Stream), "event");
      check(cuEventSynchronize(Stop), "cuBLAS run");
      float Ms = 0;
      check(cuEventElapsedTime(&Ms, Start, Stop), "elapsed");
      if (Ok && Round >= Jb.Warmup)
        Jb.GemmRef.Times.push_back(Ms);
    }
  }

  Json Variants = Json::array();
  TimingStats BaseStats = summarize(Base.Times);
  for (Variant &V : Jb.Variants) {
    Json O = Json::object();
    O.set("id", V.Id);
    O.set("verified", V.Ok);
    if (!V.Ok) {
      O.set("error", V.Error);
      if (V.Skipped)
        O.set("skipped", true);
    } else {
      TimingStats S = summarize(V.Times);
      O.set("timing", statsJson(S));
      if (V.StoppedEarly)
        O.set("stopped_early", true);
      O.set("max_rel_error", V.MaxRelError);
      if (S.MedianMs > 0)
        O.set("speedup", BaseStats.MedianMs / S.MedianMs);
    }
    Variants.push(O);
  }
  Result.set("variants", Variants);
  if (Jb.HasGemmRef) {
    GemmReference &G = Jb.GemmRef;
    Json R = Json::object();
    R.set("kind", "cublas_gemm");
    R.set("m", G.M);
    R.set("n", G.N);
    R.set("k", G.K);
    R.set("batch", G.Batch);
    R.set("dtype", std::string(dtypeName(G.Type)));
    if (G.Ok && !G.Times.empty())
      R.set("timing", statsJson(summarize(G.Times)));
    else
      R.set("error", G.Error.empty() ? "not run" : G.Error);
    Result.set("reference", R);
  }
  EndPhase("timing");
  Result.set("phase_seconds", Phases);
  Result.set("l2_flush_bytes", Jb.FlushL2 ? static_cast<long long>(FlushBytes) : 0LL);
  Result.set("in_progress", Json());
  Result.set("complete", true);
  writeResult();
  return 0;
}
