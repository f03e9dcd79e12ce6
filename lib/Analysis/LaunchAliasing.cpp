//===- LaunchAliasing.cpp - Can a kernel's pointer arguments alias? -------===//
//
// Part of cuda-opt.
//
// Proven at the launch sites: every launch in the file must pass distinct
// variables that are only ever assigned from their own
// cudaMalloc/cudaMallocManaged/cudaMallocAsync (or null), the kernel must not
// be reachable any other way, and no pointer may reach the kernel by another
// route (a struct argument, a global, a pointer to pointers).
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/LaunchAliasing.h"
#include "cuda-opt/Analysis/PointerUses.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

static std::string quoted(const NamedDecl *D) {
  return "'" + D->getNameAsString() + "'";
}

/// The declarations of the kernel: the definition and every prototype.
std::vector<const FunctionDecl *> kernelDecls(const KernelInfo &K) {
  std::vector<const FunctionDecl *> Decls;
  if (K.Template) {
    for (const RedeclarableTemplateDecl *TD : K.Template->redecls())
      Decls.push_back(cast<FunctionTemplateDecl>(TD)->getTemplatedDecl());
    return Decls;
  }
  for (const FunctionDecl *FD : K.Decl->redecls())
    Decls.push_back(FD);
  return Decls;
}

/// The function bodies whose uses decide constness: the definition and, for
/// a template, each implicit instantiation.
std::vector<const FunctionDecl *> analysedBodies(const KernelInfo &K) {
  std::vector<const FunctionDecl *> Bodies{K.Decl};
  if (K.Template)
    for (const FunctionDecl *Spec : K.Template->specializations())
      if (Spec->getTemplateSpecializationKind() == TSK_ImplicitInstantiation &&
          Spec->getBody())
        Bodies.push_back(Spec);
  return Bodies;
}

/// A place that names the kernel other than as the callee of a <<<>>>
/// launch. With \p ForRestrict, any such place counts except the CUDA
/// runtime's attribute and occupancy queries; without it, only places
/// that would stop compiling when the parameter types change count.
std::optional<std::string> foreignKernelUse(ASTContext &Ctx, const KernelInfo &K,
                                          bool ForRestrict) {
  class Finder : public RecursiveASTVisitor<Finder> {
  public:
    Finder(const KernelInfo &K, bool ForRestrict)
        : K(K), ForRestrict(ForRestrict) {}
    bool isKernel(const Decl *D) {
      const auto *FD = dyn_cast_or_null<FunctionDecl>(D);
      if (const auto *FTD = dyn_cast_or_null<FunctionTemplateDecl>(D))
        FD = FTD->getTemplatedDecl();
      if (!FD)
        return false;
      if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
        FD = Pattern;
      return FD->getCanonicalDecl() == K.Decl->getCanonicalDecl();
    }
    bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *Call) {
      // A launch outside the main file is not among the launches the
      // aliasing proof looks at, so only the type check may skip it.
      const SourceManager &SM = K.Decl->getASTContext().getSourceManager();
      if (!ForRestrict ||
          SM.isWrittenInMainFile(SM.getExpansionLoc(Call->getBeginLoc())))
        Callees.insert(Call->getCallee()->IgnoreParenImpCasts());
      return true;
    }
    bool VisitDeclRefExpr(DeclRefExpr *DRE) {
      if (isKernel(DRE->getDecl()))
        Refs.push_back(DRE);
      return true;
    }
    bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *ULE) {
      for (const NamedDecl *D : ULE->decls())
        if (isKernel(D)) {
          Refs.push_back(ULE);
          break;
        }
      return true;
    }
    const KernelInfo &K;
    bool ForRestrict;
    SmallPtrSet<const Expr *, 8> Callees;
    std::vector<const Expr *> Refs;
  } F(K, ForRestrict);
  const SourceManager &SM = Ctx.getSourceManager();
  // Only declarations that end after the kernel's first declaration can
  // name it; skipping the ones before (the included headers, mostly) makes
  // this walk, which legality checks repeat per candidate, cheap (issue 18:
  // multi-kernel files' dry runs spent a fifth of their time here).
  SourceLocation First =
      SM.getExpansionLoc(K.Decl->getCanonicalDecl()->getBeginLoc());
  if (K.Template)
    First = SM.getExpansionLoc(
        K.Template->getCanonicalDecl()->getBeginLoc());
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
    SourceLocation End = SM.getExpansionLoc(D->getEndLoc());
    if (First.isValid() && End.isValid() &&
        SM.isBeforeInTranslationUnit(End, First))
      continue;
    F.TraverseDecl(D);
  }
  for (const Expr *Ref : F.Refs) {
    if (F.Callees.count(Ref))
      continue;
    // Climb through casts and `&` to the call that receives the kernel.
    const Expr *E = Ref;
    bool CastToVoid = false;
    const CallExpr *Receiver = nullptr;
    while (true) {
      DynTypedNodeList Parents = Ctx.getParents(*E);
      if (Parents.empty())
        break;
      const auto *PE = Parents[0].get<Expr>();
      if (!PE)
        break;
      if (const auto *Cast = dyn_cast<CastExpr>(PE)) {
        if (Cast->getType()->isVoidPointerType())
          CastToVoid = true;
        E = PE;
        continue;
      }
      if (isa<ParenExpr>(PE) ||
          (isa<UnaryOperator>(PE) &&
           cast<UnaryOperator>(PE)->getOpcode() == UO_AddrOf)) {
        E = PE;
        continue;
      }
      Receiver = dyn_cast<CallExpr>(PE);
      break;
    }
    const FunctionDecl *Callee =
        Receiver ? Receiver->getDirectCallee() : nullptr;
    StringRef Name =
        Callee && Callee->getIdentifier() ? Callee->getName() : "";
    bool RuntimeCall = Name.starts_with("cuda");
    bool Query =
        Name.starts_with("cudaFunc") || Name.starts_with("cudaOccupancy");
    if (ForRestrict ? !Query : !(RuntimeCall || CastToVoid))
      return describeLocation(SM, Ref->getBeginLoc());
  }
  return std::nullopt;
}

