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
// The files and exit codes: WorkerProtocol.h, docs/worker-protocol.md.
//
// This file runs the phases in order: Job.h reads the job, Verify.h checks
// the variants, Timing.h times them; WorkerContext.h holds what they share.
// Only the CUDA driver API is used: the worker needs no nvcc to build.
//
//===----------------------------------------------------------------------===//
#include "Job.h"
#include "Shadow.h"
#include "Timing.h"
#include "Verify.h"
#include "WorkerContext.h"

#include <cuda.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

using namespace co_runtime;
namespace proto = cuda_opt::worker;

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: cuda-opt-measure JOB.json RESULT.json\n");
    return proto::ExitUsage;
  }
  WorkerContext Ctx(argv[2]);
  std::ifstream IS(argv[1]);
  if (!IS)
    Ctx.fatal(std::string("cannot read job file ") + argv[1], proto::ExitUsage);
  std::stringstream SS;
  SS << IS.rdbuf();
  std::string ParseError;
  Json J = Json::parse(SS.str(), ParseError);
  if (J.isNull())
    Ctx.fatal("job file is not valid JSON: " + ParseError, proto::ExitUsage);
  Job Jb;
  std::string JobError;
  if (!parseJob(J, Jb, JobError))
    Ctx.fatal(JobError);
  Ctx.Started = WorkerContext::Clock::now();
  // Where the worker's time goes (result "phase_seconds"), lock waits apart.
  Ctx.startPhases();
  // Nothing here runs while another process times on this GPU.
  Ctx.lockGpu(Jb.LockDir, Jb.LockWaitFlag, Jb.Device, /*Exclusive=*/false);

  Ctx.check(cuInit(0), "cuInit");
  Ctx.check(cuDeviceGet(&Ctx.Dev, Jb.Device), "cuDeviceGet");
  CUcontext CuCtx;
  Ctx.check(cuDevicePrimaryCtxRetain(&CuCtx, Ctx.Dev), "context");
  Ctx.check(cuCtxSetCurrent(CuCtx), "context");
  char Name[256] = {0};
  cuDeviceGetName(Name, sizeof(Name) - 1, Ctx.Dev);
  Ctx.Result.set(proto::result::Device, std::string(Name));

  loadVariants(Jb);
  loadShadow(Jb);
  Variant &Base = Jb.Variants[0];
  if (!Base.Ok)
    Ctx.fatal("baseline: " + Base.Error);
  allocateBuffers(Ctx, Jb);
  std::string ChecksError;
  if (!Ctx.Checks.load(Ctx.Dev, ChecksError))
    Ctx.fatal(ChecksError);
  Ctx.endPhase(proto::phase::Setup);

  verifyVariants(Ctx, Jb);
  Ctx.endPhase(proto::phase::Verify);

  const size_t FlushBytes = timeVariants(Ctx, Jb);
  recordTimings(Ctx, Jb);
  Ctx.endPhase(proto::phase::Timing);
  Ctx.recordPhases();
  Ctx.Result.set(proto::result::L2FlushBytes,
                 static_cast<long long>(FlushBytes));
  Ctx.Result.set(proto::result::InProgress, Json());
  Ctx.Result.set(proto::result::Complete, true);
  Ctx.writeResult();
  // The lock goes before the job's cuBLAS handle and buffers are released.
  Ctx.unlockGpu();
  return proto::ExitOk;
}
