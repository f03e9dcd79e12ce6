//===- VariantCompiler.cpp - Compile variants to cubins, cached -----------===//
//
// Part of cuda-opt. NVRTC builds the rewritten file when it can (files
// without host code: library kernels); otherwise nvcc builds the whole file
// (host code too, so any program parses) and keeps only the device cubin.
// Builds run in parallel and are cached by a hash of everything that affects
// the output.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Measure/Measure.h"
#include "cuda-opt/Frontend/NvccCompat.h"
#include "cuda-opt/Measure/Nvrtc.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/MemoryBuffer.h"
#include <mutex>

using namespace llvm;

namespace cuda_opt {

std::string runNvcc(ArrayRef<StringRef> Args, StringRef Log) {
  std::optional<StringRef> Redirects[] = {std::nullopt, Log, Log};
  std::string ErrMsg;
  if (sys::ExecuteAndWait(Args[0], Args, std::nullopt, Redirects, 900, 0,
                          &ErrMsg) == 0)
    return "";
  std::string Text;
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Log))
    Text = (*B)->getBuffer().take_front(2000).str();
  return "nvcc failed" + (ErrMsg.empty() ? "" : " (" + ErrMsg + ")") + ": " +
         StringRef(Text).trim().str();
}

static std::string cacheDir(const CompileOptions &Opts) {
  if (!Opts.CacheDir.empty())
    return Opts.CacheDir;
  SmallString<256> Dir;
  if (std::optional<std::string> X = sys::Process::GetEnv("XDG_CACHE_HOME"))
    Dir = *X;
  else if (std::optional<std::string> H = sys::Process::GetEnv("HOME"))
    sys::path::append(Dir, *H, ".cache");
  else
    sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Dir);
  sys::path::append(Dir, "cuda-opt", "cubin");
  return std::string(Dir);
}

/// Write \p Data to \p Path; true on failure.
static bool writeBinary(StringRef Path, StringRef Data) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (EC)
    return true;
  OS << Data;
  OS.close();
  return OS.has_error();
}

/// The first line of a compiler log that reports an error (else its first
/// line).
static std::string firstError(StringRef Log) {
  SmallVector<StringRef> Lines;
  Log.split(Lines, '\n');
  for (StringRef L : Lines)
    if (L.contains("error"))
      return L.trim().str();
  return Lines.empty() ? "" : Lines.front().trim().str();
}

Expected<std::string> compileWithNvrtc(const Toolchain &TC,
                                       const VariantSource &V,
                                       const CompileOptions &Opts) {
  std::string Why;
  Nvrtc *N = Nvrtc::get(TC.CudaPath, Why);
  if (!N)
    return createStringError(inconvertibleErrorCode(), "%s", Why.c_str());
  std::vector<std::string> Flags = Opts.Flags;
  if (!Opts.SourcePath.empty())
    Flags.push_back("-I" + sys::path::parent_path(Opts.SourcePath).str());
  StringRef Name = Opts.SourcePath.empty()
                       ? StringRef("variant.cu")
                       : sys::path::filename(Opts.SourcePath);
  Expected<std::string> Cubin =
      N->compile(standaloneText(TC, V.Text, /*KeepLines=*/true), Name, Opts.Arch, Flags);
  if (!Cubin)
    return Cubin.takeError();
  // A template kernel the file never instantiates compiles to nothing under
  // NVRTC (nvcc instantiates it from the host code's launch).
  if (!V.Entry.empty() && StringRef(*Cubin).find(V.Entry) == StringRef::npos)
    return createStringError(inconvertibleErrorCode(),
                             "NVRTC's cubin has no symbol %s",
                             V.Entry.c_str());
  return Cubin;
}

