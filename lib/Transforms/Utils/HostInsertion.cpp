//===- HostInsertion.cpp - Add includes and helpers to a main file -------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Transforms/Utils/HostInsertion.h"
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Pass/Transform.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

static StringRef mainFileText(const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  return SM.getBufferData(SM.getMainFileID());
}

bool mainFileIncludes(const ASTContext &Ctx, StringRef Header) {
  SmallVector<StringRef, 0> Lines;
  mainFileText(Ctx).split(Lines, '\n');
  for (StringRef Line : Lines) {
    Line = Line.ltrim();
    if (Line.consume_front("#") && Line.ltrim().starts_with("include") &&
        (Line.contains(("\"" + Header + "\"").str()) ||
         Line.contains(("<" + Header + ">").str())))
      return true;
  }
  return false;
}

bool declaresFunction(ASTContext &Ctx, StringRef Name) {
  for (const NamedDecl *D :
       Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get(Name)))
    if (isa<FunctionDecl, FunctionTemplateDecl>(D))
      return true;
  return false;
}

SourceLocation aboveLineComments(const SourceManager &SM, SourceLocation Loc) {
  FileID File = SM.getFileID(Loc);
  StringRef Text = SM.getBufferData(File);
  unsigned Offset = SM.getFileOffset(Loc);
  size_t NL = Text.rfind('\n', Offset);
  unsigned LineStart = NL == StringRef::npos ? 0 : NL + 1;
  if (!Text.substr(LineStart, Offset - LineStart).trim().empty())
    return Loc;
  while (LineStart > 0) {
    size_t Prev = Text.rfind('\n', LineStart - 1);
    unsigned PrevStart = Prev == StringRef::npos ? 0 : Prev + 1;
    if (!Text.substr(PrevStart, LineStart - PrevStart).ltrim().starts_with(
            "//"))
      break;
    LineStart = PrevStart;
  }
  return SM.getComposedLoc(File, LineStart);
}

SourceLocation insertionPointBefore(const ASTContext &Ctx, const Decl *D) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation B = SM.getExpansionLoc(D->getBeginLoc());
  if (const RawComment *RC = Ctx.getRawCommentForDeclNoCache(D))
    B = RC->getBeginLoc();
  return aboveLineComments(SM, B);
}

unsigned headerInsertionOffset(const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  StringRef Text = mainFileText(Ctx);
  // Includes after the first declaration of the main file are left alone:
  // they may depend on what precedes them.
  unsigned Limit = Text.size();
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
    SourceLocation Loc = SM.getExpansionLoc(D->getBeginLoc());
    if (Loc.isValid() && SM.isInMainFile(Loc) && !D->isImplicit()) {
      Limit = std::min(Limit, SM.getFileOffset(Loc));
      break;
    }
  }
  unsigned Offset = 0, LineStart = 0;
  while (LineStart < Limit) {
    size_t LineEnd = Text.find('\n', LineStart);
    if (LineEnd == StringRef::npos)
      LineEnd = Text.size();
    StringRef Line = Text.slice(LineStart, LineEnd).ltrim();
    if (Line.consume_front("#") && Line.ltrim().starts_with("include"))
      Offset = std::min<size_t>(LineEnd + 1, Text.size());
    LineStart = LineEnd + 1;
  }
  return Offset;
}

Error insertAfterIncludes(const ASTContext &Ctx, tooling::Replacements &R,
                          StringRef Text) {
  const SourceManager &SM = Ctx.getSourceManager();
  unsigned Offset = headerInsertionOffset(Ctx);
  SourceLocation Loc =
      SM.getLocForStartOfFile(SM.getMainFileID()).getLocWithOffset(Offset);
  return R.add(tooling::Replacement(SM, Loc, 0, Text));
}

