//===- SourceEdits.cpp - Text edits shared by the thread-mapping passes ---===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Transforms/Utils/SourceEdits.h"
#include "cuda-opt/Analysis/LaunchConfig.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSet.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

static std::string where(const ASTContext &Ctx, SourceLocation Loc) {
  return describeLocation(Ctx.getSourceManager(), Loc);
}

static bool isPrimaryText(const Expr *E) {
  E = E->IgnoreImpCasts();
  return isa<DeclRefExpr, IntegerLiteral, ParenExpr, CallExpr, MemberExpr,
             PseudoObjectExpr, ArraySubscriptExpr>(E);
}

std::string parenthesizedText(const ASTContext &Ctx, const Expr *E) {
  std::string T = sourceText(Ctx, E->getSourceRange());
  if (isPrimaryText(E))
    return T;
  return "(" + T + ")";
}

std::string parenthesizedUnlessName(StringRef S) {
  if (!S.empty() && all_of(S, [](char C) { return isAlnum(C) || C == '_'; }))
    return S.str();
  return "(" + S.str() + ")";
}

bool isPositiveZeroConstant(const ASTContext &Ctx, const Expr *E) {
  Expr::EvalResult R;
  if (!E->EvaluateAsRValue(R, Ctx))
    return false;
  if (R.Val.isInt())
    return R.Val.getInt().isZero();
  if (R.Val.isFloat())
    return R.Val.getFloat().isPosZero();
  return false;
}

std::string ceilDivText(StringRef G, int64_t F) {
  // `(n + 255) / 256` becomes `((n + 255) / 256 + 3) / 4`. Operands that bind
  // less tightly than `+` (shifts, comparisons, ?:) need parentheses.
  if (F == 1)
    return G.str();
  bool Loose = G.find_first_of("?<>=&|^,") != StringRef::npos;
  std::string Base = Loose ? "(" + G.str() + ")" : G.str();
  return "(" + Base + " + " + std::to_string(F - 1) + ") / " +
         std::to_string(F);
}

/// rewriteGridX (Axis 0) and rewriteGridY (Axis 1).
static Error rewriteGridAxis(const ASTContext &Ctx, const LaunchSite &L,
                             unsigned Axis,
                             function_ref<std::string(StringRef)> Wrap,
                             tooling::Replacements &Out) {
  const Expr *Grid = launchGridExpr(L);
  if (!Grid)
    return refuse("the launch at " + where(Ctx, L.Call->getBeginLoc()) +
                  " has no grid");
  const Expr *E = stripLaunchArgImplicit(Grid);
  if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
    E = stripLaunchArgImplicit(FC->getSubExpr());
  const Expr *Target = nullptr;
  std::string NewText;
  if (Axis == 0 && E->getType()->isIntegerType()) {
    Target = E;
    NewText = Wrap(sourceText(Ctx, E->getSourceRange()));
  } else if (const auto *CE = dyn_cast<CXXConstructExpr>(E);
             CE && CE->getNumArgs() > Axis &&
             CE->getArg(Axis)->getType()->isIntegerType() &&
             !isa<CXXDefaultArgExpr>(CE->getArg(Axis))) {
    Target = CE->getArg(Axis);
    NewText = Wrap(sourceText(Ctx, Target->getSourceRange()));
  } else if (isa<DeclRefExpr>(E->IgnoreParenImpCasts()) ||
             (isa<CXXConstructExpr>(E) && !E->getType()->isIntegerType())) {
    Target = E;
    std::string V = parenthesizedText(Ctx, E);
    std::string C[3] = {V + ".x", V + ".y", V + ".z"};
    C[Axis] = Wrap(C[Axis]);
    NewText = "dim3(" + C[0] + ", " + C[1] + ", " + C[2] + ")";
  } else {
    return refuse("the grid of the launch at " +
                  where(Ctx, L.Call->getBeginLoc()) + " cannot be rewritten" +
                  (Axis == 1 ? " along y" : ""));
  }
  if (inMacro(Target->getSourceRange()))
    return refuse("the grid of the launch at " +
                  where(Ctx, L.Call->getBeginLoc()) +
                  " is written inside a macro");
  return Out.add(tooling::Replacement(
      Ctx.getSourceManager(),
      CharSourceRange::getTokenRange(Target->getSourceRange()), NewText,
      Ctx.getLangOpts()));
}

Error rewriteGridX(ASTContext &Ctx, const LaunchSite &L,
                   function_ref<std::string(StringRef)> Wrap,
                   tooling::Replacements &Out) {
  return rewriteGridAxis(Ctx, L, 0, Wrap, Out);
}

Error rewriteGridY(const ASTContext &Ctx, const LaunchSite &L,
                   function_ref<std::string(StringRef)> Wrap,
                   tooling::Replacements &Out) {
  return rewriteGridAxis(Ctx, L, 1, Wrap, Out);
}

namespace {
class NameCollector : public RecursiveASTVisitor<NameCollector> {
public:
  bool VisitNamedDecl(NamedDecl *ND) {
    if (ND->getDeclName().isIdentifier())
      Names.insert(ND->getName());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (DRE->getDecl()->getDeclName().isIdentifier())
      Names.insert(DRE->getDecl()->getName());
    return true;
  }
  StringSet<> Names;
};
} // namespace

