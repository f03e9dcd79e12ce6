//===- Verify.cpp - Check every variant against the baseline --------------===//
//
// Part of cuda-opt's runtime.
//
//===----------------------------------------------------------------------===//
#include "Verify.h"

#include "Compare.h"
#include "Shadow.h"
#include "WorkerContext.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace co_runtime {

namespace proto = cuda_opt::worker;

namespace {

uint32_t xorshift(uint32_t &S) {
  S ^= S << 13;
  S ^= S >> 17;
  S ^= S << 5;
  return S;
}

/// Pinned host memory: transfers of the large buffers tuning uses run at
/// full PCIe speed instead of through a pageable bounce buffer.
unsigned char *pinned(WorkerContext &Ctx, size_t Bytes) {
  void *P = nullptr;
  Ctx.check(cuMemAllocHost(&P, Bytes ? Bytes : 1), "cuMemAllocHost");
  return static_cast<unsigned char *>(P);
}

/// Generate a buffer's contents for one seed on the host (spec mode).
void generateHost(WorkerContext &Ctx, Arg &A, unsigned Seed, size_t ArgIndex) {
  namespace P = proto::arg;
  if (!A.Host)
    A.Host = pinned(Ctx, A.bytes());
  std::memset(A.Host, 0, A.bytes());
  if (A.Init == P::InitZero)
    return;
  uint32_t S = Seed * 2654435761u + static_cast<uint32_t>(ArgIndex) * 40503u + 1u;
  if (S == 0)
    S = 1;
  if (A.Type == DType::F32 && A.Init == P::InitUniform) {
    // The common case, without per-element type dispatch.
    float *F = reinterpret_cast<float *>(A.Host);
    const double Span = (A.Hi - A.Lo) / 4294967296.0;
    for (size_t I = 0; I < A.Count; ++I)
      F[I] = static_cast<float>(A.Lo + Span * xorshift(S));
    return;
  }
  for (size_t I = 0; I < A.Count; ++I) {
    double V;
    if (A.Init == P::InitIota) {
      V = static_cast<double>(I);
    } else if (A.Init == P::InitNormal) {
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
void prepareSeed(WorkerContext &Ctx, Arg &A, unsigned Seed, size_t ArgIndex,
                 bool FirstSeed) {
  if (A.Output && !A.Input)
    return; // Poisoned before every run.
  if (!A.Pristine)
    Ctx.check(cuMemAlloc(&A.Pristine, A.bytes()), "cuMemAlloc (pristine copy)");
  if (A.Init != proto::arg::InitFile) {
    generateHost(Ctx, A, Seed, ArgIndex);
    Ctx.check(cuMemcpyHtoD(A.Pristine, A.Host, A.bytes()), "upload");
    return;
  }
  if (!A.Captured) {
    std::ifstream IS(A.File, std::ios::binary);
    if (!IS)
      Ctx.fatal("cannot read captured contents of '" + A.Name + "' from " +
                A.File);
    A.Captured = pinned(Ctx, A.bytes());
    IS.read(reinterpret_cast<char *>(A.Captured),
            static_cast<std::streamsize>(A.bytes()));
    if (static_cast<size_t>(IS.gcount()) != A.bytes())
      Ctx.fatal("captured file " + A.File + " is shorter than buffer '" +
                A.Name + "'");
  }
  Ctx.check(cuMemcpyHtoD(A.Pristine, A.Captured, A.bytes()), "upload");
  if (A.Perturb && !FirstSeed)
    Ctx.checkDevice(
        Ctx.Checks.redrawWithinRange(
            A.Pristine, A.Count, A.Type,
            Seed * 2654435761u + static_cast<uint32_t>(ArgIndex) + 1u),
        "redraw inputs");
}

/// Check one output of a variant against the baseline's (Expected) and,
/// under --fp-model=reassoc, against the fp64 shadow; "" when it passes.
std::string checkOutput(WorkerContext &Ctx, Job &Jb, Arg &A, Variant &V,
                        double Tol) {
  DeviceChecks &Checks = Ctx.Checks;
  const bool Strict = Jb.FpModel == "strict";
  const bool AgainstShadow =
      !Strict && Jb.FpModel != "fast" && A.HasShadowRef;
  // Strict: bit for bit (NaN == NaN, -0 == +0). Against the shadow: first
  // the NaN/Inf positions of the baseline (an infinite tolerance checks
  // nothing else), then the error bound.
  double T = Strict ? 0.0 : AgainstShadow ? HUGE_VAL : Tol;
  double Floor = Strict ? 0.0 : A.Floor;
  CompareResult C;
  Ctx.checkDevice(Checks.compare(A.Expected, A.data(), A.Count, A.Type, T,
                                 Floor, C),
                  "compare");
  const char *How = Strict ? "bitwise" : AgainstShadow ? "fp64" : "tolerance";
  if (V.Check.empty() || std::string(How) == "tolerance")
    V.Check = How; // A variant is as weakly checked as its weakest output.
  if (!AgainstShadow)
    V.MaxRelError = std::max(V.MaxRelError, C.MaxRelError);
  if (!C.Equal)
    return C.describe(A.Name);
  if (!AgainstShadow)
    return "";
  double Err = 0;
  Ctx.checkDevice(Checks.maxAbsDiff(A.data(), A.Shadow, A.Count, Err),
                  "error against the fp64 shadow");
  const double Bound = 2 * A.BaselineShadowError + 2 * ulpF32(A.ShadowScale);
  V.Fp64Error = std::max(V.Fp64Error, Err);
  V.Fp64ErrorRatio = std::max(
      V.Fp64ErrorRatio,
      Err / std::max(A.BaselineShadowError, ulpF32(A.ShadowScale)));
  char Buf[384];
  if (Err > Bound) {
    std::snprintf(Buf, sizeof(Buf),
                  "%s: max |variant - fp64 reference| = %.3g exceeds 2 x the "
                  "original's %.3g + 2 ulp (%.3g)",
                  A.Name.c_str(), Err, A.BaselineShadowError, Bound);
    return Buf;
  }
  if (!A.Rows)
    return "";
  // The same bound row by row: a wrong row of small values would hide
  // under a bound set by rows of large ones.
  const size_t RowBytes = A.Rows * sizeof(double);
  Ctx.check(cuMemsetD8(A.RowError, 0, RowBytes), "zero (per-row error)");
  Ctx.checkDevice(Checks.rowMaxAbsDiff(A.data(), A.Shadow, A.Rows,
                                       A.RowLength, A.RowError),
                  "error per row (fp64 shadow)");
  uint64_t Failing = 0, First = 0;
  Ctx.checkDevice(Checks.rowCheck(A.RowError, A.RowBaselineError, A.RowScale,
                                  A.Rows, Failing, First),
                  "per-row bound (fp64 shadow)");
  if (!Failing)
    return "";
  double RowErr = 0, RowBase = 0, RowScale = 0;
  const CUdeviceptr At = First * sizeof(double);
  Ctx.check(cuMemcpyDtoH(&RowErr, A.RowError + At, sizeof(double)), "readback");
  Ctx.check(cuMemcpyDtoH(&RowBase, A.RowBaselineError + At, sizeof(double)),
            "readback");
  Ctx.check(cuMemcpyDtoH(&RowScale, A.RowScale + At, sizeof(double)),
            "readback");
  std::snprintf(Buf, sizeof(Buf),
                "%s: row %llu (rows of %zu elements): max |variant - fp64 "
                "reference| = %.3g exceeds 2 x the original's %.3g in that "
                "row + 2 ulp (%.3g); %llu of %zu rows fail",
                A.Name.c_str(), static_cast<unsigned long long>(First),
                A.RowLength, RowErr, RowBase,
                2 * RowBase + 2 * ulpF32(RowScale),
                static_cast<unsigned long long>(Failing), A.Rows);
  return Buf;
}

/// Runs the baseline again on this seed's inputs (after its first run kept
/// the Expected outputs) and raises its error against the shadow to the
/// largest seen: an output summed with float atomics in another order each
/// run has another error each run.
void rerunBaseline(WorkerContext &Ctx, Job &Jb) {
  Variant &Base = Jb.Variants[0];
  resetBuffers(Ctx, Jb);
  std::vector<CUdeviceptr> Ptrs;
  std::vector<void *> Params = kernelParams(Jb, Ptrs);
  CUresult R = launch(Base, Params, Ptrs, nullptr);
  if (R != CUDA_SUCCESS)
    Ctx.variantFault(Base.Id, "launch", R);
  R = cuCtxSynchronize();
  if (R != CUDA_SUCCESS)
    Ctx.variantFault(Base.Id, "run", R);
  measureBaselineAgainstShadow(Ctx, Jb, /*FirstRun=*/false);
}

/// Run one variant on the current seed's inputs and check it on the GPU:
/// guard bands intact, inputs the baseline does not write unchanged, and
/// (for a variant) every output equal to the baseline's within tolerance.
/// The baseline's outputs are kept in each argument's Expected buffer.
void runAndCheck(WorkerContext &Ctx, Job &Jb, Variant &V, bool IsBaseline,
                 unsigned Seed, bool FirstSeed) {
  resetBuffers(Ctx, Jb);
  std::vector<CUdeviceptr> Ptrs;
  std::vector<void *> Params = kernelParams(Jb, Ptrs);
  CUresult R = launch(V, Params, Ptrs, nullptr);
  if (R != CUDA_SUCCESS && V.IsLibrary) {
    // The library refused the problem (V.Error says why). A region that
    // synchronises inside may return a fault's error: then the context is
    // lost, and that is this variant's fault, not the next one's.
    R = cuCtxSynchronize();
    if (R != CUDA_SUCCESS)
      Ctx.variantFault(V.Id, "run", R);
    return;
  }
  if (R != CUDA_SUCCESS)
    Ctx.variantFault(V.Id, "launch", R);
  R = cuCtxSynchronize();
  if (R != CUDA_SUCCESS)
    Ctx.variantFault(V.Id, "run", R);
  auto Fail = [&](const std::string &Why) {
    if (V.Ok) {
      V.Ok = false;
      V.Error = Why;
    }
  };
  DeviceChecks &Checks = Ctx.Checks;
  for (Arg &A : Jb.Args) {
    if (!A.IsBuffer || A.SameAs >= 0 || !V.Ok)
      continue;
    for (CUdeviceptr G : {A.Alloc, A.data() + A.bytes()}) {
      uint64_t Bad = 0;
      Ctx.checkDevice(Checks.bytesNotEqual(G, GuardBytes, GuardByte, Bad),
                      "guard");
      if (Bad)
        Fail("wrote outside buffer '" + A.Name + "' (guard band changed)");
    }
    if (A.Scratch)
      continue; // Dead after the run: whatever it holds is fine.
    if (!A.Output) {
      // An input the baseline does not write must stay unchanged.
      uint64_t Bad = 0;
      Ctx.checkDevice(Checks.bytesDiffer(A.data(), A.Pristine, A.bytes(), Bad),
                      "input");
      if (Bad)
        Fail("modified input buffer '" + A.Name + "'");
      continue;
    }
    double Tol = Jb.relTol(A.Type);
    if (IsBaseline) {
      if (!A.Expected)
        Ctx.check(cuMemAlloc(&A.Expected, A.bytes()), "cuMemAlloc (expected)");
      Ctx.check(cuMemcpyDtoD(A.Expected, A.data(), A.bytes()), "keep output");
      double Scale = 0;
      Ctx.checkDevice(Checks.absMax(A.Expected, A.Count, A.Type, Scale),
                      "scale");
      // Values far below the output's magnitude are compared absolutely: a
      // reordered sum that lands near zero has a large relative but tiny
      // absolute error (Compare.h).
      A.Floor = isFloating(A.Type) ? 1e-3 * (Scale > 0 ? Scale : 1.0) : 0.0;
      if (FirstSeed && !A.ExpectFile.empty()) {
        A.ExpectedHost.resize(A.bytes());
        Ctx.check(cuMemcpyDtoH(A.ExpectedHost.data(), A.Expected, A.bytes()),
                  "readback");
      }
      continue;
    }
    if (std::string Why = checkOutput(Ctx, Jb, A, V, Tol); !Why.empty())
      Fail("seed " + std::to_string(Seed) + ": " + Why);
  }
}

/// Compare the baseline's outputs on the captured inputs with what the
/// program's own launch produced. A difference means the replay misses
/// state the kernel reads (a __device__ or __constant__ variable, a texture)
/// or the kernel is not deterministic; either way the comparison of
/// variants is weaker, so it is reported.
void checkReplayFidelity(WorkerContext &Ctx, Job &Jb) {
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
    double Tol = Jb.relTol(A.Type);
    CompareResult C = compareBuffers(After.data(), Replay, A.Count, A.Type, Tol);
    if (!C.Equal)
      Warnings.push("replay differs from the program's own launch: " +
                    C.describe(A.Name));
    A.ExpectedHost = {};
  }
  Ctx.Result.set(proto::result::ReplayWarnings, Warnings);
}

bool pastTimeLimit(const WorkerContext &Ctx, const Job &Jb) {
  return Jb.TimeLimit >= 0 &&
         std::chrono::duration<double>(WorkerContext::Clock::now() -
                                       Ctx.Started)
                 .count() > Jb.TimeLimit;
}

} // namespace

void verifyVariants(WorkerContext &Ctx, Job &Jb) {
  namespace R = proto::result;
  Variant &Base = Jb.Variants[0];
  Json VerifyFailures = Json::object();
  for (size_t SI = 0; SI < Jb.Seeds.size(); ++SI) {
    unsigned Seed = Jb.Seeds[SI];
    for (size_t I = 0; I < Jb.Args.size(); ++I)
      if (Jb.Args[I].IsBuffer && Jb.Args[I].SameAs < 0)
        prepareSeed(Ctx, Jb.Args[I], Seed, I, SI == 0);
    Ctx.Result.set(R::InProgress, Base.Id);
    Ctx.writeResult();
    runShadow(Ctx, Jb);
    runAndCheck(Ctx, Jb, Base, /*IsBaseline=*/true, Seed, SI == 0);
    if (!Base.Ok)
      Ctx.fatal("baseline: " + Base.Error);
    measureBaselineAgainstShadow(Ctx, Jb, /*FirstRun=*/true);
    if (checkedAgainstShadow(Jb))
      for (int Run = 1; Run < Jb.OrigRuns; ++Run)
        rerunBaseline(Ctx, Jb);
    if (SI == 0)
      checkReplayFidelity(Ctx, Jb);
    for (size_t VI = 1; VI < Jb.Variants.size(); ++VI) {
      Variant &V = Jb.Variants[VI];
      if (!V.Ok)
        continue;
      if (pastTimeLimit(Ctx, Jb)) {
        V.Ok = false;
        V.Skipped = true;
        V.Error = "not measured: the time budget (--time) ran out";
        continue;
      }
      Ctx.Result.set(R::InProgress, V.Id);
      Ctx.writeResult();
      runAndCheck(Ctx, Jb, V, /*IsBaseline=*/false, Seed, SI == 0);
      if (!V.Ok) {
        // Final: a restarted worker (after another variant's fault) need
        // not verify this one again.
        VerifyFailures.set(V.Id, V.Error);
        Ctx.Result.set(R::VerifyFailures, VerifyFailures);
      }
    }
  }
}

} // namespace co_runtime