Expected<tooling::Replacements> libraryCallReplacements(
    ASTContext &Ctx, ArrayRef<std::pair<CharSourceRange, std::string>> Edits,
    ArrayRef<HostAddition> Additions) {
  Expected<tooling::Replacements> R =
      replacementsFor(Ctx.getSourceManager(), Edits);
  if (!R)
    return R.takeError();
  std::string Header;
  for (const HostAddition &A : Additions)
    if (A.Kind == HostAddition::Include ? !mainFileIncludes(Ctx, A.Name)
                                        : !declaresFunction(Ctx, A.Name))
      Header += A.Text;
  if (!Header.empty())
    if (Error E = insertAfterIncludes(Ctx, *R, Header))
      return std::move(E);
  return R;
}

Expected<CharSourceRange> statementRange(const ASTContext &Ctx, const Expr *E) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::string Where = describeLocation(SM, E->getBeginLoc());
  if (E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())
    return refuse("the call at " + Where + " is written inside a macro");
  // The call must be a statement of its own, not part of a larger expression.
  DynTypedNodeList Parents = const_cast<ASTContext &>(Ctx).getParents(*E);
  while (Parents.size() == 1 && Parents[0].get<ExprWithCleanups>())
    Parents = const_cast<ASTContext &>(Ctx).getParents(*Parents[0].get<Expr>());
  if (Parents.size() != 1 || !Parents[0].get<Stmt>() || Parents[0].get<Expr>())
    return refuse("the call at " + Where +
                  " is part of a larger expression; only a call that is a "
                  "statement of its own can be replaced");
  SourceLocation AfterSemi = Lexer::findLocationAfterToken(
      E->getEndLoc(), tok::semi, SM, Ctx.getLangOpts(),
      /*SkipTrailingWhitespaceAndNewLine=*/false);
  if (AfterSemi.isInvalid())
    return refuse("no ';' after the call at " + Where);
  return CharSourceRange::getCharRange(E->getBeginLoc(), AfterSemi);
}

Expected<CharSourceRange> callRange(const ASTContext &Ctx, const Expr *E) {
  const SourceManager &SM = Ctx.getSourceManager();
  // A call written as a macro argument is replaced where it is spelled; a
  // call produced by a macro's own body cannot be.
  SourceLocation Begin = E->getBeginLoc(), End = E->getEndLoc();
  if (Begin.isMacroID() && SM.isMacroArgExpansion(Begin))
    Begin = SM.getSpellingLoc(Begin);
  if (End.isMacroID() && SM.isMacroArgExpansion(End))
    End = SM.getSpellingLoc(End);
  // `cublasSgemm` is a macro for cublasSgemm_v2: take the name's expansion.
  if (Begin.isMacroID())
    Begin = SM.getExpansionRange(Begin).getBegin();
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(Begin, End), SM, Ctx.getLangOpts());
  if (R.isInvalid() || !SM.isInMainFile(R.getBegin()))
    return refuse("the call at " + describeLocation(SM, E->getBeginLoc()) +
                  " is produced by a macro and cannot be replaced in place");
  return R;
}

Expected<tooling::Replacements>
replacementsFor(const SourceManager &SM,
                ArrayRef<std::pair<CharSourceRange, std::string>> Edits) {
  tooling::Replacements R;
  for (const auto &[Range, Text] : Edits)
    if (Error E = R.add(tooling::Replacement(SM, Range, Text)))
      return std::move(E);
  return R;
}

std::string checkMacroOf(const ASTContext &Ctx, const FunctionDecl *F) {
  class Finder : public RecursiveASTVisitor<Finder> {
  public:
    explicit Finder(const ASTContext &Ctx) : Ctx(Ctx) {}
    bool VisitCallExpr(CallExpr *CE) {
      const FunctionDecl *FD = CE->getDirectCallee();
      const SourceManager &SM = Ctx.getSourceManager();
      SourceLocation L = CE->getBeginLoc();
      if (!Macro.empty() || !FD || !FD->getName().starts_with("cuda") ||
          !L.isMacroID() || !SM.isMacroArgExpansion(L))
        return true;
      // The macro whose argument the call is, written in the main file.
      SourceLocation Use = SM.getExpansionLoc(L);
      if (!SM.isWrittenInMainFile(Use))
        return true;
      StringRef Name =
          Lexer::getImmediateMacroName(L, SM, Ctx.getLangOpts());
      if (!Name.empty() && !Name.starts_with("cuda"))
        Macro = Name.str();
      return true;
    }
    const ASTContext &Ctx;
    std::string Macro;
  } Find(Ctx);
  if (F && F->hasBody())
    Find.TraverseStmt(F->getBody());
  return Find.Macro;
}

