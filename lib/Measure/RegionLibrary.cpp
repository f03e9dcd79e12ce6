//===- RegionLibrary.cpp - Build an outlined host region into a library ---===//
//
// Part of cuda-opt. A region variant (Capture/RegionCapture.h) is a whole
// file with the region outlined and the worker's entry appended; nvcc
// builds it into a shared library the worker dlopens (library kind
// `cudaopt_region`). Cached like cubins, by a hash of the text and flags.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Measure/Measure.h"
#include "cuda-opt/Frontend/NvccCompat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cuda_opt {

std::vector<std::string>
compileRegionLibraries(const Toolchain &TC, const std::vector<std::string> &Texts,
                       const CompileOptions &Opts, llvm::StringRef Dir,
                       std::vector<std::string> &Errors) {
  std::vector<std::string> Libs(Texts.size());
  Errors.assign(Texts.size(), "");
  sys::fs::create_directories(Dir);
  SmallString<256> Nvcc(TC.CudaPath);
  sys::path::append(Nvcc, "bin", "nvcc");
  std::vector<std::string> Base = {std::string(Nvcc), "-shared",
                                   "-Xcompiler", "-fPIC", "-O3", "-std=c++17",
                                   "-arch=" + Opts.Arch, "-w"};
  if (!Opts.SourcePath.empty()) {
    Base.push_back("-I");
    Base.push_back(sys::path::parent_path(Opts.SourcePath).str());
  }
  Base.insert(Base.end(), Opts.Flags.begin(), Opts.Flags.end());
  DefaultThreadPool Pool(Opts.Jobs ? hardware_concurrency(Opts.Jobs)
                                   : hardware_concurrency());
  for (size_t I = 0; I < Texts.size(); ++I)
    Pool.async([&, I] {
      std::string Text = standaloneText(TC, Texts[I], /*KeepLines=*/true);
      SHA256 H;
      H.update(Text);
      H.update(Opts.DependencyFingerprint);
      for (const std::string &A : Base)
        H.update(A + "\n");
      std::string Key = toHex(H.final(), /*LowerCase=*/true).substr(0, 32);
      SmallString<256> Cu(Dir), Lib(Dir), Log(Dir);
      sys::path::append(Cu, "region-" + Key + ".cu");
      sys::path::append(Lib, "region-" + Key + ".so");
      sys::path::append(Log, "region-" + Key + ".log");
      if (sys::fs::exists(Lib)) {
        Libs[I] = std::string(Lib);
        return;
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
      SmallString<256> Tmp(Lib);
      Tmp += ".tmp";
      std::vector<StringRef> Args(Base.begin(), Base.end());
      Args.push_back(Cu);
      Args.push_back("-o");
      Args.push_back(Tmp);
      Errors[I] = runNvcc(Args, Log);
      if (!Errors[I].empty()) {
        Errors[I] = "building the region library: " + Errors[I];
        sys::fs::remove(Tmp);
        return;
      }
      sys::fs::rename(Tmp, Lib);
      Libs[I] = std::string(Lib);
    });
  Pool.wait();
  return Libs;
}

} // namespace cuda_opt
