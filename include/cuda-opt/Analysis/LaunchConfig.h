//===- LaunchConfig.h - Evaluate <<<grid, block>>> arguments ----*- C++ -*-===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_LAUNCHCONFIG_H
#define CUDA_OPT_ANALYSIS_LAUNCHCONFIG_H

#include "cuda-opt/Analysis/KernelFinder.h"
#include <array>
#include <optional>

namespace cuda_opt {

using Dim3 = std::array<int64_t, 3>;

/// The value of a grid or block expression when it is known at compile time:
/// an integer constant, `dim3(a, b, c)` with constant arguments, or a local
/// `dim3 v(a, b)` / `const int n = ...` that is never modified afterwards.
std::optional<Dim3> evaluateDim3(const clang::Expr *E, clang::ASTContext &Ctx);

/// The block and grid expressions of a launch (nullptr if absent).
const clang::Expr *launchGridExpr(const LaunchSite &L);
const clang::Expr *launchBlockExpr(const LaunchSite &L);
/// The dynamic shared memory argument, or nullptr when defaulted.
const clang::Expr *launchSharedMemExpr(const LaunchSite &L);
/// The stream argument, or nullptr when defaulted.
const clang::Expr *launchStreamExpr(const LaunchSite &L);
/// The first host launch of \p K whose stream argument is not the default
/// stream (absent, or a constant 0 or null pointer), or nullptr. Rewrites
/// that replace a launch by library calls on the default stream refuse such
/// a launch.
const LaunchSite *firstLaunchOnStream(const KernelInfo &K,
                                      clang::ASTContext &Ctx);

/// Threads per block of a launch when known (x*y*z).
std::optional<int64_t> threadsPerBlock(const LaunchSite &L,
                                       clang::ASTContext &Ctx);

/// True when \p V is a local variable that is never written after its
/// initialisation (no assignment, increment, or address/non-const reference
/// taken) within \p Scope.
bool isNeverModifiedAfterInit(const clang::VarDecl *V, const clang::Stmt *Scope,
                              clang::ASTContext &Ctx);

/// The value of an integer expression that is constant in \p Scope:
/// constants, and locals initialised with one and never changed there.
std::optional<int64_t> evaluateIntIn(const clang::Expr *E,
                                     clang::ASTContext &Ctx,
                                     const clang::Stmt *Scope);

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_LAUNCHCONFIG_H
