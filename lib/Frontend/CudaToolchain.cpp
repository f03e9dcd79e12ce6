//===- CudaToolchain.cpp - Locate CUDA and clang's resource headers -------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Frontend/CudaToolchain.h"
#include "cuda-opt/Frontend/NvccCompat.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/VersionTuple.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#ifndef CUDA_OPT_CLANG_RESOURCE_DIR
#define CUDA_OPT_CLANG_RESOURCE_DIR ""
#endif

using namespace llvm;

namespace cuda_opt {

static bool isCudaInstall(StringRef Dir) {
  SmallString<256> P(Dir);
  sys::path::append(P, "include", "cuda_runtime.h");
  return sys::fs::exists(P);
}

static bool isResourceDir(StringRef Dir) {
  SmallString<256> P(Dir);
  sys::path::append(P, "include", "__clang_cuda_runtime_wrapper.h");
  return sys::fs::exists(P);
}

static Expected<std::string> findCuda(const ToolchainOptions &Opts) {
  if (!Opts.CudaPath.empty()) {
    if (isCudaInstall(Opts.CudaPath))
      return Opts.CudaPath;
    return createStringError(
        inconvertibleErrorCode(),
        "--cuda-path '%s' is not a CUDA installation (no "
        "include/cuda_runtime.h); pass the directory that contains "
        "bin/nvcc and include/",
        Opts.CudaPath.c_str());
  }
  if (std::optional<std::string> Env = sys::Process::GetEnv("CUDA_PATH")) {
    if (isCudaInstall(*Env))
      return *Env;
    return createStringError(
        inconvertibleErrorCode(),
        "CUDA_PATH '%s' is not a CUDA installation (no include/cuda_runtime.h); "
        "fix or unset CUDA_PATH, or pass --cuda-path",
        Env->c_str());
  }
  if (isCudaInstall("/usr/local/cuda"))
    return std::string("/usr/local/cuda");
  return createStringError(inconvertibleErrorCode(),
                           "no CUDA installation found (looked at CUDA_PATH "
                           "and /usr/local/cuda); install the CUDA toolkit or "
                           "pass --cuda-path=DIR");
}

static Expected<std::string> findResourceDir(const ToolchainOptions &Opts) {
  if (!Opts.ResourceDir.empty()) {
    if (isResourceDir(Opts.ResourceDir))
      return Opts.ResourceDir;
    return createStringError(
        inconvertibleErrorCode(),
        "--resource-dir '%s' does not hold clang's resource headers (no "
        "include/__clang_cuda_runtime_wrapper.h); pass the directory printed "
        "by 'clang -print-resource-dir'",
        Opts.ResourceDir.c_str());
  }
  // Carried next to the binary: <bin>/../lib/clang/22 or <bin>/clang-resource.
  if (!Opts.ExecutablePath.empty()) {
    StringRef BinDir = sys::path::parent_path(Opts.ExecutablePath);
    SmallString<256> Carried(BinDir);
    sys::path::append(Carried, "clang-resource");
    if (isResourceDir(Carried))
      return std::string(Carried);
    SmallString<256> Installed(BinDir);
    sys::path::append(Installed, "..", "lib", "clang", "22");
    if (isResourceDir(Installed))
      return std::string(Installed);
  }
  if (isResourceDir(CUDA_OPT_CLANG_RESOURCE_DIR))
    return std::string(CUDA_OPT_CLANG_RESOURCE_DIR);
  return createStringError(
      inconvertibleErrorCode(),
      "clang resource headers not found (looked next to the cuda-opt binary "
      "and in '%s'); pass --resource-dir=DIR or unpack them into "
      "<bindir>/clang-resource",
      CUDA_OPT_CLANG_RESOURCE_DIR);
}

/// GCC's <omp.h> for this machine's architecture, the newest version's:
/// what nvcc's host compiler (gcc) includes for `#include <omp.h>`, with or
/// without -fopenmp. Empty when clang's resource directory has its own
/// omp.h (libomp installed) or no GCC has one.
static std::string findHostOmpHeader(StringRef ResourceDir) {
  SmallString<256> Own(ResourceDir);
  sys::path::append(Own, "include", "omp.h");
  if (sys::fs::exists(Own))
    return "";
  std::string Arch =
      Triple(sys::getDefaultTargetTriple()).getArchName().str();
  std::string Best;
  VersionTuple BestVersion;
  for (StringRef Base : {"/usr/lib/gcc", "/usr/lib64/gcc", "/usr/local/lib/gcc"}) {
    std::error_code EC;
    for (sys::fs::directory_iterator T(Base, EC), E; !EC && T != E;
         T.increment(EC)) {
      if (!sys::path::filename(T->path()).starts_with(Arch + "-"))
        continue;
      std::error_code EC2;
      for (sys::fs::directory_iterator V(T->path(), EC2); !EC2 && V != E;
           V.increment(EC2)) {
        VersionTuple Version;
        if (Version.tryParse(sys::path::filename(V->path())))
          continue;
        SmallString<256> Header(V->path());
        sys::path::append(Header, "include", "omp.h");
        if (sys::fs::exists(Header) && (Best.empty() || Version > BestVersion)) {
          Best = std::string(Header);
          BestVersion = Version;
        }
      }
    }
  }
  return Best;
}

Expected<Toolchain> Toolchain::discover(const ToolchainOptions &Opts) {
  Toolchain TC;
  Expected<std::string> Cuda = findCuda(Opts);
  if (!Cuda)
    return Cuda.takeError();
  Expected<std::string> Resource = findResourceDir(Opts);
  if (!Resource)
    return Resource.takeError();
  TC.CudaPath = *Cuda;
  TC.ResourceDir = *Resource;
  TC.GpuArch = Opts.GpuArch;
  TC.CudaLegacy = Opts.CudaLegacy;
  TC.HostOmpHeader = findHostOmpHeader(TC.ResourceDir);
  return TC;
}

std::vector<std::string>
Toolchain::parseArguments(CudaSide Side, ArrayRef<std::string> UserArgs) const {
  std::vector<std::string> Args = {
      "clang++",
      "-x",
      "cuda",
      Side == CudaSide::Host ? "--cuda-host-only" : "--cuda-device-only",
      "--cuda-path=" + CudaPath,
      "--cuda-gpu-arch=" + GpuArch,
      "-resource-dir",
      ResourceDir,
      "-nocudalib",
      "-std=c++17",
      "-Wno-unknown-cuda-version",
      "-ferror-limit=20",
      // clang 22 knows CUDA up to 12.9; without an SDK version the device
      // side falls back to the pre-9.2 launch ABI (cudaConfigureCall) and
      // rejects every <<<>>> in host code.
      "-Xclang",
      "-target-sdk-version=12.9",
  };
  // CUDA 13 keeps libcu++ (cuda/std/...) under include/cccl; nvcc adds it
  // implicitly, clang 22 does not. <cooperative_groups.h> needs it.
  SmallString<256> Cccl(CudaPath);
  sys::path::append(Cccl, "include", "cccl");
  if (sys::fs::is_directory(Cccl)) {
    Args.push_back("-isystem");
    Args.push_back(std::string(Cccl));
  }
  // Host min/max overloads nvcc has and clang's CUDA headers lack; a
  // virtual file each parse maps (NvccCompat.h).
  Args.push_back("-include");
  Args.push_back(nvccCompatHeaderPath().str());
  if (CudaLegacy) {
    Args.push_back("-include");
    Args.push_back(cudaLegacyHeaderPath().str());
  }
  // <omp.h> where nvcc's host compiler finds it, searched after every other
  // directory (NvccCompat.h).
  if (!HostOmpHeader.empty()) {
    Args.push_back("-idirafter");
    Args.push_back(hostCompilerHeaderDir().str());
  }
  Args.insert(Args.end(), UserArgs.begin(), UserArgs.end());
  return Args;
}

std::vector<std::string> filterParseFlags(ArrayRef<std::string> CommandLine) {
  std::vector<std::string> Out;
  static const char *const WithValue[] = {"-I", "-isystem", "-D", "-U",
                                          "-include", "--include-path",
                                          "--define-macro", "-iquote"};
  for (size_t I = 0; I < CommandLine.size(); ++I) {
    StringRef A = CommandLine[I];
    bool Matched = false;
    for (const char *Flag : WithValue) {
      if (A == Flag && I + 1 < CommandLine.size()) {
        StringRef F = Flag;
        // nvcc spells some flags long; translate them to clang's.
        if (F == "--include-path")
          F = "-I";
        else if (F == "--define-macro")
          F = "-D";
        Out.push_back(F.str());
        Out.push_back(CommandLine[++I]);
        Matched = true;
        break;
      }
      if (A.starts_with(Flag) && !StringRef(Flag).starts_with("--")) {
        Out.push_back(A.str());
        Matched = true;
        break;
      }
    }
    if (Matched)
      continue;
    // Relocatable device code (kernels launching kernels): nvcc's spellings
    // and clang's.
    if (A == "-rdc=true" || A == "--relocatable-device-code=true" ||
        A == "-dc" || A == "--device-c" || A == "-fgpu-rdc") {
      Out.push_back("-fgpu-rdc");
      continue;
    }
    if (A.starts_with("-std=") || A.starts_with("--std="))
      Out.push_back(("-std=" + A.substr(A.find('=') + 1)).str());
  }
  return Out;
}

} // namespace cuda_opt