std::string checkedCall(StringRef Macro, StringRef Call) {
  return (Macro.empty() ? Call.str() : (Macro + "(" + Call + ")").str()) +
         ";";
}

std::string cubTempStorageCall(StringRef Indent, StringRef Macro,
                               StringRef Stem,
                               function_ref<std::string(StringRef)> CallWith) {
  std::string Temp = (Stem + "_temp").str(), Bytes = (Stem + "_bytes").str();
  std::string S;
  S += Indent.str() + "size_t " + Bytes + " = 0;\n";
  S += Indent.str() + checkedCall(Macro, CallWith("nullptr")) + "\n";
  S += Indent.str() + "void *" + Temp + " = nullptr;\n";
  S += Indent.str() +
       checkedCall(Macro, "cudaMallocAsync(&" + Temp + ", " + Bytes + ", 0)") +
       "\n";
  S += Indent.str() + checkedCall(Macro, CallWith(Temp)) + "\n";
  S += Indent.str() + checkedCall(Macro, "cudaFreeAsync(" + Temp + ", 0)") +
       "\n";
  return S;
}

Expected<std::pair<CharSourceRange, std::string>>
textAfterKernel(const ASTContext &Ctx, const KernelInfo &K, StringRef Text,
                StringRef What) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation End = K.Decl->getBody()->getEndLoc();
  if (End.isMacroID())
    return refuse("the kernel's body ends inside a macro");
  for (const LaunchSite &L : K.Launches)
    if (!SM.isBeforeInTranslationUnit(End, L.Call->getBeginLoc()))
      return refuse("the launch at " +
                    describeLocation(SM, L.Call->getBeginLoc()) +
                    " comes before the kernel's definition, where its " +
                    What + " would go");
  return std::make_pair(CharSourceRange::getTokenRange(End, End),
                        ("}" + Text).str());
}

bool isRepeatableExpr(ASTContext &Ctx, const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    return all_of(CE->arguments(),
                  [&](const Expr *A) { return isRepeatableExpr(Ctx, A); });
  return !E->HasSideEffects(Ctx);
}

Error checkFallbackLaunch(ASTContext &Ctx, const KernelInfo &K,
                          const LaunchSite &L) {
  std::string Where =
      describeLocation(Ctx.getSourceManager(), L.Call->getBeginLoc());
  if (L.Caller && (L.Caller->hasAttr<CUDAGlobalAttr>() ||
                   L.Caller->hasAttr<CUDADeviceAttr>()))
    return refuse("the launch of '" + K.name() + "' at " + Where +
                  " is in device code");
  if (L.Call->getNumArgs() != K.Decl->getNumParams())
    return refuse("the launch at " + Where + " does not pass every argument");
  for (const Expr *A : L.Call->arguments())
    if (!isRepeatableExpr(Ctx, A))
      return refuse("argument '" + sourceText(Ctx, A->getSourceRange()) +
                    "' of the launch at " + Where +
                    " has side effects; the rewrite evaluates it twice");
  return Error::success();
}

std::string libraryEntryArgument(const ASTContext &Ctx, const ParmVarDecl *P) {
  QualType T = P->getType().getCanonicalType().getUnqualifiedType();
  if (T->isPointerType())
    T = Ctx.getPointerType(T->getPointeeType().getUnqualifiedType());
  std::string Type = T.getAsString(Ctx.getPrintingPolicy());
  return "*static_cast<" + Type + " *>(Args[" +
         std::to_string(P->getFunctionScopeIndex()) + "])";
}

} // namespace cuda_opt
