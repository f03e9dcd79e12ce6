//===- CaptureInstrument.cpp - Route a kernel's launches through capture --===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Capture/Capture.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TemplateBase.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
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

std::vector<LaunchText> instrumentableLaunches(ASTContext &Ctx,
                                               const KernelInfo &K,
                                               std::vector<std::string> *Skipped) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<LaunchText> Out;
  std::set<unsigned> Seen; // A launch in a template appears per instance.
  for (const LaunchSite &L : K.Launches) {
    const CUDAKernelCallExpr *Call = L.Call;
    if (!Seen.insert(SM.getFileOffset(SM.getExpansionLoc(Call->getBeginLoc())))
             .second)
      continue;
    std::string Where = describeLocation(SM, Call->getBeginLoc());
    auto Skip = [&](StringRef Why) {
      if (Skipped)
        Skipped->push_back(Where + ": " + Why.str());
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
    if (llvm::any_of(Call->arguments(),
                     [](const Expr *A) { return isa<CXXDefaultArgExpr>(A); })) {
      Skip("the launch relies on a default kernel argument");
      continue;
    }
    const CallExpr *Config = Call->getConfig();
    LaunchText T;
    T.Callee = *Callee;
    T.Grid = configArg(Ctx, Config, 0, "1");
    T.Block = configArg(Ctx, Config, 1, "1");
    T.Shmem = configArg(Ctx, Config, 2, "0");
    T.Stream = configArg(Ctx, Config, 3, "0");
    for (const Expr *A : Call->arguments())
      T.Args.push_back(sourceText(Ctx, A->getSourceRange()));
    CharSourceRange Range = CharSourceRange::getTokenRange(Call->getBeginLoc(),
                                                           Call->getEndLoc());
    T.Begin = SM.getFileOffset(Range.getBegin());
    T.End = SM.getFileOffset(
        Lexer::getLocForEndOfToken(Range.getEnd(), 0, SM, Ctx.getLangOpts()));
    Out.push_back(std::move(T));
  }
  return Out;
}

Expected<InstrumentedSource>
instrumentForCapture(ASTContext &Ctx, const KernelInfo &K, StringRef Text,
                     const std::vector<std::vector<LaunchProbe>> *Probes) {
  InstrumentedSource Out;
  std::vector<LaunchText> Launches =
      instrumentableLaunches(Ctx, K, &Out.Skipped);
  if (Launches.empty()) {
    std::string Msg = "no launch of kernel '" + K.name() +
                      "' in this file can be instrumented for capture";
    for (const std::string &S : Out.Skipped)
      Msg += "\n  " + S;
    if (K.Launches.empty())
      Msg += " (it is not launched here; program mode needs the launch in "
             "the same file, or use --spec)";
    return createStringError(inconvertibleErrorCode(), Msg);
  }
  tooling::Replacements Edits;
  StringRef File = Ctx.getSourceManager()
                       .getFileEntryRefForID(Ctx.getSourceManager().getMainFileID())
                       ->getName();
  for (unsigned Site = 0; Site < Launches.size(); ++Site) {
    const LaunchText &L = Launches[Site];
    std::string Replacement;
    raw_string_ostream OS(Replacement);
    const std::vector<LaunchProbe> *AtSite =
        Probes && Site < Probes->size() && !(*Probes)[Site].empty()
            ? &(*Probes)[Site]
            : nullptr;
    if (AtSite) {
      // Evaluated in the launch's own scope, just before it.
      OS << "(";
      for (const LaunchProbe &P : *AtSite)
        OS << "::cuda_opt_capture::probe(" << Site << ", " << P.Variant
           << ", dim3(" << P.Grid << "), dim3(" << P.Block
           << "), static_cast<size_t>(" << P.Shmem << ")), ";
    }
    OS << "::cuda_opt_capture::launch(" << Site << ", \"" << K.name()
       << "\", " << L.Callee << ", " << L.Grid << ", " << L.Block << ", "
       << L.Shmem << ", " << L.Stream;
    for (const std::string &A : L.Args)
      OS << ", " << A;
    OS << ")" << (AtSite ? ")" : "");
    if (Error E = Edits.add(tooling::Replacement(File, L.Begin,
                                                 L.End - L.Begin, Replacement)))
      return std::move(E);
  }
  Expected<std::string> Rewritten = tooling::applyAllReplacements(Text, Edits);
  if (!Rewritten)
    return Rewritten.takeError();
  // `#line 1` keeps the compiler's line numbers those of the user's file.
  Out.Text = "#include \"cuda_opt_capture.h\" // added by cuda-opt for "
             "capture\n#line 1\n" +
             *Rewritten;
  Out.Sites = Launches.size();
  return Out;
}

