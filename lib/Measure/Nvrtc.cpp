//===- Nvrtc.cpp - Compile device-only CUDA with NVRTC --------------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Measure/Nvrtc.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/Path.h"

#include <mutex>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/lsan_interface.h>
#define CUDA_OPT_WITH_LSAN 1
#endif
#endif

using namespace llvm;

namespace cuda_opt {

namespace {
// The subset of nvrtc.h used here (stable C ABI since CUDA 7).
using Program = void *;
using Result = int;
using CreateFn = Result (*)(Program *, const char *, const char *, int,
                            const char *const *, const char *const *);
using CompileProgramFn = Result (*)(Program, int, const char *const *);
using SizeFn = Result (*)(Program, size_t *);
using GetFn = Result (*)(Program, char *);
using DestroyFn = Result (*)(Program *);
using ErrorStringFn = const char *(*)(Result);

/// Held around each call into NVRTC (loading it included). NVRTC keeps some
/// of its memory reachable only through mappings of its own that
/// LeakSanitizer does not scan, so in the sanitizer build (docs/fuzzing.md)
/// every NVRTC compile reported a 72704-byte "leak" allocated from an
/// unknown module; what NVRTC allocates is not cuda-opt's to check. A no-op
/// in normal builds.
struct NvrtcCallScope {
  NvrtcCallScope() {
#ifdef CUDA_OPT_WITH_LSAN
    __lsan_disable();
#endif
  }
  ~NvrtcCallScope() {
#ifdef CUDA_OPT_WITH_LSAN
    __lsan_enable();
#endif
  }
};
} // namespace

Nvrtc *Nvrtc::get(StringRef CudaPath, std::string &Why) {
  static std::mutex M;
  static Nvrtc *Loaded = nullptr;
  static std::string LoadError;
  static bool Tried = false;
  std::lock_guard<std::mutex> L(M);
  if (!Tried) {
    Tried = true;
    SmallString<256> Lib(CudaPath);
    sys::path::append(Lib, "lib64", "libnvrtc.so");
    std::string Err;
    sys::DynamicLibrary D;
    {
      NvrtcCallScope Scope;
      D = sys::DynamicLibrary::getPermanentLibrary(Lib.c_str(), &Err);
    }
    if (!D.isValid()) {
      LoadError = "cannot load " + Lib.str().str() + ": " + Err;
    } else {
      auto *N = new Nvrtc();
      N->Create = D.getAddressOfSymbol("nvrtcCreateProgram");
      N->CompileFn = D.getAddressOfSymbol("nvrtcCompileProgram");
      N->LogSize = D.getAddressOfSymbol("nvrtcGetProgramLogSize");
      N->Log = D.getAddressOfSymbol("nvrtcGetProgramLog");
      N->CubinSize = D.getAddressOfSymbol("nvrtcGetCUBINSize");
      N->Cubin = D.getAddressOfSymbol("nvrtcGetCUBIN");
      N->Destroy = D.getAddressOfSymbol("nvrtcDestroyProgram");
      N->ErrorString = D.getAddressOfSymbol("nvrtcGetErrorString");
      SmallString<256> Inc(CudaPath);
      sys::path::append(Inc, "include");
      N->CudaInclude = std::string(Inc);
      if (N->Create && N->CompileFn && N->LogSize && N->Log && N->CubinSize &&
          N->Cubin && N->Destroy && N->ErrorString)
        Loaded = N;
      else
        LoadError = Lib.str().str() + " lacks the NVRTC entry points";
    }
  }
  if (!Loaded)
    Why = LoadError;
  return Loaded;
}

Expected<std::string> Nvrtc::compile(StringRef Text, StringRef Name,
                                     StringRef Arch,
                                     ArrayRef<std::string> Flags) const {
  std::string Source = Text.str(), FileName = Name.str();
  Program P = nullptr;
  auto Fail = [&](StringRef What, Result R) {
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             What.str().c_str(),
                             reinterpret_cast<ErrorStringFn>(ErrorString)(R));
  };
  Result Created;
  {
    NvrtcCallScope Scope;
    Created = reinterpret_cast<CreateFn>(Create)(
        &P, Source.c_str(), FileName.c_str(), 0, nullptr, nullptr);
  }
  if (Created)
    return Fail("nvrtcCreateProgram", Created);
  std::vector<std::string> Opts = {"--gpu-architecture=" + Arch.str(),
                                   "-I" + CudaInclude};
  bool HasStd = false;
  for (size_t I = 0; I < Flags.size(); ++I) {
    StringRef F(Flags[I]);
    // Only options NVRTC shares with nvcc; "-I dir" may come as two words.
    if ((F == "-I" || F == "-D" || F == "-U") && I + 1 < Flags.size()) {
      Opts.push_back(F.str() + Flags[++I]);
    } else if (F.starts_with("-I") || F.starts_with("-D") ||
               F.starts_with("-U")) {
      Opts.push_back(F.str());
    } else if (F.starts_with("-std=")) {
      Opts.push_back(F.str());
      HasStd = true;
    }
  }
  if (!HasStd)
    Opts.push_back("-std=c++17");
  std::vector<const char *> Argv;
  for (const std::string &O : Opts)
    Argv.push_back(O.c_str());
  Result R;
  {
    NvrtcCallScope Scope;
    R = reinterpret_cast<CompileProgramFn>(CompileFn)(
        P, static_cast<int>(Argv.size()), Argv.data());
  }
  std::string Out;
  if (R == 0) {
    size_t Size = 0;
    reinterpret_cast<SizeFn>(CubinSize)(P, &Size);
    Out.resize(Size);
    reinterpret_cast<GetFn>(Cubin)(P, Out.data());
  } else {
    size_t Size = 0;
    reinterpret_cast<SizeFn>(LogSize)(P, &Size);
    Out.resize(Size);
    reinterpret_cast<GetFn>(Log)(P, Out.data());
    while (!Out.empty() && Out.back() == '\0')
      Out.pop_back();
  }
  {
    NvrtcCallScope Scope;
    reinterpret_cast<DestroyFn>(Destroy)(&P);
  }
  if (R != 0)
    return createStringError(
        inconvertibleErrorCode(), "NVRTC: %s\n%s",
        reinterpret_cast<ErrorStringFn>(ErrorString)(R),
        StringRef(Out).take_front(2000).str().c_str());
  return Out;
}

} // namespace cuda_opt
