//===- Timing.cpp - Time the verified variants against the baseline -------===//
//
// Part of cuda-opt's runtime.
//
//===----------------------------------------------------------------------===//
#include "Timing.h"

#include "Stats.h"
#include "WorkerContext.h"

#include <algorithm>

namespace co_runtime {

namespace proto = cuda_opt::worker;

namespace {

/// Before each timed call the GPU spins this long (DeviceChecks::spin), so
/// the call's host-side cost (launch, cuBLAS's or cudaoptGemm's per-call
/// work) overlaps the spin instead of counting as GPU time. Without it the
/// worker timed cublasGemmEx at 0.137 ms on a 4096x4096x1024 fp16 GEMM that
/// bench/gemm's graph-replay timing puts at 0.054 ms.
const unsigned SpinMicroseconds = 200;

/// The stream, events and L2 flush buffer of the timed rounds.
struct Rig {
  CUdeviceptr Flush = 0;
  size_t FlushBytes = 0;
  CUstream Stream = nullptr;
  CUevent Start = nullptr, Stop = nullptr;

  /// Flush the L2 (unless the job says not to), spin, record Start.
  void beforeCall(WorkerContext &Ctx, const Job &Jb, int Round) {
    if (Jb.FlushL2)
      Ctx.check(cuMemsetD8Async(Flush, static_cast<unsigned char>(Round),
                                FlushBytes, Stream),
                "flush");
    Ctx.check(Ctx.Checks.spin(Stream, SpinMicroseconds), "spin");
    Ctx.check(cuEventRecord(Start, Stream), "event");
  }
  float elapsedMs(WorkerContext &Ctx) {
    float Ms = 0;
    Ctx.check(cuEventElapsedTime(&Ms, Start, Stop), "elapsed");
    return Ms;
  }
};

Rig setUpRig(WorkerContext &Ctx, const Job &Jb) {
  Rig G;
  int L2Bytes = 0;
  cuDeviceGetAttribute(&L2Bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, Ctx.Dev);
  G.FlushBytes =
      std::max<size_t>(2 * static_cast<size_t>(L2Bytes), 128u << 20);
  if (Jb.FlushL2)
    Ctx.check(cuMemAlloc(&G.Flush, G.FlushBytes), "flush buffer");
  Ctx.check(cuStreamCreate(&G.Stream, CU_STREAM_NON_BLOCKING), "stream");
  Ctx.check(cuEventCreate(&G.Start, CU_EVENT_DEFAULT), "event");
  Ctx.check(cuEventCreate(&G.Stop, CU_EVENT_DEFAULT), "event");
  return G;
}

/// Racing: after the first RaceRounds timed rounds, stop timing the
/// variants that are clearly slower than the baseline.
void raceOut(Job &Jb) {
  const double BaseMedian = summarize(Jb.Variants[0].Times).MedianMs;
  for (size_t VI = 1; VI < Jb.Variants.size(); ++VI) {
    Variant &V = Jb.Variants[VI];
    if (V.Ok && !V.Times.empty() &&
        *std::min_element(V.Times.begin(), V.Times.end()) >
            Jb.RaceFactor * BaseMedian)
      V.StoppedEarly = true;
  }
}

Json statsJson(const TimingStats &S) {
  namespace P = proto::stats;
  Json J = Json::object();
  J.set(P::MedianMs, S.MedianMs);
  J.set(P::MinMs, S.MinMs);
  J.set(P::MaxMs, S.MaxMs);
  J.set(P::P10Ms, S.P10Ms);
  J.set(P::P90Ms, S.P90Ms);
  J.set(P::Runs, S.Runs);
  return J;
}

} // namespace

size_t timeVariants(WorkerContext &Ctx, Job &Jb) {
  Rig G = setUpRig(Ctx, Jb);
  if (Jb.HasGemmRef)
    Jb.GemmRef.setUp(G.Stream);
  resetBuffers(Ctx, Jb);
  std::vector<CUdeviceptr> Ptrs;
  std::vector<void *> Params = kernelParams(Jb, Ptrs);
  Ctx.endPhase(proto::phase::TimingSetup);
  // Only the timing needs the GPU to itself.
  Ctx.lockGpu(Jb.LockDir, Jb.LockWaitFlag, Jb.Device, /*Exclusive=*/true);
  Ctx.Result.set(proto::result::InProgress, proto::result::InProgressTiming);
  Ctx.writeResult();
  for (int Round = 0; Round < Jb.Warmup + Jb.Runs; ++Round) {
    if (Jb.Race && Round == Jb.Warmup + Jb.RaceRounds)
      raceOut(Jb);
    for (Variant &V : Jb.Variants) {
      if (!V.Ok || V.StoppedEarly)
        continue;
      G.beforeCall(Ctx, Jb, Round);
      CUresult R = launch(V, Params, Ptrs, G.Stream);
      if (R != CUDA_SUCCESS && V.IsLibrary) {
        // As in verification: a region's error may be a fault's.
        R = cuStreamSynchronize(G.Stream);
        if (R != CUDA_SUCCESS)
          Ctx.variantFault(V.Id, "timed run", R);
        // Speedups are relative to the baseline: without it, no verdicts.
        if (&V == &Jb.Variants[0])
          Ctx.fatal("baseline: " + V.Error);
        continue;
      }
      if (R != CUDA_SUCCESS)
        Ctx.variantFault(V.Id, "timed launch", R);
      Ctx.check(cuEventRecord(G.Stop, G.Stream), "event");
      R = cuEventSynchronize(G.Stop);
      if (R != CUDA_SUCCESS)
        Ctx.variantFault(V.Id, "timed run", R);
      float Ms = G.elapsedMs(Ctx);
      if (Round >= Jb.Warmup)
        V.Times.push_back(Ms);
    }
    if (Jb.HasGemmRef && Jb.GemmRef.Ok) {
      G.beforeCall(Ctx, Jb, Round);
      bool Ok = Jb.GemmRef.run();
      Ctx.check(cuEventRecord(G.Stop, G.Stream), "event");
      Ctx.check(cuEventSynchronize(G.Stop), "cuBLAS run");
      float Ms = G.elapsedMs(Ctx);
      if (Ok && Round >= Jb.Warmup)
        Jb.GemmRef.Times.push_back(Ms);
    }
  }
  return Jb.FlushL2 ? G.FlushBytes : 0;
}

void recordTimings(WorkerContext &Ctx, const Job &Jb) {
  namespace P = proto::variant_result;
  Json Variants = Json::array();
  TimingStats BaseStats = summarize(Jb.Variants[0].Times);
  for (const Variant &V : Jb.Variants) {
    Json O = Json::object();
    O.set(P::Id, V.Id);
    O.set(P::Verified, V.Ok);
    if (!V.Ok) {
      O.set(P::Error, V.Error);
      if (V.Skipped)
        O.set(P::Skipped, true);
    } else {
      TimingStats S = summarize(V.Times);
      O.set(P::Timing, statsJson(S));
      if (V.StoppedEarly)
        O.set(P::StoppedEarly, true);
      O.set(P::MaxRelError, V.MaxRelError);
      if (!V.Check.empty())
        O.set(P::Check, V.Check);
      if (V.Check == "fp64") {
        O.set(P::Fp64Error, V.Fp64Error);
        O.set(P::Fp64ErrorRatio, V.Fp64ErrorRatio);
      }
      if (S.MedianMs > 0)
        O.set(P::Speedup, BaseStats.MedianMs / S.MedianMs);
    }
    Variants.push(O);
  }
  Ctx.Result.set(proto::result::Variants, Variants);
  if (Jb.Shadow.Present) {
    namespace SR = proto::shadow_result;
    Json Sh = Json::object();
    Sh.set(SR::Used, Jb.Shadow.Unusable.empty());
    if (!Jb.Shadow.Unusable.empty()) {
      Sh.set(SR::Error, Jb.Shadow.Unusable);
    } else {
      Sh.set(SR::OriginalError, Jb.Shadow.BaselineError);
      Sh.set(SR::OriginalRuns, Jb.OrigRuns);
      Json Rows = Json::array();
      for (const Arg &A : Jb.Args)
        if (!A.RowNote.empty())
          Rows.push(A.RowNote);
      Sh.set(SR::RowChecks, Rows);
    }
    Ctx.Result.set(proto::result::Shadow, Sh);
  }
  if (!Jb.HasGemmRef)
    return;
  namespace R = proto::reference;
  const GemmReference &G = Jb.GemmRef;
  Json Ref = Json::object();
  Ref.set(R::Kind, R::KindCublasGemm);
  Ref.set(R::M, G.M);
  Ref.set(R::N, G.N);
  Ref.set(R::K, G.K);
  Ref.set(R::Batch, G.Batch);
  Ref.set(R::DType, std::string(dtypeName(G.Type)));
  if (G.Ok && !G.Times.empty())
    Ref.set(R::Timing, statsJson(summarize(G.Times)));
  else
    Ref.set(R::Error, G.Error.empty() ? "not run" : G.Error);
  Ctx.Result.set(proto::result::Reference, Ref);
}

} // namespace co_runtime