/// A global that may hold a pointer and that the kernel, or a function it
/// calls, reads.
std::optional<std::string> pointerGlobalBlocker(ASTContext &Ctx,
                                              const KernelInfo &K) {
  class Finder : public RecursiveASTVisitor<Finder> {
  public:
    explicit Finder(const SourceManager &SM) : SM(SM) {}
    bool VisitDeclRefExpr(DeclRefExpr *DRE) {
      const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
      if (!Found && VD && VD->hasGlobalStorage() && !VD->isStaticLocal() &&
          !SM.isInSystemHeader(VD->getLocation()) &&
          mayHoldPointer(VD->getType()))
        Found = DRE;
      return true;
    }
    bool VisitCallExpr(CallExpr *CE) {
      const FunctionDecl *FD = CE->getDirectCallee();
      const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
      if (Def && Def->getBody() && !SM.isInSystemHeader(Def->getLocation()) &&
          Seen.insert(Def).second)
        Pending.push_back(Def);
      return true;
    }
    const SourceManager &SM;
    const DeclRefExpr *Found = nullptr;
    SmallPtrSet<const FunctionDecl *, 16> Seen;
    std::vector<const FunctionDecl *> Pending;
  } F(Ctx.getSourceManager());
  for (const FunctionDecl *Body : analysedBodies(K))
    F.Pending.push_back(Body);
  while (!F.Pending.empty() && !F.Found) {
    const FunctionDecl *FD = F.Pending.back();
    F.Pending.pop_back();
    F.TraverseStmt(FD->getBody());
  }
  if (!F.Found)
    return std::nullopt;
  return "the kernel reads the global " + quoted(F.Found->getDecl()) +
         " at " +
         describeLocation(Ctx.getSourceManager(), F.Found->getBeginLoc()) +
         ", which may hold a pointer into an argument";
}

