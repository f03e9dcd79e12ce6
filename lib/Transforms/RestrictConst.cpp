//===- RestrictConst.cpp - const and __restrict__ on kernel pointers -----===//
//
// Part of cuda-opt.
//
// restrict-const adds `const` to the pointee of every pointer parameter the
// kernel never writes through, and `__restrict__` to the pointer parameters
// when no two of them can alias. Both let the compiler keep values in
// registers and use the read-only data path.
//
// const: every use of the parameter is followed up the expression tree until
// it is known to be a read (a load, a comparison, a conversion to a pointer to
// const, ...). A store through it, an atomic, a call that takes a non-const
// pointer or reference, a copy into a non-const pointer variable or a cast to
// a non-const pointer keeps the parameter as it is. Anything not understood
// counts as a write.
//
// __restrict__: proven at the launch sites. Every launch in the file must pass
// distinct variables that are only ever assigned from their own
// cudaMalloc/cudaMallocManaged/cudaMallocAsync (or null), the kernel must not
// be reachable any other way, and no pointer may reach the kernel by another
// route (a struct argument, a global, a pointer to pointers). When that fails
// only const is added, and a note says why.
//
// Every declaration of the kernel in the file is edited the same way, so the
// prototypes keep matching the definition.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/LaunchAliasing.h"
#include "cuda-opt/Analysis/PointerUses.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Transforms/Passes.h"

#include "clang/AST/TypeLoc.h"
#include "clang/Lex/Lexer.h"
#include <optional>

using namespace clang;
using namespace llvm;

namespace cuda_opt {
namespace {

/// A use that keeps a parameter from becoming const or __restrict__.
struct Finding {
  std::string What; ///< "'p' is written through at f.cu:3:5"
};

/// Facts about one pointer parameter, gathered over the definition and, for
/// a template, every instantiation.
struct ParamFacts {
  bool Editable = false;   ///< A pointer whose type can be edited.
  std::string NotEditable; ///< Why not, when it is a pointer.
  bool PointeeIsPointer = false;
  bool AlreadyConst = false;
  bool AlreadyRestrict = false;
  std::optional<Finding> Write;   ///< A possible write through it.
  std::optional<Finding> Rebound; ///< The parameter itself reassigned.
};


//===----------------------------------------------------------------------===//
// The transform
//===----------------------------------------------------------------------===//

/// One edit site: a declaration's parameter and where its text changes.
struct ParamEdit {
  SourceLocation ConstLoc;    ///< Insert "const " here.
  SourceLocation RestrictLoc; ///< Insert "__restrict__ " here.
  bool HasRestrict = false;   ///< This declaration already has it.
};

/// The parameters (by index) that gain const and __restrict__.
struct RestrictConstPlan : TransformPlan {
  std::vector<unsigned> ConstParams;
  std::vector<unsigned> RestrictParams;
  std::string RestrictBlocker; ///< Non-empty when restrict was not proven.
};

class RestrictConst : public TransformWithPlan<RestrictConstPlan> {
public:
  StringRef getName() const override { return "restrict-const"; }
  StringRef getSummary() const override {
    return "add const to read-only pointer parameters and __restrict__ when "
           "the launch sites prove no aliasing";
  }

  Expected<RestrictConstPlan> makePlan(const KernelTarget &T,
                                       const ParamValues &P) const override {
    Expected<RestrictConstPlan> Pl = planParams(T);
    if (Pl && !Pl->RestrictBlocker.empty())
      Pl->Notes.push_back("restrict-const: kernel '" + T.Kernel.name() +
                          "': added const only; __restrict__ is not proven: " +
                          Pl->RestrictBlocker);
    return Pl;
  }

  Expected<tooling::Replacements>
  applyPlan(const KernelTarget &T,
            const RestrictConstPlan &Plan) const override {
    const SourceManager &SM = T.getSourceManager();
    tooling::Replacements R;
    for (const FunctionDecl *D : kernelDecls(T.Kernel)) {
      for (unsigned I : Plan.ConstParams) {
        Expected<ParamEdit> PE = editSite(T, D->getParamDecl(I));
        if (!PE)
          return PE.takeError();
        if (Error E =
                R.add(tooling::Replacement(SM, PE->ConstLoc, 0, "const ")))
          return std::move(E);
      }
      for (unsigned I : Plan.RestrictParams) {
        Expected<ParamEdit> PE = editSite(T, D->getParamDecl(I));
        if (!PE)
          return PE.takeError();
        if (PE->HasRestrict)
          continue;
        if (Error E = R.add(
                tooling::Replacement(SM, PE->RestrictLoc, 0, "__restrict__ ")))
          return std::move(E);
      }
    }
    return R;
  }

private:
  static std::string quoted(const NamedDecl *D) {
    return "'" + D->getNameAsString() + "'";
  }

