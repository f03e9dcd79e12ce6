//===- DamagedCode.cpp - Code clang rejected and nvcc compiles -----------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/DamagedCode.h"

#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

namespace {

/// An invalid variable or function, or an error node, and the function
/// holding it (null at file scope).
struct DamageSite {
  const FunctionDecl *Function = nullptr;
  SourceLocation Loc;
};

class DamageFinder : public RecursiveASTVisitor<DamageFinder> {
  using Base = RecursiveASTVisitor<DamageFinder>;

public:
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *D) {
    if (!D)
      return true;
    const FunctionDecl *Saved = Current;
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      Current = FD;
    // An invalid variable, or an invalid function (clang marks a template
    // instantiation invalid when its body has an invalid declaration).
    if ((isa<VarDecl>(D) || isa<FunctionDecl>(D)) && D->isInvalidDecl())
      Sites.push_back({Current, D->getLocation()});
    bool R = Base::TraverseDecl(D);
    Current = Saved;
    return R;
  }
  bool VisitRecoveryExpr(RecoveryExpr *E) {
    Sites.push_back({Current, E->getBeginLoc()});
    return true;
  }

  const FunctionDecl *Current = nullptr;
  std::vector<DamageSite> Sites;
};

/// Functions a body calls, constructs with, or names.
class CalleeCollector : public RecursiveASTVisitor<CalleeCollector> {
public:
  bool VisitCallExpr(CallExpr *E) {
    add(E->getDirectCallee());
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    add(E->getConstructor());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    add(dyn_cast<FunctionDecl>(E->getDecl()));
    return true;
  }
  void add(const FunctionDecl *FD) {
    if (FD)
      Callees.push_back(FD);
  }
  std::vector<const FunctionDecl *> Callees;
};

std::vector<DamageSite> findDamage(ASTContext &Ctx) {
  // A parse that did not accept an nvcc-compatible error had none at all
  // (SourceParser.cpp fails on any other).
  if (!Ctx.getDiagnostics().hasErrorOccurred())
    return {};
  // The frontend accepts such errors only outside system headers, and the
  // damage stays in the function holding the declaration (a local's uses,
  // the function's instantiations): CUDA's and the C++ library's headers
  // need no walk.
  const SourceManager &SM = Ctx.getSourceManager();
  DamageFinder F;
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (!SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      F.TraverseDecl(D);
  return std::move(F.Sites);
}

/// The function \p FD stands for in the source: the pattern of an
/// instantiation, the definition of a declaration.
const FunctionDecl *written(const FunctionDecl *FD) {
  if (const FunctionDecl *P = FD->getTemplateInstantiationPattern())
    FD = P;
  if (const FunctionDecl *Def = FD->getDefinition())
    FD = Def;
  return FD->getCanonicalDecl();
}

bool isDeviceOnly(const FunctionDecl *FD) {
  return FD &&
         (FD->hasAttr<CUDAGlobalAttr>() ||
          (FD->hasAttr<CUDADeviceAttr>() && !FD->hasAttr<CUDAHostAttr>()));
}

std::string describeSite(ASTContext &Ctx, const DamageSite &S) {
  return describeLocation(Ctx.getSourceManager(), S.Loc);
}

std::optional<std::string> kernelDamage(ASTContext &Ctx, const KernelInfo &K,
                                        const std::vector<DamageSite> &Sites) {
  if (Sites.empty())
    return std::nullopt;
  // Every function K's body reaches, its instantiations' bodies included.
  SmallVector<const FunctionDecl *, 16> Work = {K.Decl};
  if (K.Template)
    for (const FunctionDecl *Spec : K.Template->specializations())
      Work.push_back(Spec);
  // Functions of system headers hold no damage (findDamage): not walked.
  const SourceManager &SM = Ctx.getSourceManager();
  SmallPtrSet<const FunctionDecl *, 32> Reached;
  while (!Work.empty()) {
    const FunctionDecl *FD = Work.pop_back_val();
    if (const FunctionDecl *Def = FD->getDefinition())
      FD = Def;
    if (SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())) ||
        !Reached.insert(FD).second || !FD->hasBody())
      continue;
    CalleeCollector C;
    C.TraverseStmt(FD->getBody());
    Work.append(C.Callees.begin(), C.Callees.end());
  }
  SmallPtrSet<const FunctionDecl *, 32> ReachedWritten;
  for (const FunctionDecl *FD : Reached)
    ReachedWritten.insert(written(FD));
  const FunctionDecl *Kernel = written(K.Decl);
  for (const DamageSite &S : Sites) {
    if (!S.Function || !ReachedWritten.contains(written(S.Function)))
      continue;
    std::string Where =
        written(S.Function) == Kernel
            ? "contains"
            : "calls '" + S.Function->getNameAsString() + "', which contains";
    return "kernel '" + K.name() + "' " + Where +
           " code that clang rejects and nvcc 13 accepts (at " +
           describeSite(Ctx, S) +
           "); clang's AST of it is incomplete, so no pass rewrites it";
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> damagedKernelReason(ASTContext &Ctx,
                                               const KernelInfo &K) {
  return kernelDamage(Ctx, K, findDamage(Ctx));
}

std::optional<std::string> damagedCodeRefusal(ASTContext &Ctx,
                                              const KernelInfo &K,
                                              bool KernelLocal,
                                              bool RewritesHostRegion) {
  std::vector<DamageSite> Sites = findDamage(Ctx);
  if (Sites.empty())
    return std::nullopt;
  if (std::optional<std::string> Why = kernelDamage(Ctx, K, Sites))
    return Why;
  if (!KernelLocal)
    for (const DamageSite &S : Sites)
      if (!isDeviceOnly(S.Function))
        return (S.Function
                    ? "host function '" + S.Function->getNameAsString() + "'"
                    : std::string("file-scope code")) +
               " contains code that clang rejects and nvcc 13 accepts (at " +
               describeSite(Ctx, S) +
               "); launches there may be missing from cuda-opt's model, so "
               "only kernel-local passes (such as unroll) apply";
  if (RewritesHostRegion) {
    const DamageSite &S = Sites.front();
    return "this file has code that clang rejects and nvcc 13 accepts (at " +
           describeSite(Ctx, S) +
           "), which cuda-opt's model leaves incomplete; passes that rewrite "
           "a host region do not apply to it";
  }
  return std::nullopt;
}

} // namespace cuda_opt