/// Why \p V might point into memory another variable also points into, or
/// nothing when it only ever holds its own cudaMalloc result (or null).
std::optional<std::string> notOwnAllocation(ASTContext &Ctx,
                                          const VarDecl *V,
                                          ArrayRef<SourceRange> Swaps) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::string Name = quoted(V);
  if (!V->getType()->isPointerType())
    return Name + " is not a pointer variable";
  if (isa<ParmVarDecl>(V))
    return Name + " is a parameter of the launching function, so where it "
                  "points is decided by its callers";
  const Stmt *Scope = nullptr;
  const Decl *ScopeDecl = nullptr;
  if (V->isLocalVarDeclOrParm()) {
    const auto *Fn =
        dyn_cast_or_null<FunctionDecl>(V->getParentFunctionOrMethod());
    if (!Fn || !Fn->getBody())
      return Name + " is declared where cuda-opt cannot see its uses";
    Scope = Fn->getBody();
  } else {
    if (V->isExternallyVisible())
      return Name + " is a global with external linkage, which other files "
                    "may assign";
    ScopeDecl = Ctx.getTranslationUnitDecl();
  }
  if (const Expr *Init = V->getInit()) {
    const Expr *Bare = Init->IgnoreParenImpCasts();
    if (Bare->isValueDependent() ||
        !Bare->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull))
      return Name + " is initialised from '" +
             sourceText(Ctx, Init->getSourceRange()) +
             "', not from cudaMalloc";
  }
  std::vector<const DeclRefExpr *> Refs =
      Scope ? referencesTo(V, Scope) : referencesTo(V, ScopeDecl);
  for (const DeclRefExpr *Ref : Refs) {
    if (any_of(Swaps, [&](SourceRange Swap) {
          return !SM.isBeforeInTranslationUnit(Ref->getBeginLoc(),
                                               Swap.getBegin()) &&
                 !SM.isBeforeInTranslationUnit(Swap.getEnd(),
                                               Ref->getBeginLoc());
        }))
      continue;
    std::string Where = describeLocation(SM, Ref->getBeginLoc());
    const Expr *E = Ref;
    const Expr *Parent = nullptr;
    while (true) {
      DynTypedNodeList Ps = Ctx.getParents(*E);
      Parent = Ps.empty() ? nullptr : Ps[0].get<Expr>();
      if (Parent && isa<ParenExpr>(Parent)) {
        E = Parent;
        continue;
      }
      break;
    }
    if (!Parent)
      return Name + " is used at " + Where +
             " in a way cuda-opt cannot follow";
    if (const auto *ICE = dyn_cast<ImplicitCastExpr>(Parent))
      if (ICE->getCastKind() == CK_LValueToRValue)
        continue;
    if (isa<UnaryExprOrTypeTraitExpr>(Parent))
      continue;
    if (const auto *BO = dyn_cast<BinaryOperator>(Parent)) {
      if (BO->getOpcode() == BO_Assign && BO->getLHS() == E) {
        const Expr *RHS = BO->getRHS()->IgnoreParenImpCasts();
        if (!RHS->isValueDependent() &&
            RHS->isNullPointerConstant(Ctx,
                                       Expr::NPC_ValueDependentIsNotNull))
          continue;
        return Name + " is assigned at " + Where +
               " from something other than cudaMalloc";
      }
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(Parent)) {
      if (UO->getOpcode() == UO_AddrOf) {
        // `&v`, possibly cast to void**, must be what cudaMalloc fills.
        const Expr *Addr = UO;
        const CallExpr *Call = nullptr;
        while (true) {
          DynTypedNodeList Ps = Ctx.getParents(*Addr);
          const auto *Up = Ps.empty() ? nullptr : Ps[0].get<Expr>();
          if (Up && (isa<ParenExpr>(Up) || isa<CastExpr>(Up))) {
            Addr = Up;
            continue;
          }
          Call = dyn_cast_or_null<CallExpr>(Up);
          break;
        }
        if (isAllocationCall(Call) && Call->getNumArgs() > 0 &&
            Call->getArg(0) == Addr)
          continue;
        return "the address of " + Name + " is taken at " + Where +
               " other than for cudaMalloc";
      }
      if (UO->isIncrementDecrementOp())
        return Name + " is moved by pointer arithmetic at " + Where;
    }
    return Name + " is modified or aliased at " + Where;
  }
  return std::nullopt;
}

/// Why the pointer arguments of \p L might alias, or nothing. Every
/// argument that is or may be a pointer counts, also for parameters that
/// are not edited (a typedef'd pointer still aliases).
std::optional<std::string> unprovableLaunch(ASTContext &Ctx,
                                          const KernelInfo &K,
                                          const LaunchSite &L) {
  const FunctionDecl *Kernel = K.Decl;
  SmallPtrSet<const VarDecl *, 8> Seen;
  for (unsigned I = 0; I < L.Call->getNumArgs(); ++I) {
    QualType ArgType = L.Call->getArg(I)->getType();
    bool MayBePointer = ArgType->isPointerType() ||
                        ArgType->isDependentType() ||
                        (I < Kernel->getNumParams() &&
                         Kernel->getParamDecl(I)->getType()->isPointerType());
    if (!MayBePointer)
      continue;
    const Expr *Arg = L.Call->getArg(I);
    if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(Arg))
      Arg = Default->getExpr();
    Arg = Arg->IgnoreParenImpCasts();
    if (!Arg->isValueDependent() &&
        Arg->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull))
      continue;
    std::string Text = "'" + sourceText(Ctx, Arg->getSourceRange()) + "'";
    const auto *DRE = dyn_cast<DeclRefExpr>(Arg);
    const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
    if (!V)
      return "argument " + Text + " is not a plain pointer variable";
    if (!Seen.insert(V).second)
      return "'" + V->getNameAsString() + "' is passed twice";
    if (std::optional<std::string> Why = notOwnAllocation(Ctx, V))
      return Why;
  }
  return std::nullopt;
}

} // namespace cuda_opt
