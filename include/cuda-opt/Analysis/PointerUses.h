//===- PointerUses.h - What a kernel does with its pointer parameters -*- C++ -*-===//
//
// Part of cuda-opt. Whether a kernel may write through a pointer parameter
// (restrict-const adds `const` where it cannot) and whether it reassigns one,
// plus the small type facts the aliasing proof (LaunchAliasing.h) shares.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_ANALYSIS_POINTERUSES_H
#define CUDA_OPT_ANALYSIS_POINTERUSES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cuda_opt {

/// True when \p T is a pointer whose pointee is const.
bool pointsToConst(clang::QualType T);

/// True when a value of type \p T can carry a pointer: pointers, references,
/// and records or arrays holding one. Dependent types might.
bool mayHoldPointer(clang::QualType T, unsigned Depth = 0);

/// A call of cudaMalloc, cudaMallocManaged or cudaMallocAsync.
bool isAllocationCall(const clang::CallExpr *CE);

/// Every reference to \p D inside \p S (or inside the declaration \p Scope).
std::vector<const clang::DeclRefExpr *> referencesTo(const clang::ValueDecl *D,
                                                     const clang::Stmt *S);
std::vector<const clang::DeclRefExpr *>
referencesTo(const clang::ValueDecl *D, const clang::Decl *Scope);

class ParentLinks;

/// The uses of the pointer parameters of one function body. Built per body
/// so that a template pattern and its instantiations never share a parent
/// chain.
class PointerUses {
public:
  PointerUses(clang::ASTContext &Ctx, const clang::FunctionDecl *Body);
  ~PointerUses();

  struct ParamUse {
    /// The first possible write through the pointer, phrased for the user
    /// ("'p' is written through at f.cu:3:5").
    std::optional<std::string> Write;
    /// Where the parameter itself is reassigned, phrased the same way.
    std::optional<std::string> Rebound;
  };
  /// What the body does with parameter \p Index (a pointer).
  ParamUse param(unsigned Index) const;

private:
  clang::ASTContext &Ctx;
  const clang::FunctionDecl *Body;
  std::unique_ptr<ParentLinks> Links;
};

} // namespace cuda_opt

#endif // CUDA_OPT_ANALYSIS_POINTERUSES_H