  /// Where `const` and `__restrict__` go in one declaration's parameter, or
  /// why that text cannot be edited.
  Expected<ParamEdit> editSite(const KernelTarget &T,
                               const ParmVarDecl *PVD) const {
    const SourceManager &SM = T.getSourceManager();
    const LangOptions &LO = T.Ctx.getLangOpts();
    std::string Who = "parameter " + quoted(PVD);
    const TypeSourceInfo *TSI = PVD->getTypeSourceInfo();
    if (!TSI)
      return refuse(Who + " has no written type");
    PointerTypeLoc PTL =
        TSI->getTypeLoc().getUnqualifiedLoc().getAsAdjusted<PointerTypeLoc>();
    if (!PTL)
      return refuse(Who + " is not spelled as a pointer (a typedef or alias "
                          "hides the '*')");
    SourceLocation Star = PTL.getStarLoc();
    if (Star.isInvalid() || Star.isMacroID())
      return refuse(Who + " is declared inside a macro expansion; cuda-opt "
                          "does not edit macro bodies");
    ParamEdit PE;
    PE.HasRestrict = PVD->getType().isRestrictQualified();
    PE.RestrictLoc = Lexer::getLocForEndOfToken(Star, 0, SM, LO);
    TypeLoc Pointee = PTL.getPointeeLoc();
    if (Pointee.getUnqualifiedLoc().getAsAdjusted<PointerTypeLoc>()) {
      // `float **p` becomes `float *const *p`.
      PE.ConstLoc = Star;
    } else {
      SourceLocation Begin = Pointee.getBeginLoc();
      if (Begin.isMacroID()) {
        SourceLocation MacroBegin;
        if (!Lexer::isAtStartOfMacroExpansion(Begin, SM, LO, &MacroBegin))
          return refuse(Who + " has a pointee type written inside a macro "
                              "expansion");
        Begin = MacroBegin;
      }
      PE.ConstLoc = Begin;
    }
    if (PE.ConstLoc.isInvalid() || PE.RestrictLoc.isInvalid() ||
        !SM.isWrittenInMainFile(PE.ConstLoc))
      return refuse(Who + " cannot be edited in place");
    return PE;
  }

  /// Decide what to add, or say why nothing can be added.
  Expected<RestrictConstPlan> planParams(const KernelTarget &T) const {
    const KernelInfo &K = T.Kernel;
    const SourceManager &SM = T.getSourceManager();
    std::string Kernel = "kernel '" + K.name() + "'";

    if (K.Template) {
      for (const NamedDecl *TP : *K.Template->getTemplateParameters())
        if (TP->isTemplateParameterPack())
          return refuse(Kernel + " is a variadic template, which "
                                 "restrict-const does not handle");
      for (const FunctionDecl *Spec : K.Template->specializations()) {
        if (Spec->getTemplateSpecializationKind() == TSK_ImplicitInstantiation)
          continue;
        SourceLocation Where = Spec->getPointOfInstantiation();
        if (Where.isInvalid())
          Where = Spec->getLocation();
        return refuse(Kernel +
                      " has an explicit instantiation or specialisation at " +
                      describeLocation(SM, Where) +
                      " whose signature would no longer match");
      }
    }
    for (const FunctionDecl *D : kernelDecls(K))
      if (!SM.isWrittenInMainFile(SM.getExpansionLoc(D->getLocation())))
        return refuse(Kernel + " is also declared at " +
                      describeLocation(SM, D->getLocation()) +
                      ", outside the file being rewritten");
    if (std::optional<std::string> Use = foreignKernelUse(T.Ctx, K, /*ForRestrict=*/false))
      return refuse(Kernel + " is used at " + *Use +
                    " other than by a launch; changing its parameter types "
                    "could break that use");

    // Facts per parameter.
    unsigned NumParams = K.Decl->getNumParams();
    std::vector<ParamFacts> Facts(NumParams);
    bool AnyPointer = false;
    for (unsigned I = 0; I < NumParams; ++I) {
      const ParmVarDecl *PVD = K.Decl->getParamDecl(I);
      const auto *PT = PVD->getType()->getAs<PointerType>();
      if (!PT)
        continue;
      QualType Pointee = PT->getPointeeType();
      if (Pointee->isFunctionType() || Pointee->isArrayType())
        continue;
      AnyPointer = true;
      ParamFacts &F = Facts[I];
      F.AlreadyConst = Pointee.isConstQualified();
      F.AlreadyRestrict = PVD->getType().isRestrictQualified();
      F.PointeeIsPointer = Pointee->isPointerType();
      F.Editable = true;
      for (const FunctionDecl *D : kernelDecls(K)) {
        Expected<ParamEdit> PE = editSite(T, D->getParamDecl(I));
        if (!PE) {
          F.Editable = false;
          F.NotEditable = toString(PE.takeError());
          break;
        }
      }
    }
    if (!AnyPointer)
      return refuse(Kernel + " has no pointer parameters");

    for (const FunctionDecl *Body : analysedBodies(K)) {
      if (Body->getNumParams() != NumParams)
        return refuse(Kernel + " has an instantiation with a different "
                               "number of parameters");
      PointerUses Uses(T.Ctx, Body);
      for (unsigned I = 0; I < NumParams; ++I) {
        ParamFacts &F = Facts[I];
        if (!F.Editable)
          continue;
        PointerUses::ParamUse U = Uses.param(I);
        if (U.Write && !F.Write)
          F.Write = Finding{*U.Write};
        if (U.Rebound && !F.Rebound)
          F.Rebound = Finding{*U.Rebound};
      }
    }

    RestrictConstPlan Pl;
    for (unsigned I = 0; I < NumParams; ++I) {
      const ParamFacts &F = Facts[I];
      if (F.Editable && !F.AlreadyConst && !F.Write)
        Pl.ConstParams.push_back(I);
    }
    std::optional<std::string> Blocker = restrictBlocker(T, Facts);
    if (Blocker) {
      Pl.RestrictBlocker = *Blocker;
    } else {
      for (unsigned I = 0; I < NumParams; ++I)
        if (Facts[I].Editable && !Facts[I].AlreadyRestrict)
          Pl.RestrictParams.push_back(I);
    }
    if (!Pl.ConstParams.empty() || !Pl.RestrictParams.empty())
      return Pl;

    // Nothing to do: say why, naming the first obstacle.
    std::string Why;
    for (unsigned I = 0; I < NumParams && Why.empty(); ++I)
      if (!Facts[I].NotEditable.empty())
        Why = Facts[I].NotEditable;
    if (!Why.empty())
      return refuse(Kernel + " cannot be edited: " + Why);
    bool AllRestrict = true;
    for (const ParamFacts &F : Facts)
      if (F.Editable && !F.AlreadyRestrict)
        AllRestrict = false;
    if (!Blocker || AllRestrict)
      return refuse("every pointer parameter of " + Kernel +
                    " is already const __restrict__ or written");
    std::string FirstWrite;
    for (const ParamFacts &F : Facts)
      if (F.Write && FirstWrite.empty())
        FirstWrite = F.Write->What;
    return refuse("every pointer parameter of " + Kernel +
                  " is already const or written" +
                  (FirstWrite.empty() ? "" : " (" + FirstWrite + ")") +
                  ", and __restrict__ is not proven: " + *Blocker);
  }

