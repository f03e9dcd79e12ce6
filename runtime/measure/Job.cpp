//===- Job.cpp - Read a measurement job and run its variants --------------===//
//
// Part of cuda-opt's runtime.
//
//===----------------------------------------------------------------------===//
#include "Job.h"

#include "WorkerContext.h"

#include <cstdint>
#include <cstring>

namespace co_runtime {

namespace proto = cuda_opt::worker;

namespace {

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

bool parseVariants(const Json &J, Job &Jb, std::string &Error) {
  namespace V = proto::variant;
  for (const Json &VJ : J[proto::job::Variants].items()) {
    Variant Var;
    Var.Id = VJ[V::Id].string();
    Var.Module = VJ[V::Module].string();
    Var.Entry = VJ[V::Entry].string();
    const std::vector<Json> &Grid = VJ[V::Grid].items();
    const std::vector<Json> &Block = VJ[V::Block].items();
    for (int D = 0; D < 3; ++D) {
      if (D < (int)Grid.size())
        Var.Grid[D] = static_cast<unsigned>(Grid[D].integer(1));
      if (D < (int)Block.size())
        Var.Block[D] = static_cast<unsigned>(Block[D].integer(1));
    }
    Var.Shmem = static_cast<unsigned>(VJ[V::Shmem].integer(0));
    if (!VJ[V::Library].isNull()) {
      std::string Why;
      Var.IsLibrary = true;
      if (!Var.Lib.parse(VJ[V::Library], J[proto::job::Args].items().size(),
                         Why)) {
        Error = "variant '" + Var.Id + "': " + Why;
        return false;
      }
      // A region call replaces the whole host region the baseline is, so
      // it can be the baseline; a gemm call replaces one of its kernels.
      if (Jb.Variants.empty() && !Var.Lib.isRegion()) {
        Error = "the baseline must be a kernel, not a library call";
        return false;
      }
      Jb.Variants.push_back(Var);
      continue;
    }
    if (Var.Id.empty() || Var.Module.empty() || Var.Entry.empty()) {
      Error = "each variant needs id, module and entry";
      return false;
    }
    Jb.Variants.push_back(Var);
  }
  if (Jb.Variants.empty()) {
    Error = "the job has no variants";
    return false;
  }
  return true;
}

bool parseArg(const Json &A, Job &Jb, std::string &Error) {
  namespace P = proto::arg;
  Arg Ar;
  Ar.Name = A[P::Name].string();
  Ar.IsBuffer = A[P::Kind].string() == P::KindBuffer;
  if (Ar.IsBuffer && !A[P::SameAs].isNull()) {
    Ar.SameAs = static_cast<int>(A[P::SameAs].integer(-1));
    Ar.Offset = static_cast<size_t>(A[P::Offset].integer(0));
    if (Ar.SameAs < 0 || Ar.SameAs >= static_cast<int>(Jb.Args.size()) ||
        !Jb.Args[Ar.SameAs].IsBuffer || Jb.Args[Ar.SameAs].SameAs >= 0) {
      Error = "buffer '" + Ar.Name + "': same_as must name an earlier buffer";
      return false;
    }
    Jb.Args.push_back(Ar);
    return true;
  }
  if (!Ar.IsBuffer && !A[P::Raw].isNull()) {
    if (!parseHex(A[P::Raw].string(), Ar.Scalar) || Ar.Scalar.empty()) {
      Error = "scalar '" + Ar.Name + "': raw bytes must be hex digits";
      return false;
    }
    Ar.Type = DType::U8;
    Jb.Args.push_back(Ar);
    return true;
  }
  Ar.Type = parseDType(A[P::DType].string());
  if (Ar.Type == DType::Invalid) {
    Error = "argument '" + Ar.Name + "' has unknown dtype '" +
            A[P::DType].string() + "'";
    return false;
  }
  if (Ar.IsBuffer) {
    Ar.Count = static_cast<size_t>(A[P::Count].integer(0));
    Ar.Output = A[P::Output].boolean(false);
    Ar.Input = A[P::Input].boolean(true);
    Ar.Scratch = A[P::Scratch].boolean(false);
    if (Ar.Scratch && Ar.Output) {
      // An output is compared with the baseline's; a scratch buffer is not.
      Error = "buffer '" + Ar.Name + "' cannot be both scratch and output";
      return false;
    }
    if (!A[P::Init].isNull())
      Ar.Init = A[P::Init].string();
    Ar.Lo = A[P::Lo].number(-1);
    Ar.Hi = A[P::Hi].number(1);
    Ar.File = A[P::File].string();
    Ar.Perturb = A[P::Perturb].boolean(false);
    Ar.ExpectFile = A[P::ExpectFile].string();
    Ar.Offset = static_cast<size_t>(A[P::Offset].integer(0));
    if (Ar.Output) {
      long long Len = A[P::RowLength].integer(0);
      Ar.RowLength = Len > 0 ? static_cast<size_t>(Len) : 0;
      Ar.RowLengthArg = static_cast<int>(A[P::RowLengthArg].integer(-1));
    }
    if (Ar.Count == 0) {
      Error = "buffer '" + Ar.Name + "' has no element count";
      return false;
    }
  } else {
    storeFromDouble(Ar.Scalar.data(), 0, Ar.Type, A[P::Value].number(0));
    if (Ar.Type == DType::I64 || Ar.Type == DType::U64) {
      // Exact for 64-bit integers beyond 2^53.
      long long V = A[P::Value].integer(0);
      std::memcpy(Ar.Scalar.data(), &V, 8);
    }
  }
  Jb.Args.push_back(Ar);
  return true;
}

bool parseReference(const Json &Ref, Job &Jb, std::string &Error) {
  namespace R = proto::reference;
  if (Ref.isNull() || Ref[R::Kind].string() != R::KindCublasGemm)
    return true;
  Jb.HasGemmRef = true;
  Jb.GemmRef.M = Ref[R::M].integer(0);
  Jb.GemmRef.N = Ref[R::N].integer(0);
  Jb.GemmRef.K = Ref[R::K].integer(0);
  Jb.GemmRef.Batch = Ref[R::Batch].integer(1);
  Jb.GemmRef.Type = parseDType(Ref[R::DType].string());
  if (Jb.GemmRef.M <= 0 || Jb.GemmRef.N <= 0 || Jb.GemmRef.K <= 0 ||
      Jb.GemmRef.Batch <= 0) {
    Error = "reference: cublas_gemm needs positive m, n, k, batch";
    return false;
  }
  return true;
}

/// The value of an integer scalar argument (a typed one, or raw bytes of
/// 1, 2, 4 or 8 bytes read as a signed integer of that size).
bool scalarInteger(const Arg &A, long long &Out) {
  if (A.IsBuffer)
    return false;
  size_t Bytes = A.Type == DType::U8 ? A.Scalar.size() : dtypeSize(A.Type);
  if (A.Type != DType::U8 && isFloating(A.Type))
    return false;
  const bool Unsigned = A.Type == DType::U8 && Bytes == 1;
  const unsigned char *P = A.Scalar.data();
  switch (Bytes) {
  case 1:
    Out = Unsigned ? static_cast<long long>(P[0])
                   : static_cast<long long>(static_cast<signed char>(P[0]));
    return true;
  case 2: {
    int16_t V;
    std::memcpy(&V, P, 2);
    Out = V;
    return true;
  }
  case 4: {
    int32_t V;
    std::memcpy(&V, P, 4);
    Out = V;
    return true;
  }
  case 8: {
    int64_t V;
    std::memcpy(&V, P, 8);
    Out = V;
    return true;
  }
  }
  return false;
}

/// The rows of each output whose row length the job gives: from the
/// length, or from the scalar argument holding it. Only float outputs the
/// shadow mirrors are checked per row; those whose rows do not fit keep the
/// per-buffer check, with the reason in RowNote.
void resolveRows(Job &Jb) {
  for (size_t I = 0; I < Jb.Args.size(); ++I) {
    Arg &A = Jb.Args[I];
    const bool Mirrored = I < Jb.Shadow.Promote.size() && Jb.Shadow.Promote[I];
    if (!A.IsBuffer || !A.Output || A.Type != DType::F32 || !Mirrored ||
        (!A.RowLength && A.RowLengthArg < 0)) {
      A.RowLength = 0;
      continue;
    }
    size_t Len = A.RowLength;
    std::string From = std::to_string(Len);
    if (A.RowLengthArg >= 0) {
      long long V = 0;
      if (A.RowLengthArg >= static_cast<int>(Jb.Args.size()) ||
          !scalarInteger(Jb.Args[A.RowLengthArg], V)) {
        A.RowNote = A.Name + ": per buffer (the row length argument is not "
                             "an integer scalar)";
        continue;
      }
      From = Jb.Args[A.RowLengthArg].Name + " = " + std::to_string(V);
      if (V <= 0) {
        A.RowNote = A.Name + ": per buffer (row length " + From + ")";
        continue;
      }
      Len = static_cast<size_t>(V);
    }
    bool Shared = A.SameAs >= 0;
    for (const Arg &O : Jb.Args)
      Shared |= O.IsBuffer && O.SameAs == static_cast<int>(I);
    if (Shared) {
      A.RowNote = A.Name + ": per buffer (its memory is shared with another "
                           "argument)";
    } else if (A.Count % Len) {
      A.RowNote = A.Name + ": per buffer (rows of " + From +
                  " elements do not divide its " + std::to_string(A.Count) +
                  " elements)";
    } else if (A.Count / Len > 1) {
      A.RowLength = Len;
      A.Rows = A.Count / Len;
      A.RowNote = A.Name + ": per row (" + std::to_string(A.Rows) +
                  " rows of " + From + ")";
    }
  }
}

} // namespace

bool parseJob(const Json &J, Job &Jb, std::string &Error) {
  namespace P = proto::job;
  Jb.Device = static_cast<int>(J[P::Device].integer(0));
  if (!parseVariants(J, Jb, Error))
    return false;
  for (const Json &A : J[P::Args].items())
    if (!parseArg(A, Jb, Error))
      return false;
  if (!J[P::Seeds].isNull()) {
    Jb.Seeds.clear();
    for (const Json &S : J[P::Seeds].items())
      Jb.Seeds.push_back(static_cast<unsigned>(S.integer(1)));
  }
  const Json &Timing = J[P::Timing];
  Jb.Runs = static_cast<int>(
      Timing[proto::timing::Runs].integer(Job::Defaults::Runs));
  Jb.Warmup = static_cast<int>(
      Timing[proto::timing::Warmup].integer(Job::Defaults::Warmup));
  Jb.FlushL2 = Timing[proto::timing::FlushL2].boolean(Job::Defaults::FlushL2);
  Jb.RelTol = J[P::RelTol].number(-1);
  Jb.TimeLimit = J[P::TimeLimit].number(-1);
  Jb.Race = J[P::Race].boolean(false);
  Jb.FpModel = J[P::FpModel].string();
  Jb.OrigRuns = static_cast<int>(
      J[P::OrigRuns].integer(Job::Defaults::OrigRuns));
  if (Jb.OrigRuns < 1 || Jb.OrigRuns > Job::Defaults::MaxOrigRuns) {
    Error = "orig_runs must be 1 to " +
            std::to_string(Job::Defaults::MaxOrigRuns) + ", not " +
            std::to_string(Jb.OrigRuns);
    return false;
  }
  if (!Jb.FpModel.empty() && Jb.FpModel != "strict" &&
      Jb.FpModel != "reassoc" && Jb.FpModel != "fast") {
    Error = "fp_model must be strict, reassoc or fast, not '" + Jb.FpModel +
            "'";
    return false;
  }
  const Json &Sh = J[P::Shadow];
  if (!Sh.isNull()) {
    namespace S = proto::shadow;
    Jb.Shadow.Present = true;
    Jb.Shadow.Module = Sh[S::Module].string();
    Jb.Shadow.Entry = Sh[S::Entry].string();
    Jb.Shadow.Shmem = static_cast<unsigned>(Sh[S::Shmem].integer(0));
    for (const Json &P : Sh[S::Promote].items())
      Jb.Shadow.Promote.push_back(P.boolean(false));
    // The shadow is one kernel launched with the baseline's grid and block.
    if (Jb.Variants[0].IsLibrary) {
      Error = "a region baseline has no fp64 shadow";
      return false;
    }
  }
  resolveRows(Jb);
  Jb.LockDir = J[P::GpuLock][proto::gpu_lock::Dir].string();
  Jb.LockWaitFlag = J[P::GpuLock][proto::gpu_lock::WaitFlag].string();
  return parseReference(J[P::Reference], Jb, Error);
}

void loadVariants(Job &Jb) {
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
}

void allocateBuffers(WorkerContext &Ctx, Job &Jb) {
  for (Arg &A : Jb.Args)
    if (A.IsBuffer && A.SameAs < 0)
      Ctx.check(cuMemAlloc(&A.Alloc, A.bytes() + 2 * GuardBytes), "cuMemAlloc");
}

void resetBuffers(WorkerContext &Ctx, Job &Jb) {
  for (Arg &A : Jb.Args) {
    if (!A.IsBuffer || A.SameAs >= 0)
      continue;
    Ctx.check(cuMemsetD8(A.Alloc, GuardByte, GuardBytes), "guard");
    Ctx.check(cuMemsetD8(A.data() + A.bytes(), GuardByte, GuardBytes), "guard");
    if (A.Output && !A.Input)
      Ctx.check(cuMemsetD8(A.data(), PoisonByte, A.bytes()), "poison");
    else
      Ctx.check(cuMemcpyDtoD(A.data(), A.Pristine, A.bytes()), "reset");
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
    CUresult R = V.Lib.run(Params, Ptrs, Stream, Why);
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

} // namespace co_runtime
