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

/// Add the tokens of \p Range (expansion locations) to \p Hash; with
/// \p KernelStart, from the line's start when only blanks or `__global__`
/// precede the range there (`__global__` written before the return type
/// is an attribute, outside the declaration's range on some spellings).
/// A range across files (or in none) adds \p Fallback instead.
static void hashTokens(SHA256 &Hash, ASTContext &Ctx, SourceRange Range,
                       bool KernelStart, StringRef Fallback) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Begin = SM.getExpansionLoc(Range.getBegin());
  SourceLocation End = SM.getExpansionLoc(Range.getEnd());
  FileID File = SM.getFileID(Begin);
  bool Invalid = false;
  StringRef Buffer = SM.getBufferData(File, &Invalid);
  if (Invalid || SM.getFileID(End) != File) {
    Hash.update(Fallback);
    return;
  }
  unsigned BeginOffset = SM.getFileOffset(Begin);
  unsigned EndOffset = SM.getFileOffset(End);
  if (KernelStart) {
    unsigned LineStart = BeginOffset;
    while (LineStart > 0 && Buffer[LineStart - 1] != '\n')
      --LineStart;
    if (Buffer.slice(LineStart, BeginOffset).trim().empty() ||
        Buffer.slice(LineStart, BeginOffset).contains("__global__"))
      BeginOffset = LineStart;
  }
  Lexer L(SM.getLocForStartOfFile(File), Ctx.getLangOpts(), Buffer.begin(),
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

static std::string digest(SHA256 &Hash) {
  std::array<uint8_t, 32> Digest = Hash.final();
  return toHex(ArrayRef<uint8_t>(Digest.data(), 8), /*LowerCase=*/true);
}

std::string kernelHash(ASTContext &Ctx, const KernelInfo &K) {
  SHA256 Hash;
  hashTokens(Hash, Ctx,
             K.Template ? K.Template->getSourceRange()
                        : K.Decl->getSourceRange(),
             /*KernelStart=*/true, K.name());
  return digest(Hash);
}

std::string regionHash(ASTContext &Ctx, SourceRange Region,
                       ArrayRef<KernelInfo> Kernels) {
  SHA256 Hash;
  Hash.update(StringRef("region\n"));
  hashTokens(Hash, Ctx, Region, /*KernelStart=*/false, "");
  for (const KernelInfo &K : Kernels)
    Hash.update(kernelHash(Ctx, K) + "\n");
  return digest(Hash);
}

} // namespace cuda_opt