  //===--------------------------------------------------------------------===//
  // Aliasing
  //===--------------------------------------------------------------------===//


  /// Why the pointer parameters might alias, or nothing when they cannot.
  std::optional<std::string> restrictBlocker(const KernelTarget &T,
                                             ArrayRef<ParamFacts> Facts) const {
    const KernelInfo &K = T.Kernel;
    const SourceManager &SM = T.getSourceManager();
    std::string Kernel = "kernel '" + K.name() + "'";
    if (K.isExternC())
      return Kernel + " is extern \"C\", so it may be launched by name from "
                      "outside this file";
    if (K.Launches.empty())
      return Kernel + " is not launched in this file";
    if (std::optional<std::string> Use = foreignKernelUse(T.Ctx, K, /*ForRestrict=*/true))
      return Kernel + " is referenced at " + *Use +
             ", which may launch it with other arguments";
    for (unsigned I = 0; I < Facts.size(); ++I)
      if (Facts[I].Rebound)
        return Facts[I].Rebound->What;

    // No pointer may reach the kernel except through its pointer
    // parameters, and those must not point at pointers.
    std::vector<const FunctionDecl *> Bodies = analysedBodies(K);
    for (const FunctionDecl *FD : Bodies) {
      if (FD->isDependentContext() && K.Template && Bodies.size() > 1)
        continue; // The instantiations have the real types.
      for (const ParmVarDecl *PVD : FD->parameters()) {
        QualType Ty = PVD->getType();
        QualType Carried = Ty->isPointerType() ? Ty->getPointeeType() : Ty;
        if (mayHoldPointer(Carried))
          return "parameter " + quoted(PVD) + " of type '" +
                 Ty.getAsString(T.Ctx.getPrintingPolicy()) +
                 "' may carry a pointer that aliases another parameter";
      }
    }
    if (std::optional<std::string> G = pointerGlobalBlocker(T.Ctx, K))
      return *G;

    for (const LaunchSite &L : K.Launches)
      if (std::optional<std::string> Why = unprovableLaunch(T.Ctx, K, L))
        return "at the launch at " +
               describeLocation(SM, L.Call->getBeginLoc()) + ", " + *Why;
    return std::nullopt;
  }



};

} // namespace

std::unique_ptr<Transform> createRestrictConstTransform() {
  return std::make_unique<RestrictConst>();
}
} // namespace cuda_opt
