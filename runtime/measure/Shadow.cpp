//===- Shadow.cpp - Run the fp64 shadow of the baseline -------------------===//
//
// Part of cuda-opt's runtime.
//
//===----------------------------------------------------------------------===//
#include "Shadow.h"

#include "WorkerContext.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace co_runtime {

namespace {

bool promoted(const Job &Jb, size_t I) {
  return I < Jb.Shadow.Promote.size() && Jb.Shadow.Promote[I];
}

/// The argument a buffer argument's memory belongs to.
const Arg &owner(const Job &Jb, const Arg &A) {
  return A.SameAs >= 0 ? Jb.Args[A.SameAs] : A;
}

} // namespace

void loadShadow(Job &Jb) {
  ShadowKernel &S = Jb.Shadow;
  if (!S.Present)
    return;
  auto Unusable = [&](const std::string &Why) {
    if (S.Unusable.empty())
      S.Unusable = Why;
  };
  if (S.Promote.size() != Jb.Args.size())
    Unusable("its promotions do not match the job's arguments");
  for (size_t I = 0; I < Jb.Args.size() && S.Unusable.empty(); ++I) {
    if (!promoted(Jb, I))
      continue;
    const Arg &A = Jb.Args[I];
    if (A.IsBuffer) {
      const Arg &O = owner(Jb, A);
      if (O.Type != DType::F32 || A.Offset % sizeof(float) ||
          (&O != &A && !promoted(Jb, static_cast<size_t>(A.SameAs))))
        Unusable("buffer '" + A.Name + "' is not a float buffer the shadow "
                 "can mirror");
    } else if (!(A.Type == DType::F32 ||
                 (A.Type == DType::U8 && A.Scalar.size() == 4))) {
      Unusable("scalar '" + A.Name + "' is not a 4-byte float");
    }
  }
  if (!S.Unusable.empty())
    return;
  CUresult R = cuModuleLoad(&S.Mod, S.Module.c_str());
  if (R == CUDA_SUCCESS)
    R = cuModuleGetFunction(&S.Fn, S.Mod, S.Entry.c_str());
  if (R == CUDA_SUCCESS && S.Shmem > 48 * 1024)
    R = cuFuncSetAttribute(S.Fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           static_cast<int>(S.Shmem));
  if (R != CUDA_SUCCESS)
    Unusable("cannot load " + S.Module + " entry " + S.Entry + ": " + cuErr(R));
}

void runShadow(WorkerContext &Ctx, Job &Jb) {
  ShadowKernel &S = Jb.Shadow;
  for (Arg &A : Jb.Args)
    A.HasShadowRef = false;
  if (!S.Present || !S.Unusable.empty())
    return;
  resetBuffers(Ctx, Jb);
  std::vector<CUdeviceptr> Ptrs(Jb.Args.size(), 0);
  std::vector<std::vector<unsigned char>> Scalars(Jb.Args.size());
  std::vector<void *> Params;
  for (size_t I = 0; I < Jb.Args.size(); ++I) {
    Arg &A = Jb.Args[I];
    if (!promoted(Jb, I)) {
      if (A.IsBuffer) {
        Ptrs[I] = owner(Jb, A).data() + A.Offset;
        Params.push_back(&Ptrs[I]);
      } else {
        Params.push_back(A.Scalar.data());
      }
      continue;
    }
    if (!A.IsBuffer) {
      float F;
      std::memcpy(&F, A.Scalar.data(), sizeof(F));
      double D = F;
      Scalars[I].resize(sizeof(D));
      std::memcpy(Scalars[I].data(), &D, sizeof(D));
      Params.push_back(Scalars[I].data());
      continue;
    }
    if (A.SameAs < 0) {
      if (!A.Shadow)
        Ctx.check(cuMemAlloc(&A.Shadow, A.Count * sizeof(double)),
                  "cuMemAlloc (fp64 shadow)");
      if (A.Output && !A.Input)
        Ctx.check(cuMemsetD8(A.Shadow, PoisonByte, A.Count * sizeof(double)),
                  "poison (fp64 shadow)");
      else
        Ctx.checkDevice(Ctx.Checks.widen(A.Pristine, A.Shadow, A.Count),
                        "widen (fp64 shadow)");
    }
    Ptrs[I] = owner(Jb, A).Shadow + A.Offset / sizeof(float) * sizeof(double);
    Params.push_back(&Ptrs[I]);
  }
  Variant &Base = Jb.Variants[0];
  CUresult R = cuLaunchKernel(S.Fn, Base.Grid[0], Base.Grid[1], Base.Grid[2],
                              Base.Block[0], Base.Block[1], Base.Block[2],
                              S.Shmem, nullptr, Params.data(), nullptr);
  if (R != CUDA_SUCCESS) {
    S.Unusable = "the shadow did not launch: " + cuErr(R);
    return;
  }
  // A fault here loses the context like a variant's would: fatal, and the
  // client retries without the shadow.
  Ctx.check(cuCtxSynchronize(), "fp64 shadow run");
  for (size_t I = 0; I < Jb.Args.size(); ++I) {
    Arg &A = Jb.Args[I];
    if (!promoted(Jb, I) || !A.IsBuffer || A.SameAs >= 0 || !A.Output)
      continue;
    A.HasShadowRef = true;
    Ctx.checkDevice(Ctx.Checks.absMax(A.Shadow, A.Count, DType::F64,
                                      A.ShadowScale),
                    "scale (fp64 shadow)");
    if (!A.Rows)
      continue;
    const size_t RowBytes = A.Rows * sizeof(double);
    for (CUdeviceptr *P : {&A.RowBaselineError, &A.RowScale, &A.RowError})
      if (!*P)
        Ctx.check(cuMemAlloc(P, RowBytes), "cuMemAlloc (per-row errors)");
    Ctx.check(cuMemsetD8(A.RowScale, 0, RowBytes), "zero (per-row scale)");
    Ctx.checkDevice(Ctx.Checks.rowMaxAbsDiff(0, A.Shadow, A.Rows, A.RowLength,
                                             A.RowScale),
                    "scale per row (fp64 shadow)");
  }
}

void measureBaselineAgainstShadow(WorkerContext &Ctx, Job &Jb,
                                  bool FirstRun) {
  for (Arg &A : Jb.Args) {
    if (!A.HasShadowRef)
      continue;
    double Err = 0;
    Ctx.checkDevice(Ctx.Checks.maxAbsDiff(A.data(), A.Shadow, A.Count, Err),
                    "baseline error (fp64 shadow)");
    A.BaselineShadowError =
        FirstRun ? Err : std::max(A.BaselineShadowError, Err);
    Jb.Shadow.BaselineError =
        std::max(Jb.Shadow.BaselineError, A.BaselineShadowError);
    if (!A.Rows)
      continue;
    if (FirstRun)
      Ctx.check(cuMemsetD8(A.RowBaselineError, 0, A.Rows * sizeof(double)),
                "zero (per-row baseline error)");
    // Accumulates the largest error per row over the runs.
    Ctx.checkDevice(Ctx.Checks.rowMaxAbsDiff(A.data(), A.Shadow, A.Rows,
                                             A.RowLength, A.RowBaselineError),
                    "baseline error per row (fp64 shadow)");
  }
}

bool checkedAgainstShadow(const Job &Jb) {
  if (Jb.FpModel == "strict" || Jb.FpModel == "fast")
    return false;
  for (const Arg &A : Jb.Args)
    if (A.HasShadowRef)
      return true;
  return false;
}

} // namespace co_runtime
