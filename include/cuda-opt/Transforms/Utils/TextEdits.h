//===- TextEdits.h - Edits of one range of the source text ------*- C++ -*-===//
//
// Part of cuda-opt. The row passes (cooperative-rows, split-reduce) rewrite a
// kernel's body piece by piece and then need the text of one statement with
// the edits inside it applied (to move it, or to emit it twice). TextEdits
// collects replacements of token ranges and insertions before or after them,
// and renders the text of any range that contains them.
//
//===----------------------------------------------------------------------===//
#ifndef CUDA_OPT_TRANSFORMS_UTILS_TEXTEDITS_H
#define CUDA_OPT_TRANSFORMS_UTILS_TEXTEDITS_H

#include "clang/AST/ASTContext.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace cuda_opt {

class TextEdits {
public:
  explicit TextEdits(const clang::ASTContext &Ctx) : Ctx(Ctx) {}

  /// Replace the token range \p R with \p Text.
  llvm::Error replace(clang::SourceRange R, std::string Text);
  /// Insert before the first token of \p R.
  llvm::Error insertBefore(clang::SourceRange R, std::string Text);
  /// Insert after the last token of \p R.
  llvm::Error insertAfter(clang::SourceRange R, std::string Text);

  /// The text of token range \p R with the edits inside it applied;
  /// insertions at one place come before a replacement starting there, in
  /// the order they were made. Overlapping replacements are an error.
  llvm::Expected<std::string> render(clang::SourceRange R) const;

private:
  struct Piece {
    unsigned Begin, End, Seq;
    std::string Text;
  };

  llvm::Error add(unsigned Begin, unsigned End, std::string Text);
  /// The file offsets of the token range \p R, or why it has none (a macro
  /// expansion, no contiguous text).
  llvm::Expected<std::pair<unsigned, unsigned>>
  offsets(clang::SourceRange R) const;

  const clang::ASTContext &Ctx;
  std::vector<Piece> Pieces;
  unsigned Seq = 0;
};

} // namespace cuda_opt

#endif // CUDA_OPT_TRANSFORMS_UTILS_TEXTEDITS_H
