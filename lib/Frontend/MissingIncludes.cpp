//===- MissingIncludes.cpp - Where a header that was not found lies -------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "MissingIncludes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace cuda_opt {

static constexpr unsigned MaxLevelsUp = 3;
static constexpr unsigned MaxEntries = 20000;
static constexpr size_t MaxNotes = 3;

/// The directory searched for \p MainFile's headers: the nearest one holding
/// .git (a directory, or a file in a git worktree), else MaxLevelsUp above.
static std::string projectRoot(StringRef MainFile) {
  SmallString<256> Dir(sys::path::parent_path(MainFile));
  for (unsigned Level = 0;; ++Level) {
    SmallString<256> Git(Dir);
    sys::path::append(Git, ".git");
    StringRef Parent = sys::path::parent_path(Dir);
    if (sys::fs::exists(Git) || Level == MaxLevelsUp || Parent.empty())
      return std::string(Dir);
    Dir = Parent;
  }
}

/// The files under \p Root whose path ends with \p Spelling (the include's
/// text, e.g. "foo.h" or "sub/foo.h"), nearest to \p Root first. Hidden
/// directories (.git, .cache) and symbolic links are not entered.
static std::vector<std::string> findFiles(StringRef Root, StringRef Spelling) {
  SmallString<64> Suffix;
  sys::path::append(Suffix, sys::path::get_separator(), Spelling);
  std::vector<std::string> Found;
  std::error_code EC;
  unsigned Entries = 0;
  for (sys::fs::recursive_directory_iterator It(Root, EC, /*follow=*/false),
       End;
       It != End && !EC && Entries < MaxEntries; It.increment(EC), ++Entries) {
    StringRef Path = It->path();
    if (sys::path::filename(Path).starts_with(".")) {
      It.no_push();
      continue;
    }
    if (It->type() == sys::fs::file_type::regular_file &&
        Path.ends_with(Suffix))
      Found.push_back(Path.str());
  }
  llvm::sort(Found, [](const std::string &A, const std::string &B) {
    return std::make_pair(A.size(), A) < std::make_pair(B.size(), B);
  });
  return Found;
}

std::vector<std::string> missingIncludeNotes(StringRef Message,
                                             StringRef MainFile) {
  StringRef Spelling = Message;
  if (!Spelling.consume_front("'") ||
      !Spelling.consume_back("' file not found") || Spelling.empty() ||
      sys::path::is_absolute(Spelling) || MainFile.empty())
    return {};
  std::vector<std::string> Found = findFiles(projectRoot(MainFile), Spelling);
  std::vector<std::string> Notes;
  for (const std::string &Path : ArrayRef(Found).take_front(MaxNotes))
    Notes.push_back(
        ("found " + Path + "; add -I " +
         StringRef(Path).drop_back(Spelling.size() + 1))
            .str());
  if (Found.size() > MaxNotes)
    Notes.push_back((Twine(Found.size() - MaxNotes) + " more file" +
                     (Found.size() - MaxNotes == 1 ? "" : "s") +
                     " of that name in the project")
                        .str());
  return Notes;
}

} // namespace cuda_opt
