//===- KernelFinder.h - Find __global__ kernels and their launches -*- C++ -*-===//
//
// Part of cuda-opt. The inventory every other component starts from: which
// kernels the main file defines and which <<<>>> launches call them.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_KERNELFINDER_H
#define CUDA_OPT_ANALYSIS_KERNELFINDER_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/Support/JSON.h"
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

/// One `kernel<<<grid, block, shmem, stream>>>(args)` in host code.
struct LaunchSite {
  const clang::CUDAKernelCallExpr *Call = nullptr;
  /// The function the launch is written in.
  const clang::FunctionDecl *Caller = nullptr;
};

/// A __global__ function defined in the main file.
struct KernelInfo {
  /// The definition (the templated pattern for a template kernel).
  const clang::FunctionDecl *Decl = nullptr;
  /// Non-null when the kernel is a template.
  const clang::FunctionTemplateDecl *Template = nullptr;
  std::vector<LaunchSite> Launches;
  /// Launches written inside __global__ or __device__ functions (dynamic
  /// parallelism; they parse only with -fgpu-rdc). Not modelled: clang
  /// represents their configuration differently, so they are kept apart
  /// from Launches and the pipeline refuses every pass that reads or edits
  /// launches on such a kernel.
  std::vector<LaunchSite> DeviceLaunches;

  std::string name() const { return Decl->getNameAsString(); }
  bool isExternC() const { return Decl->isExternC(); }
};

/// All kernels defined (with a body) in the main file, in source order,
/// with the launch sites in the main file that call each.
std::vector<KernelInfo> findKernels(clang::ASTContext &Ctx);

/// The first preprocessor conditional (#if, #ifdef, #ifndef, #elif) in the
/// body of \p K whose condition names __CUDA_ARCH__, if any. cuda-opt
/// parses the host side, where __CUDA_ARCH__ is undefined, so code under
/// such a condition may be invisible to its analyses (a store through a
/// pointer that restrict-const would make const) while nvcc's device pass
/// compiles it.
std::optional<clang::SourceLocation>
firstArchConditional(const clang::ASTContext &Ctx, const KernelInfo &K);
/// Why no pass may rewrite \p K when it has such a conditional (the one
/// message the pipeline, the tuner and the prediction give), else nothing.
std::optional<std::string> archConditionalRefusal(const clang::ASTContext &Ctx,
                                                  const KernelInfo &K);

/// The kernel called \p Name, or nullptr.
const KernelInfo *lookupKernel(const std::vector<KernelInfo> &Kernels,
                               llvm::StringRef Name);

/// The symbol of \p K in a cubin: its mangled name, or for a template
/// kernel the specialization that every launch in the file calls (the
/// pattern's own name is not in the cubin); the pattern's name when the
/// launches call different specializations.
std::string launchedKernelSymbol(clang::ASTContext &Ctx, const KernelInfo &K);

/// "file:line:col" of a location, for reports.
std::string describeLocation(const clang::SourceManager &SM,
                             clang::SourceLocation Loc);

/// The kernel inventory as JSON (used by --list-kernels --json).
llvm::json::Value kernelInventoryToJSON(clang::ASTContext &Ctx,
                                        const KernelInfo &K);

/// The symbol the kernel has in device code (Itanium-mangled unless it is
/// extern "C"), as nvcc and clang both emit it.
std::string kernelSymbol(clang::ASTContext &Ctx, const clang::FunctionDecl *FD);

/// The source text of a node, as written.
std::string sourceText(const clang::ASTContext &Ctx, clang::SourceRange R);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_KERNELFINDER_H
