//===- KernelHash.cpp - A kernel's identity across formatting -------------===//
//
// Part of cuda-opt. Lexes the kernel's source range in raw mode (comments
// are skipped; whitespace never makes a token) and hashes the spellings.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Search/KernelHash.h"
#include "cuda-opt/Analysis/KernelFinder.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

using namespace clang;
using namespace llvm;

namespace cuda_opt {

std::string kernelHash(ASTContext &Ctx, const KernelInfo &K) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  SourceRange Range =
      K.Template ? K.Template->getSourceRange() : K.Decl->getSourceRange();
  SourceLocation Begin = SM.getExpansionLoc(Range.getBegin());
  SourceLocation End = SM.getExpansionLoc(Range.getEnd());
  // `__global__` written before the return type is an attribute, outside
  // the declaration's range on some spellings: start from the line's start
  // when only blanks or `__global__` precede the range there.
  FileID File = SM.getFileID(Begin);
  bool Invalid = false;
  StringRef Buffer = SM.getBufferData(File, &Invalid);
  SHA256 Hash;
  if (Invalid || SM.getFileID(End) != File) {
    Hash.update(K.name());
  } else {
    unsigned BeginOffset = SM.getFileOffset(Begin);
    unsigned EndOffset = SM.getFileOffset(End);
    unsigned LineStart = BeginOffset;
    while (LineStart > 0 && Buffer[LineStart - 1] != '\n')
      --LineStart;
    if (Buffer.slice(LineStart, BeginOffset).trim().empty() ||
        Buffer.slice(LineStart, BeginOffset).contains("__global__"))
      BeginOffset = LineStart;
    Lexer L(SM.getLocForStartOfFile(File), LO, Buffer.begin(),
            Buffer.begin() + BeginOffset, Buffer.end());
    Token Tok;
    while (true) {
      L.LexFromRawLexer(Tok);
      if (Tok.is(tok::eof))
        break;
      unsigned Offset = SM.getFileOffset(Tok.getLocation());
      if (Offset > EndOffset)
        break;
      // A token's spelling as written (a line continuation inside a token
      // is layout too, but rare enough to keep).
      Hash.update(Buffer.substr(Offset, Tok.getLength()));
      Hash.update(StringRef("\n"));
    }
  }
  std::array<uint8_t, 32> Digest = Hash.final();
  return toHex(ArrayRef<uint8_t>(Digest.data(), 8), /*LowerCase=*/true);
}

} // namespace cuda_opt
