//===- LibraryCall.cpp - Variants that call a library instead of a kernel -===//
//
// Part of cuda-opt's runtime.
//
//===----------------------------------------------------------------------===//
#include "LibraryCall.h"

#include "WorkerProtocol.h"
#include "cudaopt/gemm.h"

#include <dlfcn.h>

namespace co_runtime {

bool LibraryCall::parse(const Json &J, size_t NumArgs, std::string &Error) {
  namespace P = cuda_opt::worker::library;
  Kind = J[P::Kind].string();
  Path = J[P::Path].string();
  Region = Kind == P::KindRegion;
  if (Kind != P::KindGemm && !Region) {
    Error = "unknown library kind '" + Kind + "'";
    return false;
  }
  if (Path.empty()) {
    Error = "library variant without a path";
    return false;
  }
  if (!Region)
    return parseGemm(J, NumArgs, Error);
  EntryName = J[P::Entry].string();
  if (EntryName.empty())
    EntryName = P::RegionEntryDefault;
  return true;
}

bool LibraryCall::parseGemm(const Json &J, size_t NumArgs,
                            std::string &Error) {
  namespace P = cuda_opt::worker::library;
  M = J[P::M].integer(0);
  N = J[P::N].integer(0);
  K = J[P::K].integer(0);
  Lda = J[P::Lda].integer(0);
  Ldb = J[P::Ldb].integer(0);
  Ldc = J[P::Ldc].integer(0);
  const std::string DType = J[P::DType].string();
  BF16 = DType == "bf16";
  F32 = DType == "f32";
  BRowMajor = J[P::BLayout].string() != P::BLayoutCol;
  A = static_cast<int>(J[P::A].integer(-1));
  B = static_cast<int>(J[P::B].integer(-1));
  C = static_cast<int>(J[P::C].integer(-1));
  Alpha = J[P::Alpha].number(1);
  Batch = J[P::Batch].integer(1);
  StrideA = J[P::StrideA].integer(0);
  StrideB = J[P::StrideB].integer(0);
  StrideC = J[P::StrideC].integer(0);
  Reassociate = J[P::Reassociate].boolean(false);
  LibraryAlgo = static_cast<int>(J[P::LibraryAlgo].integer(0));
  Beta = J[P::Beta].number(0);
  auto Bad = [&](int I) { return I < 0 || static_cast<size_t>(I) >= NumArgs; };
  if (M <= 0 || N <= 0 || K <= 0 || Bad(A) || Bad(B) || Bad(C)) {
    Error = "cudaopt_gemm variant needs positive m, n, k and buffer "
            "arguments a, b, c";
    return false;
  }
  return true;
}

bool LibraryCall::load(std::string &Error) {
  void *Lib = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    const char *Why = dlerror();
    Error = "cannot load " + Path + ": " + (Why ? Why : "?");
    return false;
  }
  // Each region's library exports the same symbol; RTLD_LOCAL and dlsym on
  // its own handle keep them apart.
  const std::string Symbol = Region ? EntryName : "cudaoptGemm";
  Entry = dlsym(Lib, Symbol.c_str());
  if (!Entry) {
    Error = Path + " has no " + Symbol;
    return false;
  }
  return true;
}

CUresult LibraryCall::run(std::vector<void *> &Params,
                          const std::vector<CUdeviceptr> &Ptrs,
                          CUstream Stream, std::string &Error) {
  return Region ? runRegion(Params, Stream, Error)
                : runGemm(Ptrs, Stream, Error);
}

CUresult LibraryCall::runRegion(std::vector<void *> &Params, CUstream Stream,
                                std::string &Error) {
  // extern "C" int entry(void **args, void *stream): the region orders its
  // work after and before Stream itself and returns a cudaError_t.
  using RegionFn = int (*)(void **, void *);
  int E = reinterpret_cast<RegionFn>(Entry)(Params.data(), Stream);
  if (E == 0)
    return CUDA_SUCCESS;
  Error = "region entry returned CUDA error " + std::to_string(E);
  return CUDA_ERROR_LAUNCH_FAILED;
}

CUresult LibraryCall::runGemm(const std::vector<CUdeviceptr> &Ptrs,
                              CUstream Stream, std::string &Error) {
  cudaoptGemmProblem P = {};
  P.M = static_cast<int>(M);
  P.N = static_cast<int>(N);
  P.K = static_cast<int>(K);
  P.Type = F32 ? CUDAOPT_GEMM_F32 : BF16 ? CUDAOPT_GEMM_BF16 : CUDAOPT_GEMM_F16;
  P.LayoutB = BRowMajor ? CUDAOPT_GEMM_B_ROW : CUDAOPT_GEMM_B_COL;
  P.A = reinterpret_cast<const void *>(Ptrs[A]);
  P.Lda = Lda;
  P.B = reinterpret_cast<const void *>(Ptrs[B]);
  P.Ldb = Ldb;
  P.C = reinterpret_cast<void *>(Ptrs[C]);
  P.Ldc = Ldc;
  P.Alpha = static_cast<float>(Alpha);
  P.Beta = static_cast<float>(Beta);
  P.Batch = static_cast<int>(Batch);
  P.StrideA = StrideA;
  P.StrideB = StrideB;
  P.StrideC = StrideC;
  P.Reassociate = Reassociate ? 1 : 0;
  P.LibraryAlgo = LibraryAlgo;
  using GemmFn = cudaError_t (*)(const cudaoptGemmProblem *, void *, size_t,
                                 cudaStream_t);
  cudaError_t E = reinterpret_cast<GemmFn>(Entry)(
      &P, nullptr, 0, reinterpret_cast<cudaStream_t>(Stream));
  if (E == cudaSuccess)
    return CUDA_SUCCESS;
  Error = "cudaoptGemm returned error " + std::to_string(static_cast<int>(E));
  return CUDA_ERROR_LAUNCH_FAILED;
}

} // namespace co_runtime