std::vector<std::string> compileVariants(const Toolchain &TC,
                                         const std::vector<VariantSource> &Vs,
                                         const CompileOptions &Opts,
                                         std::vector<std::string> &Errors) {
  std::vector<std::string> Cubins(Vs.size());
  Errors.assign(Vs.size(), "");
  std::string Dir = cacheDir(Opts);
  sys::fs::create_directories(Dir);
  SmallString<256> Nvcc(TC.CudaPath);
  sys::path::append(Nvcc, "bin", "nvcc");
  std::vector<std::string> Base = {std::string(Nvcc), "-cubin", "-O3",
                                   "-std=c++17", "-arch=" + Opts.Arch, "-w"};
  if (!Opts.SourcePath.empty()) {
    Base.push_back("-I");
    Base.push_back(sys::path::parent_path(Opts.SourcePath).str());
  }
  Base.insert(Base.end(), Opts.Flags.begin(), Opts.Flags.end());

  // NVRTC builds device-only files; a program file (host headers) fails in
  // its first lines. The variants share the original's includes and host
  // code, so one attempt on the original decides for all of them.
  Expected<std::string> OriginalNvrtc =
      Vs.empty() ? Expected<std::string>(std::string())
                 : compileWithNvrtc(TC, Vs[0], Opts);
  const bool UseNvrtc = static_cast<bool>(OriginalNvrtc);
  std::string OriginalNvrtcError =
      UseNvrtc ? "" : firstError(toString(OriginalNvrtc.takeError()));

  DefaultThreadPool Pool(Opts.Jobs ? hardware_concurrency(Opts.Jobs)
                                   : hardware_concurrency());
  for (size_t I = 0; I < Vs.size(); ++I) {
    if (Vs[I].Library)
      continue; // A library call: nothing of the variant's own to build.
    Pool.async([&, I] {
      std::string Text = standaloneText(TC, Vs[I].Text, /*KeepLines=*/true);
      SHA256 H;
      H.update(Text);
      H.update(Opts.DependencyFingerprint);
      for (const std::string &A : Base)
        H.update(A + "\n");
      std::string Key = toHex(H.final(), /*LowerCase=*/true).substr(0, 32);
      SmallString<256> Cu(Dir), Cubin(Dir), Log(Dir);
      sys::path::append(Cu, Key + ".cu");
      sys::path::append(Cubin, Key + ".cubin");
      sys::path::append(Log, Key + ".log");
      if (sys::fs::exists(Cubin)) {
        Cubins[I] = std::string(Cubin);
        return;
      }
      SmallString<256> Tmp(Cubin);
      Tmp += ".tmp" + std::to_string(I);
      std::string NvrtcNote;
      if (!UseNvrtc) {
        NvrtcNote = (I == 0 ? "NVRTC could not build it, nvcc did: "
                            : "NVRTC could not build the original, nvcc "
                              "did: ") +
                    OriginalNvrtcError + "\n";
      } else if (Expected<std::string> Built =
                     I == 0 ? std::move(*OriginalNvrtc)
                            : compileWithNvrtc(TC, Vs[I], Opts)) {
        if (!writeBinary(Tmp, *Built)) {
          sys::fs::rename(Tmp, Cubin);
          writeBinary(Log, "compiled by NVRTC\n");
          Cubins[I] = std::string(Cubin);
          return;
        }
        sys::fs::remove(Tmp);
      } else {
        NvrtcNote = "NVRTC could not build it, nvcc did: " +
                    firstError(toString(Built.takeError())) + "\n";
      }
      {
        std::error_code EC;
        raw_fd_ostream OS(Cu, EC);
        if (EC) {
          Errors[I] = "cannot write " + Cu.str().str() + ": " + EC.message();
          return;
        }
        OS << Text;
      }
      std::vector<StringRef> Args(Base.begin(), Base.end());
      Args.push_back(Cu);
      Args.push_back("-o");
      Args.push_back(Tmp);
      Errors[I] = runNvcc(Args, Log);
      if (!Errors[I].empty()) {
        sys::fs::remove(Tmp);
        return;
      }
      sys::fs::rename(Tmp, Cubin);
      if (!NvrtcNote.empty())
        if (ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Log))
          writeBinary(Log, NvrtcNote + (*B)->getBuffer().str());
      Cubins[I] = std::string(Cubin);
    });
  }
  Pool.wait();
  return Cubins;
}

std::string projectHeaderFingerprint(const clang::SourceManager &SM,
                                     const Toolchain &TC) {
  std::vector<std::string> Files;
  clang::OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
    StringRef Name = It->first.getName();
    if ((Main && It->first == *Main) || Name.starts_with(TC.CudaPath) ||
        Name.starts_with(TC.ResourceDir) || Name.starts_with("/usr/"))
      continue;
    Files.push_back(Name.str());
  }
  llvm::sort(Files);
  SHA256 H;
  for (const std::string &F : Files) {
    H.update(F + "\n");
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(F))
      H.update((*B)->getBuffer());
  }
  return toHex(H.final(), /*LowerCase=*/true);
}

} // namespace cuda_opt
