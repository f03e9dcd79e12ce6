//===- LaunchAliasing.h - Can a kernel's pointer arguments alias? -*- C++ -*-===//
//
// Part of cuda-opt. The facts restrict-const needs before it adds
// `__restrict__`: how else the kernel is reached, which globals may carry a
// pointer into it, and whether each launch passes distinct allocations. Each
// returns why aliasing cannot be ruled out, phrased for the user, or nothing.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_LAUNCHALIASING_H
#define CUDA_OPT_ANALYSIS_LAUNCHALIASING_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

/// The declarations of the kernel: the definition and every prototype.
std::vector<const clang::FunctionDecl *> kernelDecls(const KernelInfo &K);

/// The function bodies whose uses decide constness: the definition and, for
/// a template, each implicit instantiation.
std::vector<const clang::FunctionDecl *> analysedBodies(const KernelInfo &K);

/// A place that names the kernel other than as the callee of a <<<>>>
/// launch. With \p ForRestrict, any such place counts except the CUDA
/// runtime's attribute and occupancy queries; without it, only places that
/// would stop compiling when the parameter types change count.
std::optional<std::string> foreignKernelUse(clang::ASTContext &Ctx,
                                            const KernelInfo &K,
                                            bool ForRestrict);

/// A global that may hold a pointer and that the kernel, or a function it
/// calls, reads.
std::optional<std::string> pointerGlobalBlocker(clang::ASTContext &Ctx,
                                                const KernelInfo &K);

/// Why \p V might point into memory another variable also points into, or
/// nothing when it only ever holds its own cudaMalloc result (or null).
/// Uses inside \p Swaps are not looked at: a caller that passes every swap
/// of two variables (a ping-pong `std::swap(cur, next)`) and checks both
/// with them knows that each holds one of the two allocations, never both
/// the same.
std::optional<std::string>
notOwnAllocation(clang::ASTContext &Ctx, const clang::VarDecl *V,
                 llvm::ArrayRef<clang::SourceRange> Swaps = {});

/// Why the pointer arguments of launch \p L might alias, or nothing.
std::optional<std::string> unprovableLaunch(clang::ASTContext &Ctx,
                                            const KernelInfo &K,
                                            const LaunchSite &L);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_LAUNCHALIASING_H
