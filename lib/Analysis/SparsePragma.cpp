//===- SparsePragma.cpp - `#pragma cuda_opt sparse(W)` markers -----------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/SparsePragma.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

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

static SparseMark parseMark(StringRef Body, unsigned Line) {
  SparseMark M;
  M.Line = Line;
  auto Fail = [&] {
    M.Error = "line " + std::to_string(Line) +
              ": expected `#pragma cuda_opt sparse(NAME)` or "
              "`#pragma cuda_opt sparse(NAME, file=\"PATH\")`";
    return M;
  };
  if (!Body.consume_front("sparse"))
    return Fail();
  Body = Body.ltrim();
  if (!Body.consume_front("(") || !Body.consume_back(")"))
    return Fail();
  auto [Name, Rest] = Body.split(',');
  Name = Name.trim();
  if (Name.empty() ||
      !all_of(Name, [](char C) { return isAlnum(C) || C == '_'; }) ||
      isDigit(Name.front()))
    return Fail();
  Rest = Rest.trim();
  if (!Rest.empty()) {
    if (!Rest.consume_front("file"))
      return Fail();
    Rest = Rest.ltrim();
    if (!Rest.consume_front("="))
      return Fail();
    Rest = Rest.trim();
    if (Rest.size() < 3 || !Rest.consume_front("\"") ||
        !Rest.consume_back("\"") || Rest.contains('"') || Rest.contains('\\'))
      return Fail();
    M.File = Rest.str();
  }
  M.Var = Name.str();
  return M;
}

std::vector<SparseMark> findSparseMarks(const ASTContext &Ctx) {
  std::vector<SparseMark> Marks;
  SmallVector<StringRef, 0> Lines = mainFileLines(Ctx);
  for (size_t I = 0; I < Lines.size(); ++I)
    if (std::optional<StringRef> Body = cudaOptPragma(Lines[I]))
      Marks.push_back(parseMark(*Body, I + 1));
  return Marks;
}

const SparseMark *markAbove(const ASTContext &Ctx,
                            const std::vector<SparseMark> &Marks,
                            unsigned StmtLine) {
  SmallVector<StringRef, 0> Lines = mainFileLines(Ctx);
  for (unsigned L = StmtLine - 1; L >= 1 && L <= Lines.size(); --L) {
    StringRef Text = Lines[L - 1].trim();
    for (const SparseMark &M : Marks)
      if (M.Line == L)
        return &M;
    if (Text.empty() || Text.starts_with("//") || Text.starts_with("#pragma"))
      continue;
    return nullptr;
  }
  return nullptr;
}

} // namespace cuda_opt