namespace {

/// File offsets of \p K's definition (its template, for a template kernel).
std::pair<unsigned, unsigned> definitionOffsets(ASTContext &Ctx,
                                                const KernelInfo &K) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceRange R = K.Template ? K.Template->getSourceRange()
                             : K.Decl->getSourceRange();
  return {SM.getFileOffset(SM.getExpansionLoc(R.getBegin())),
          SM.getFileOffset(SM.getExpansionLoc(R.getEnd()))};
}

/// \p Text with \p K's definition removed and each instrumentable launch of
/// it replaced by a marker: two versions of a file whose masked texts are
/// equal differ only in the kernel and in its launch statements.
std::string maskedHostCode(ASTContext &Ctx, const KernelInfo &K,
                           StringRef Text) {
  std::vector<std::pair<unsigned, unsigned>> Cut; // [Begin, End) to mask.
  auto [B, E] = definitionOffsets(Ctx, K);
  if (B <= E && E <= Text.size())
    Cut.push_back({B, E});
  for (const LaunchText &L : instrumentableLaunches(Ctx, K, nullptr))
    if (L.Begin <= L.End && L.End <= Text.size())
      Cut.push_back({L.Begin, L.End});
  llvm::sort(Cut);
  std::string Out;
  unsigned Pos = 0;
  for (const auto &[Begin, End] : Cut) {
    if (Begin < Pos)
      continue; // Nested in an earlier cut.
    Out += Text.slice(Pos, Begin).str();
    Out += "@launch@";
    Pos = End;
  }
  Out += Text.drop_front(std::min<size_t>(Pos, Text.size())).str();
  return Out;
}

std::vector<std::pair<uint64_t, bool>> parameterShape(ASTContext &Ctx,
                                                      const KernelInfo &K) {
  std::vector<std::pair<uint64_t, bool>> Out;
  for (const ParmVarDecl *P : K.Decl->parameters()) {
    QualType T = P->getType();
    Out.push_back(
        {T->isDependentType() || T->isIncompleteType() ? 0 : Ctx.getTypeSize(T),
         T->isPointerType()});
  }
  return Out;
}

} // namespace

std::string textWithoutKernel(ASTContext &Ctx, const KernelInfo &K,
                              StringRef Text) {
  auto [B, E] = definitionOffsets(Ctx, K);
  if (B > E || E > Text.size())
    return Text.str();
  return (Text.take_front(B) + Text.drop_front(E)).str();
}

ProbeBase probeBase(ASTContext &Ctx, const KernelInfo &K, StringRef Text) {
  return {maskedHostCode(Ctx, K, Text), instrumentableLaunches(Ctx, K, nullptr),
          parameterShape(Ctx, K)};
}

Expected<std::vector<LaunchProbe>> launchProbesFor(const ProbeBase &Original,
                                                   ASTContext &Ctx,
                                                   const KernelInfo &K,
                                                   StringRef Text,
                                                   int Variant) {
  auto No = [](const char *Why) {
    return createStringError(inconvertibleErrorCode(), "%s", Why);
  };
  if (parameterShape(Ctx, K) != Original.ParameterShape)
    return No("the kernel's parameters changed size");
  std::vector<LaunchText> L = instrumentableLaunches(Ctx, K, nullptr);
  if (L.size() != Original.Launches.size())
    return No("the number of launch sites changed");
  if (maskedHostCode(Ctx, K, Text) != Original.MaskedHostCode)
    return No("the host code changed outside the kernel's launches");
  std::vector<LaunchProbe> Out;
  for (size_t S = 0; S < L.size(); ++S) {
    const LaunchText &O = Original.Launches[S];
    if (L[S].Callee != O.Callee || L[S].Stream != O.Stream ||
        L[S].Args != O.Args)
      return No("a launch calls another kernel, stream or arguments");
    Out.push_back({Variant, L[S].Grid, L[S].Block, L[S].Shmem});
  }
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
