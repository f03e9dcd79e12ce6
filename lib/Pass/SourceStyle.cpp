//===- SourceStyle.cpp - The formatting style of the user's file ---------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Pass/SourceStyle.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <map>

using namespace clang;
using namespace llvm;

namespace cuda_opt {

/// True when a .clang-format or _clang-format governs \p Path.
static bool hasStyleFile(StringRef Path) {
  SmallString<256> Dir = sys::path::parent_path(Path);
  while (!Dir.empty()) {
    for (const char *Name : {".clang-format", "_clang-format"}) {
      SmallString<256> P(Dir);
      sys::path::append(P, Name);
      if (sys::fs::exists(P))
        return true;
    }
    StringRef Parent = sys::path::parent_path(Dir);
    if (Parent == Dir)
      break;
    Dir = Parent;
  }
  return false;
}

format::FormatStyle styleForFile(StringRef Path, StringRef Code) {
  if (hasStyleFile(Path)) {
    Expected<format::FormatStyle> S = format::getStyle("file", Path, "LLVM", Code);
    if (S)
      return *S;
    consumeError(S.takeError());
  }
  format::FormatStyle Style = format::getLLVMStyle();
  // Keep inserted directives (#pragma unroll) at the code's indentation.
  Style.IndentPPDirectives = format::FormatStyle::PPDIS_Leave;
  SmallVector<StringRef, 0> Lines;
  Code.split(Lines, '\n');
  std::map<unsigned, unsigned> IndentSteps;
  unsigned TabLines = 0, SpaceLines = 0, Longest = 0, OwnLineBraces = 0,
           SameLineBraces = 0;
  unsigned PrevIndent = 0;
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef L = Lines[I].rtrim();
    StringRef Body = L.ltrim(" \t");
    if (Body.empty() || Body.starts_with("//") || Body.starts_with("*") ||
        Body.starts_with("/*") || Body.starts_with("#"))
      continue;
    // Code lines only: long comments say nothing about the code's width.
    Longest = std::max<unsigned>(Longest, L.size());
    unsigned Indent = L.size() - Body.size();
    if (L.starts_with("\t"))
      ++TabLines;
    else if (Indent > 0)
      ++SpaceLines;
    if (Indent > PrevIndent && !L.starts_with("\t"))
      ++IndentSteps[Indent - PrevIndent];
    PrevIndent = Indent;
    // Function bodies: `) {` at the end of a line vs `{` alone on a line
    // after a line ending in `)`.
    if (Indent == 0 && Body == "{" && I > 0 && Lines[I - 1].rtrim().ends_with(")"))
      ++OwnLineBraces;
    if (Indent == 0 && Body.ends_with(") {"))
      ++SameLineBraces;
  }
  unsigned Best = 0, BestCount = 0;
  for (auto [Step, Count] : IndentSteps)
    if (Count > BestCount && Step >= 2 && Step <= 8) {
      Best = Step;
      BestCount = Count;
    }
  if (Best)
    Style.IndentWidth = Best;
  Style.ContinuationIndentWidth = std::max(4u, Style.IndentWidth);
  if (TabLines > SpaceLines) {
    Style.UseTab = format::FormatStyle::UT_ForIndentation;
    Style.TabWidth = Style.IndentWidth = 8;
  }
  // Never reflow a file's long lines into a narrower column than it uses.
  if (Longest > Style.ColumnLimit)
    Style.ColumnLimit = std::min(Longest, 160u);
  if (OwnLineBraces > SameLineBraces) {
    Style.BreakBeforeBraces = format::FormatStyle::BS_Custom;
    Style.BraceWrapping.AfterFunction = true;
  }
  return Style;
}

} // namespace cuda_opt
