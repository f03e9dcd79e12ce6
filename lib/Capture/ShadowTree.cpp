//===- ShadowTree.cpp - A copy of the user's tree with one file replaced -===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Capture/ShadowTree.h"
#include "cuda-opt/Support/OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace cuda_opt {

/// \p Path relative to \p Root, or nullopt when it is not inside it.
static std::optional<std::string> relativeTo(StringRef Path, StringRef Root) {
  SmallString<256> P(Path), R(Root);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  sys::path::remove_dots(R, /*remove_dot_dot=*/true);
  StringRef PS(P), RS = StringRef(R).rtrim('/');
  if (!PS.starts_with(RS))
    return std::nullopt;
  StringRef Rest = PS.drop_front(RS.size());
  if (!Rest.empty() && Rest.front() != '/')
    return std::nullopt; // "/a/bc" is not inside "/a/b".
  return Rest.ltrim('/').str();
}

Expected<std::string> makeShadowTree(StringRef Root, StringRef Dest,
                                     StringRef File, StringRef Text,
                                     StringRef Skip) {
  std::optional<std::string> FileRel = relativeTo(File, Root);
  if (!FileRel || FileRel->empty())
    return createStringError(inconvertibleErrorCode(),
                             "with --run, %s must lie inside the directory "
                             "the command runs in (%s), which cuda-opt copies",
                             File.str().c_str(), Root.str().c_str());
  if (std::error_code EC = sys::fs::create_directories(Dest))
    return createStringError(EC, "cannot create %s", Dest.str().c_str());
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(Root, EC), End;
       It != End && !EC; It.increment(EC)) {
    StringRef Path = It->path();
    StringRef Name = sys::path::filename(Path);
    sys::fs::file_status St;
    if (sys::fs::status(Path, St))
      continue;
    bool IsDir = sys::fs::is_directory(St);
    if (IsDir && (Name == ".git" || Name == ".hg" || Name == ".svn" ||
                  (!Skip.empty() && sys::fs::equivalent(Path, Skip)))) {
      It.no_push();
      continue;
    }
    std::optional<std::string> Rel = relativeTo(Path, Root);
    if (!Rel)
      continue;
    SmallString<256> Target(Dest);
    sys::path::append(Target, *Rel);
    if (IsDir) {
      if (std::error_code E = sys::fs::create_directories(Target))
        return createStringError(E, "cannot create %s", Target.c_str());
      continue;
    }
    if (!sys::fs::is_regular_file(St) || *Rel == *FileRel)
      continue;
    if (std::error_code E = sys::fs::copy_file(Path, Target))
      return createStringError(E, "cannot copy %s", Path.str().c_str());
    sys::fs::setPermissions(Target, St.permissions()); // Keep scripts runnable.
  }
  if (EC)
    return createStringError(EC, "cannot walk %s", Root.str().c_str());
  SmallString<256> Copy(Dest);
  sys::path::append(Copy, *FileRel);
  sys::fs::create_directories(sys::path::parent_path(Copy));
  if (Error E = writeFileAtomically(Copy, Text))
    return std::move(E);
  return std::string(Copy);
}

} // namespace cuda_opt
