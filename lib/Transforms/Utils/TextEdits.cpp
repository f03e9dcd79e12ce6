//===- TextEdits.cpp - Edits of one range of the source text --------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Transforms/Utils/TextEdits.h"
#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Analysis/ThreadMapping.h"
#include "cuda-opt/Support/Refusal.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

Error TextEdits::replace(SourceRange R, std::string Text) {
  Expected<std::pair<unsigned, unsigned>> O = offsets(R);
  if (!O)
    return O.takeError();
  return add(O->first, O->second, std::move(Text));
}

Error TextEdits::insertBefore(SourceRange R, std::string Text) {
  Expected<std::pair<unsigned, unsigned>> O = offsets(R);
  if (!O)
    return O.takeError();
  return add(O->first, O->first, std::move(Text));
}

Error TextEdits::insertAfter(SourceRange R, std::string Text) {
  Expected<std::pair<unsigned, unsigned>> O = offsets(R);
  if (!O)
    return O.takeError();
  return add(O->second, O->second, std::move(Text));
}

Error TextEdits::add(unsigned Begin, unsigned End, std::string Text) {
  Pieces.push_back({Begin, End, Seq++, std::move(Text)});
  return Error::success();
}

Expected<std::string> TextEdits::render(SourceRange R) const {
  Expected<std::pair<unsigned, unsigned>> O = offsets(R);
  if (!O)
    return O.takeError();
  auto [Begin, End] = *O;
  const SourceManager &SM = Ctx.getSourceManager();
  StringRef Buffer =
      SM.getBufferData(SM.getFileID(SM.getFileLoc(R.getBegin())));
  std::vector<Piece> In;
  for (const Piece &P : Pieces)
    if (P.Begin >= Begin && P.End <= End)
      In.push_back(P);
  llvm::sort(In, [](const Piece &A, const Piece &B) {
    if (A.Begin != B.Begin)
      return A.Begin < B.Begin;
    bool AIns = A.Begin == A.End, BIns = B.Begin == B.End;
    if (AIns != BIns)
      return AIns;
    return A.Seq < B.Seq;
  });
  std::string Out;
  unsigned Pos = Begin;
  for (const Piece &P : In) {
    if (P.Begin < Pos)
      return refuse("internal error: overlapping source edits at " +
                    describeLocation(SM, R.getBegin()));
    Out += Buffer.substr(Pos, P.Begin - Pos);
    Out += P.Text;
    Pos = P.End;
  }
  Out += Buffer.substr(Pos, End - Pos);
  return Out;
}

Expected<std::pair<unsigned, unsigned>>
TextEdits::offsets(SourceRange R) const {
  const SourceManager &SM = Ctx.getSourceManager();
  if (inMacro(R))
    return refuse("the code at " + describeLocation(SM, R.getBegin()) +
                  " that needs rewriting is a macro expansion; cuda-opt "
                  "does not edit macro expansions");
  CharSourceRange C = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(R), SM, Ctx.getLangOpts());
  if (C.isInvalid())
    return refuse("the code at " + describeLocation(SM, R.getBegin()) +
                  " has no contiguous source text");
  return std::make_pair(SM.getFileOffset(C.getBegin()),
                        SM.getFileOffset(C.getEnd()));
}

} // namespace cuda_opt
