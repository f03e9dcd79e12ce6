//===- CaptureInstrument.cpp - Route a kernel's launches through capture --===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Measure/Capture.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TemplateBase.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/raw_ostream.h"
#include <set>

using namespace clang;
using namespace llvm;

namespace cuda_opt {

namespace {

/// How to name the kernel instance a launch calls, as an expression that
/// is valid where the launch is written.
std::optional<std::string> calleeText(ASTContext &Ctx,
                                      const CUDAKernelCallExpr *Call,
                                      std::string &Why) {
  const Expr *Callee = Call->getCallee()->IgnoreImplicit();
  bool ExplicitArgs = false;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Callee))
    ExplicitArgs = DRE->hasExplicitTemplateArgs();
  else if (const auto *ULE = dyn_cast<UnresolvedLookupExpr>(Callee))
    ExplicitArgs = ULE->hasExplicitTemplateArgs();
  std::string Written = sourceText(Ctx, Callee->getSourceRange());
  const FunctionDecl *FD = Call->getDirectCallee();
  if (ExplicitArgs || (FD && !FD->isTemplateInstantiation()))
    return Written;
  if (!FD) {
    // In a template: `k<<<...>>>(x)` with k's template arguments deduced
    // from dependent types; they cannot be named here.
    Why = "the kernel's template arguments are deduced from dependent types";
    return std::nullopt;
  }
  // A deduced instance, e.g. `scale<<<g, b>>>(x, n)` calling scale<float>.
  std::string S;
  raw_string_ostream OS(S);
  OS << Written;
  printTemplateArgumentList(OS,
                            FD->getTemplateSpecializationArgs()->asArray(),
                            Ctx.getPrintingPolicy());
  return S;
}

std::string configArg(ASTContext &Ctx, const CallExpr *Config, unsigned I,
                      StringRef Default) {
  if (I >= Config->getNumArgs() || isa<CXXDefaultArgExpr>(Config->getArg(I)))
    return Default.str();
  return sourceText(Ctx, Config->getArg(I)->getSourceRange());
}

} // namespace

Expected<InstrumentedSource>
instrumentForCapture(ASTContext &Ctx, const KernelInfo &K, StringRef Text) {
  const SourceManager &SM = Ctx.getSourceManager();
  InstrumentedSource Out;
  tooling::Replacements Edits;
  unsigned Site = 0;
  std::set<unsigned> Seen; // A launch in a template appears per instance.
  for (const LaunchSite &L : K.Launches) {
    const CUDAKernelCallExpr *Call = L.Call;
    if (!Seen.insert(SM.getFileOffset(SM.getExpansionLoc(Call->getBeginLoc())))
             .second)
      continue;
    std::string Where = describeLocation(SM, Call->getBeginLoc());
    auto Skip = [&](StringRef Why) {
      Out.Skipped.push_back(Where + ": " + Why.str());
    };
    if (Call->getBeginLoc().isMacroID() || Call->getEndLoc().isMacroID()) {
      Skip("the launch is inside a macro expansion");
      continue;
    }
    std::string Why;
    std::optional<std::string> Callee = calleeText(Ctx, Call, Why);
    if (!Callee) {
      Skip(Why);
      continue;
    }
    const CallExpr *Config = Call->getConfig();
    std::string Replacement;
    raw_string_ostream OS(Replacement);
    OS << "::cuda_opt_capture::launch(" << Site << ", \"" << K.name() << "\", "
       << *Callee << ", " << configArg(Ctx, Config, 0, "1") << ", "
       << configArg(Ctx, Config, 1, "1") << ", "
       << configArg(Ctx, Config, 2, "0") << ", "
       << configArg(Ctx, Config, 3, "0");
    bool DefaultArg = false;
    for (const Expr *A : Call->arguments()) {
      if (isa<CXXDefaultArgExpr>(A)) {
        DefaultArg = true;
        break;
      }
      OS << ", " << sourceText(Ctx, A->getSourceRange());
    }
    OS << ")";
    if (DefaultArg) {
      Skip("the launch relies on a default kernel argument");
      continue;
    }
    CharSourceRange Range = CharSourceRange::getTokenRange(
        Call->getBeginLoc(), Call->getEndLoc());
    if (Error E = Edits.add(tooling::Replacement(SM, Range, Replacement,
                                                 Ctx.getLangOpts())))
      return std::move(E);
    ++Site;
  }
  if (Site == 0) {
    std::string Msg = "no launch of kernel '" + K.name() +
                      "' in this file can be instrumented for capture";
    for (const std::string &S : Out.Skipped)
      Msg += "\n  " + S;
    if (K.Launches.empty())
      Msg += " (it is not launched here; program mode needs the launch in "
             "the same file, or use --spec)";
    return createStringError(inconvertibleErrorCode(), Msg);
  }
  Expected<std::string> Rewritten = tooling::applyAllReplacements(Text, Edits);
  if (!Rewritten)
    return Rewritten.takeError();
  // `#line 1` keeps the compiler's line numbers those of the user's file.
  Out.Text = "#include \"cuda_opt_capture.h\" // added by cuda-opt for "
             "capture\n#line 1\n" +
             *Rewritten;
  Out.Sites = Site;
  return Out;
}

bool definesMain(ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (const auto *FD = dyn_cast<FunctionDecl>(D))
      if (FD->isMain() && FD->hasBody() &&
          SM.isInMainFile(SM.getExpansionLoc(FD->getLocation())))
        return true;
  return false;
}

} // namespace cuda_opt
