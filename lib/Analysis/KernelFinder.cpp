//===- KernelFinder.cpp - Find __global__ kernels and their launches -----===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/LaunchConfig.h"

#include "clang/AST/Attr.h"
#include "clang/AST/GlobalDecl.h"
#include "clang/AST/Mangle.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

namespace {
class Collector : public RecursiveASTVisitor<Collector> {
public:
  explicit Collector(ASTContext &Ctx) : Ctx(Ctx) {}
  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    const SourceManager &SM = Ctx.getSourceManager();
    if (!FD->hasAttr<CUDAGlobalAttr>() || !FD->doesThisDeclarationHaveABody())
      return true;
    if (!SM.isWrittenInMainFile(SM.getExpansionLoc(FD->getLocation())))
      return true;
    if (FD->isTemplateInstantiation())
      return true;
    KernelInfo K;
    K.Decl = FD;
    K.Template = FD->getDescribedFunctionTemplate();
    Kernels.push_back(K);
    return true;
  }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *Call) {
    const SourceManager &SM = Ctx.getSourceManager();
    if (!SM.isWrittenInMainFile(SM.getExpansionLoc(Call->getBeginLoc())))
      return true;
    Launches.push_back({Call, CurrentFunction});
    return true;
  }

  bool TraverseFunctionDecl(FunctionDecl *FD) {
    const FunctionDecl *Saved = CurrentFunction;
    CurrentFunction = FD;
    bool R = RecursiveASTVisitor::TraverseFunctionDecl(FD);
    CurrentFunction = Saved;
    return R;
  }
  bool TraverseCXXMethodDecl(CXXMethodDecl *FD) {
    const FunctionDecl *Saved = CurrentFunction;
    CurrentFunction = FD;
    bool R = RecursiveASTVisitor::TraverseCXXMethodDecl(FD);
    CurrentFunction = Saved;
    return R;
  }

  /// The translation unit, less the top-level declarations written wholly
  /// in another file than the main one: a header's declarations hold none
  /// of the main file's kernels or launches, and walking them all (with a
  /// precompiled preamble, deserialising them) cost more than the rest of
  /// a tuner step.
  void traverseMainFile() {
    const SourceManager &SM = Ctx.getSourceManager();
    const FileID Main = SM.getMainFileID();
    // noload: a precompiled preamble's declarations, all from headers, are
    // not even deserialised.
    for (Decl *D : Ctx.getTranslationUnitDecl()->noload_decls()) {
      if (canIgnoreChildDeclWhileTraversingDeclContext(D))
        continue;
      const FileID Begin = SM.getFileID(SM.getExpansionLoc(D->getBeginLoc()));
      if (Begin != Main &&
          Begin == SM.getFileID(SM.getExpansionLoc(D->getEndLoc())))
        continue;
      TraverseDecl(D);
    }
  }

  ASTContext &Ctx;
  const FunctionDecl *CurrentFunction = nullptr;
  std::vector<KernelInfo> Kernels;
  std::vector<LaunchSite> Launches;
};

/// The kernel definition a launch refers to, looking through template
/// specialisations and forward declarations.
const FunctionDecl *calledKernel(const CUDAKernelCallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee) {
    // A dependent call inside a template: look at the unresolved name.
    if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(
            Call->getCallee()->IgnoreParenImpCasts())) {
      for (const NamedDecl *ND : ULE->decls()) {
        if (const auto *FTD = dyn_cast<FunctionTemplateDecl>(ND))
          return FTD->getTemplatedDecl();
        if (const auto *FD = dyn_cast<FunctionDecl>(ND))
          return FD;
      }
    }
    return nullptr;
  }
  if (const FunctionDecl *Pattern = Callee->getTemplateInstantiationPattern())
    Callee = Pattern;
  if (const FunctionDecl *Def = Callee->getDefinition())
    Callee = Def;
  return Callee;
}
} // namespace

std::vector<KernelInfo> findKernels(ASTContext &Ctx) {
  Collector C(Ctx);
  C.traverseMainFile();
  for (const LaunchSite &L : C.Launches) {
    const FunctionDecl *Target = calledKernel(L.Call);
    if (!Target)
      continue;
    const bool FromDevice =
        L.Caller && (L.Caller->hasAttr<CUDAGlobalAttr>() ||
                     L.Caller->hasAttr<CUDADeviceAttr>());
    for (KernelInfo &K : C.Kernels)
      if (K.Decl->getCanonicalDecl() == Target->getCanonicalDecl())
        (FromDevice ? K.DeviceLaunches : K.Launches).push_back(L);
  }
  return C.Kernels;
}

const KernelInfo *lookupKernel(const std::vector<KernelInfo> &Kernels,
                               StringRef Name) {
  for (const KernelInfo &K : Kernels)
    if (K.name() == Name)
      return &K;
  return nullptr;
}

std::string describeLocation(const SourceManager &SM, SourceLocation Loc) {
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  if (P.isInvalid())
    return "<unknown>";
  return (Twine(P.getFilename()) + ":" + Twine(P.getLine()) + ":" +
          Twine(P.getColumn()))
      .str();
}

