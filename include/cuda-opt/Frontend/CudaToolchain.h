//===- CudaToolchain.h - Locate CUDA and clang's resource headers -*- C++ -*-===//
//
// Part of cuda-opt. Finds the CUDA installation and clang's resource directory
// and builds the clang command line used to parse CUDA sources.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_FRONTEND_CUDATOOLCHAIN_H
#define CUDA_OPT_FRONTEND_CUDATOOLCHAIN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace cuda_opt {

/// Which side of a CUDA translation unit clang parses.
enum class CudaSide { Host, Device };

/// Everything needed to turn a .cu file into a clang AST.
struct ToolchainOptions {
  /// Explicit --cuda-path; empty means CUDA_PATH, then /usr/local/cuda.
  std::string CudaPath;
  /// Explicit -resource-dir; empty means next to the binary, then the build's.
  std::string ResourceDir;
  /// GPU architecture the device side is checked for.
  std::string GpuArch = "sm_90";
  /// --cuda-legacy: map the runtime calls CUDA 13 removed whose successors do
  /// the same (NvccCompat.h).
  bool CudaLegacy = false;
  /// Path of the running executable (argv[0] resolved), used to find carried
  /// resource headers.
  std::string ExecutablePath;
};

/// A resolved toolchain: validated directories.
struct Toolchain {
  std::string CudaPath;
  std::string ResourceDir;
  std::string GpuArch;
  bool CudaLegacy = false; ///< --cuda-legacy (ToolchainOptions::CudaLegacy).
  /// The host compiler's <omp.h> (GCC's, which nvcc's host compiler finds
  /// without any flag) when clang's resource directory has none (libomp's
  /// headers not installed); empty otherwise. The parses see it, and only
  /// it, through a virtual directory searched last (NvccCompat.h).
  std::string HostOmpHeader;

  /// Resolve and validate the directories; the error says what is missing
  /// and how to point cuda-opt at it.
  static llvm::Expected<Toolchain> discover(const ToolchainOptions &Opts);

  /// The clang arguments (without the file name) to parse one side of a CUDA
  /// file, followed by \p UserArgs (include paths, defines, -std, ...).
  std::vector<std::string>
  parseArguments(CudaSide Side, llvm::ArrayRef<std::string> UserArgs) const;
};

/// Keep only the flags of a compiler command line (nvcc or clang) that affect
/// parsing: -I, -isystem, -D, -U, -include, -std, and relocatable device code
/// (nvcc -rdc=true / -dc become -fgpu-rdc). Everything else (code
/// generation, nvcc-only options, outputs) is dropped.
std::vector<std::string>
filterParseFlags(llvm::ArrayRef<std::string> CommandLine);

} // namespace cuda_opt

#endif // CUDA_OPT_FRONTEND_CUDATOOLCHAIN_H