std::string freshName(const FunctionDecl *Kernel, StringRef Base,
                      ArrayRef<std::string> Taken) {
  NameCollector C;
  C.TraverseDecl(const_cast<FunctionDecl *>(Kernel));
  for (const std::string &T : Taken)
    C.Names.insert(T);
  if (!C.Names.contains(Base))
    return Base.str();
  for (unsigned N = 2;; ++N) {
    std::string Candidate = (Base + Twine(N)).str();
    if (!C.Names.contains(Candidate))
      return Candidate;
  }
}

std::string typeText(const ASTContext &Ctx, QualType T) {
  PrintingPolicy PP = Ctx.getPrintingPolicy();
  PP.SuppressTagKeyword = true;
  return T.getUnqualifiedType().getAsString(PP);
}

std::string warpLanesText() {
  return "  const unsigned Lane = threadIdx.x % 32, Warp = threadIdx.x / 32;\n"
         "  const unsigned Warps = (blockDim.x + 31) / 32;\n"
         "  // The lanes of this warp that exist (the last one may be partial).\n"
         "  const unsigned Left = blockDim.x - Warp * 32;\n"
         "  const unsigned Width = Left < 32 ? Left : 32;\n"
         "  const unsigned Mask = Width == 32 ? 0xffffffffu : (1u << Width) - 1;\n";
}

std::string indexTypeText(const ASTContext &Ctx, const VarDecl *V) {
  // The type as written (`unsigned`, `size_t`), unless it is deduced.
  if (const TypeSourceInfo *TSI = V->getTypeSourceInfo()) {
    TypeLoc TL = TSI->getTypeLoc().getUnqualifiedLoc();
    if (!V->getType()->getContainedAutoType() &&
        !inMacro(TL.getSourceRange())) {
      std::string Written = sourceText(Ctx, TL.getSourceRange());
      if (!Written.empty())
        return Written;
    }
  }
  PrintingPolicy P = Ctx.getPrintingPolicy();
  P.SuppressTagKeyword = true;
  return V->getType().getUnqualifiedType().getAsString(P);
}

bool isWideIndex(const ASTContext &Ctx, const VarDecl *V) {
  return Ctx.getTypeSize(V->getType()) > 32;
}

std::string indentBlock(StringRef Text, StringRef Pad) {
  SmallVector<StringRef, 16> Lines;
  Text.split(Lines, '\n');
  size_t Common = std::string::npos;
  for (size_t I = 1; I < Lines.size(); ++I)
    if (!Lines[I].trim().empty())
      Common = std::min(Common, Lines[I].size() - Lines[I].ltrim().size());
  if (Common == std::string::npos)
    Common = 0;
  std::string Out;
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef L = I ? Lines[I].drop_front(std::min(Common, Lines[I].size()))
                    : Lines[I].ltrim();
    if (!L.trim().empty())
      Out += Pad.str() + L.rtrim().str() + "\n";
  }
  return Out;
}

Expected<std::string>
textWithEdits(const ASTContext &Ctx, SourceRange R,
              ArrayRef<std::pair<SourceRange, std::string>> Edits) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  if (inMacro(R))
    return refuse("the code at " + where(Ctx, R.getBegin()) +
                " is a macro expansion");
  CharSourceRange Whole =
      Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, LO);
  if (Whole.isInvalid())
    return refuse("the code at " + where(Ctx, R.getBegin()) +
                " has no contiguous source text");
  unsigned Begin = SM.getFileOffset(Whole.getBegin());
  unsigned End = SM.getFileOffset(Whole.getEnd());
  StringRef Text = Lexer::getSourceText(Whole, SM, LO);
  std::vector<std::tuple<unsigned, unsigned, std::string>> Pieces;
  for (const auto &[Range, New] : Edits) {
    if (inMacro(Range))
      return refuse("the code at " + where(Ctx, Range.getBegin()) +
                  " that needs rewriting is inside a macro expansion");
    CharSourceRange C =
        Lexer::makeFileCharRange(CharSourceRange::getTokenRange(Range), SM, LO);
    unsigned B = SM.getFileOffset(C.getBegin());
    unsigned E = SM.getFileOffset(C.getEnd());
    if (C.isInvalid() || B < Begin || E > End)
      return refuse("internal error: edit outside the rewritten range");
    Pieces.emplace_back(B - Begin, E - Begin, New);
  }
  llvm::sort(Pieces);
  std::string Out;
  unsigned Pos = 0;
  for (const auto &[B, E, New] : Pieces) {
    if (B < Pos)
      return refuse("internal error: overlapping edits");
    Out += Text.substr(Pos, B - Pos);
    Out += New;
    Pos = E;
  }
  Out += Text.substr(Pos);
  return Out;
}

Error returnsToContinue(const ASTContext &Ctx, ArrayRef<const Stmt *> Stmts,
                        std::vector<std::pair<SourceRange, std::string>> &Out) {
  Expected<SmallVector<const ReturnStmt *, 4>> Returns =
      loopableReturns(Ctx, Stmts);
  if (!Returns)
    return Returns.takeError();
  for (const ReturnStmt *RS : *Returns)
    Out.emplace_back(RS->getSourceRange(), "continue");
  return Error::success();
}

Error guardReturnsToContinue(
    const ASTContext &Ctx, const ThreadMapping &M,
    std::vector<std::pair<SourceRange, std::string>> &Out) {
  // With `if (i < n) { work }` the work sits inside the guard; with
  // `if (i >= n) return;` it follows it.
  std::vector<const Stmt *> Moved{M.Guard};
  if (M.EarlyReturn)
    Moved.insert(Moved.end(), M.Body.begin(), M.Body.end());
  return returnsToContinue(Ctx, Moved, Out);
}

} // namespace cuda_opt