std::string kernelSymbol(ASTContext &Ctx, const FunctionDecl *FD) {
  std::unique_ptr<MangleContext> MC(Ctx.createMangleContext());
  if (!MC->shouldMangleDeclName(FD))
    return FD->getNameAsString();
  std::string Name;
  raw_string_ostream OS(Name);
  MC->mangleName(GlobalDecl(FD, KernelReferenceKind::Kernel), OS);
  return Name;
}

std::string launchedKernelSymbol(ASTContext &Ctx, const KernelInfo &K) {
  if (K.Template && !K.Launches.empty()) {
    const FunctionDecl *Callee = K.Launches.front().Call->getDirectCallee();
    bool Same = Callee != nullptr;
    for (const LaunchSite &L : K.Launches)
      Same &= L.Call->getDirectCallee() == Callee;
    if (Same)
      return kernelSymbol(Ctx, Callee);
  }
  return kernelSymbol(Ctx, K.Decl);
}

std::string sourceText(const ASTContext &Ctx, SourceRange R) {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange CR = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
  if (CR.isInvalid())
    return "";
  return Lexer::getSourceText(CR, SM, Ctx.getLangOpts()).str();
}

json::Value kernelInventoryToJSON(ASTContext &Ctx, const KernelInfo &K) {
  const SourceManager &SM = Ctx.getSourceManager();
  json::Array Params;
  for (const ParmVarDecl *P : K.Decl->parameters()) {
    QualType T = P->getType();
    Params.push_back(json::Object{
        {"name", P->getNameAsString()},
        {"type", T.getAsString(Ctx.getPrintingPolicy())},
        {"pointer", T->isPointerType()},
    });
  }
  json::Array TemplateParams;
  if (K.Template)
    for (const NamedDecl *TP : *K.Template->getTemplateParameters())
      TemplateParams.push_back(json::Object{
          {"name", TP->getNameAsString()},
          {"kind", isa<TemplateTypeParmDecl>(TP) ? "type" : "value"},
      });
  json::Array Launches;
  for (const LaunchSite &L : K.Launches) {
    const CallExpr *Config = L.Call->getConfig();
    json::Object O{
        {"location", describeLocation(SM, L.Call->getBeginLoc())},
        {"caller", L.Caller ? L.Caller->getNameAsString() : ""},
    };
    if (Config && Config->getNumArgs() >= 2) {
      O["grid"] = sourceText(Ctx, Config->getArg(0)->getSourceRange());
      O["block"] = sourceText(Ctx, Config->getArg(1)->getSourceRange());
      // Dynamic shared memory and stream, when written (not defaulted).
      if (const Expr *Sh = launchSharedMemExpr(L))
        O["shmem"] = sourceText(Ctx, Sh->getSourceRange());
      if (const Expr *St = launchStreamExpr(L))
        O["stream"] = sourceText(Ctx, St->getSourceRange());
    }
    Launches.push_back(std::move(O));
  }
  json::Array DeviceLaunches;
  for (const LaunchSite &L : K.DeviceLaunches)
    DeviceLaunches.push_back(json::Object{
        {"location", describeLocation(SM, L.Call->getBeginLoc())},
        {"caller", L.Caller ? L.Caller->getNameAsString() : ""},
    });
  return json::Object{
      {"name", K.name()},
      {"location", describeLocation(SM, K.Decl->getLocation())},
      {"extern_c", K.isExternC()},
      {"template", K.Template != nullptr},
      {"symbol", launchedKernelSymbol(Ctx, K)},
      {"parameters", std::move(Params)},
      {"template_parameters", std::move(TemplateParams)},
      {"launches", std::move(Launches)},
      {"device_launches", std::move(DeviceLaunches)},
  };
}

std::optional<SourceLocation> firstArchConditional(const ASTContext &Ctx,
                                                   const KernelInfo &K) {
  const SourceManager &SM = Ctx.getSourceManager();
  const Stmt *Body = K.Decl->getBody();
  if (!Body)
    return std::nullopt;
  CharSourceRange Range = SM.getExpansionRange(Body->getSourceRange());
  bool Invalid = false;
  StringRef Text = Lexer::getSourceText(Range, SM, Ctx.getLangOpts(), &Invalid);
  if (Invalid)
    return std::nullopt;
  // Directive lines of the body's text (the preprocessor skipped some of
  // them, so the AST cannot tell; the text still holds them).
  size_t Offset = 0;
  while (Offset < Text.size()) {
    size_t End = Text.find('\n', Offset);
    if (End == StringRef::npos)
      End = Text.size();
    StringRef Line = Text.slice(Offset, End).ltrim();
    if (Line.consume_front("#")) {
      StringRef Directive = Line.ltrim();
      if ((Directive.starts_with("if") || Directive.starts_with("elif")) &&
          Directive.contains("__CUDA_ARCH__"))
        return Range.getBegin().getLocWithOffset(Offset);
    }
    Offset = End + 1;
  }
  return std::nullopt;
}

std::optional<std::string> archConditionalRefusal(const ASTContext &Ctx,
                                                  const KernelInfo &K) {
  std::optional<SourceLocation> Arch = firstArchConditional(Ctx, K);
  if (!Arch)
    return std::nullopt;
  return "kernel '" + K.name() + "' has code under a __CUDA_ARCH__ " +
         "condition at " + describeLocation(Ctx.getSourceManager(), *Arch) +
         ", which the host-side parse cuda-opt analyses does not compile, so "
         "it cannot see everything the kernel does";
}

} // namespace cuda_opt
