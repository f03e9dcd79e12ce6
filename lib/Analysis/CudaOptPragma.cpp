//===- CudaOptPragma.cpp - `#pragma cuda_opt ...` lines -------------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/CudaOptPragma.h"

#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

static SmallVector<StringRef, 0> mainFileLines(const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SmallVector<StringRef, 0> Lines;
  SM.getBufferData(SM.getMainFileID()).split(Lines, '\n');
  return Lines;
}

/// The text after `#pragma cuda_opt` on \p Line, or std::nullopt.
static std::optional<StringRef> cudaOptPragma(StringRef Line) {
  Line = Line.trim();
  if (!Line.consume_front("#"))
    return std::nullopt;
  Line = Line.ltrim();
  if (!Line.consume_front("pragma"))
    return std::nullopt;
  Line = Line.ltrim();
  if (!Line.consume_front("cuda_opt"))
    return std::nullopt;
  return Line.trim();
}

std::vector<CudaOptPragma> findCudaOptPragmas(const ASTContext &Ctx) {
  std::vector<CudaOptPragma> Found;
  SmallVector<StringRef, 0> Lines = mainFileLines(Ctx);
  for (size_t I = 0; I < Lines.size(); ++I)
    if (std::optional<StringRef> Body = cudaOptPragma(Lines[I]))
      Found.push_back({static_cast<unsigned>(I + 1), Body->str()});
  return Found;
}

unsigned pragmaLineAbove(const ASTContext &Ctx,
                         const std::vector<unsigned> &PragmaLines,
                         unsigned Line) {
  SmallVector<StringRef, 0> Lines = mainFileLines(Ctx);
  for (unsigned L = Line - 1; L >= 1 && L <= Lines.size(); --L) {
    if (is_contained(PragmaLines, L))
      return L;
    StringRef Text = Lines[L - 1].trim();
    if (Text.empty() || Text.starts_with("//") || Text.starts_with("#pragma"))
      continue;
    return 0;
  }
  return 0;
}

std::optional<FpModel> kernelFpModelPin(const ASTContext &Ctx,
                                        const FunctionDecl *Kernel,
                                        std::string &Error) {
  const SourceManager &SM = Ctx.getSourceManager();
  const FunctionDecl *Def = Kernel->getDefinition();
  if (!Def)
    Def = Kernel;
  SourceLocation Begin = SM.getExpansionLoc(Def->getOuterLocStart());
  if (const FunctionTemplateDecl *T = Def->getDescribedFunctionTemplate())
    Begin = SM.getExpansionLoc(T->getBeginLoc());
  if (!SM.isInMainFile(Begin))
    return std::nullopt;
  std::vector<CudaOptPragma> Pragmas = findCudaOptPragmas(Ctx);
  std::vector<unsigned> Lines;
  for (const CudaOptPragma &P : Pragmas)
    if (StringRef(P.Body).starts_with("fp_model"))
      Lines.push_back(P.Line);
  unsigned L = pragmaLineAbove(Ctx, Lines, SM.getSpellingLineNumber(Begin));
  if (!L)
    return std::nullopt;
  for (const CudaOptPragma &P : Pragmas) {
    if (P.Line != L)
      continue;
    StringRef Body = StringRef(P.Body).drop_front(strlen("fp_model")).trim();
    if (Body.consume_front("(") && Body.consume_back(")"))
      if (std::optional<FpModel> M = parseFpModel(Body.trim()))
        return M;
    Error = "line " + std::to_string(L) +
            ": expected `#pragma cuda_opt fp_model(strict)`, "
            "`fp_model(reassoc)` or `fp_model(fast)`";
  }
  return std::nullopt;
}

} // namespace cuda_opt
