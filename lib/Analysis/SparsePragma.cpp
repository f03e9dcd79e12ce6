//===- SparsePragma.cpp - `#pragma cuda_opt sparse(W)` markers -----------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Analysis/SparsePragma.h"
#include "cuda-opt/Analysis/CudaOptPragma.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

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
  for (const CudaOptPragma &P : findCudaOptPragmas(Ctx))
    if (!StringRef(P.Body).starts_with("fp_model")) // Typos get an error.
      Marks.push_back(parseMark(P.Body, P.Line));
  return Marks;
}

const SparseMark *markAbove(const ASTContext &Ctx,
                            const std::vector<SparseMark> &Marks,
                            unsigned StmtLine) {
  std::vector<unsigned> Lines;
  for (const SparseMark &M : Marks)
    Lines.push_back(M.Line);
  unsigned L = pragmaLineAbove(Ctx, Lines, StmtLine);
  for (const SparseMark &M : Marks)
    if (L && M.Line == L)
      return &M;
  return nullptr;
}

} // namespace cuda_opt
