//===- OutputFile.cpp - Atomic output writing and text diffs -------------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Support/OutputFile.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

using namespace llvm;

namespace cuda_opt {

static Error cannotWrite(StringRef Path, std::error_code EC) {
  return createStringError(EC, "cannot write output '%s': %s",
                           Path.str().c_str(), EC.message().c_str());
}

/// Writes to a stream that is not a regular file (stdout, a device, a
/// pipe) and reports a failed write or close, such as a full disk.
static Error writeStream(StringRef Path, raw_fd_ostream &OS,
                         StringRef Contents, bool Close) {
  OS << Contents;
  if (Close)
    OS.close();
  else
    OS.flush(); // Before anything printed to stderr after it.
  if (!OS.has_error())
    return Error::success();
  std::error_code EC = OS.error();
  OS.clear_error(); // Reported here, not again when the stream goes away.
  return cannotWrite(Path == "-" ? "<stdout>" : Path, EC);
}

/// Writes a temporary file beside \p Path and renames it over \p Path only
/// when every byte was written. (llvm::writeToOutput renames it even after
/// a failed write, past a file-size limit, say, putting a truncated file in
/// place of the old one.)
static Error writeThroughTempFile(StringRef Path, StringRef Contents) {
  Expected<sys::fs::TempFile> Temp =
      sys::fs::TempFile::create(Path + ".tmp-%%%%%%");
  if (!Temp)
    return cannotWrite(Path, errorToErrorCode(Temp.takeError()));
  raw_fd_ostream OS(Temp->FD, /*shouldClose=*/false);
  OS << Contents;
  OS.flush();
  if (OS.has_error()) {
    std::error_code EC = OS.error();
    OS.clear_error();
    consumeError(Temp->discard());
    return cannotWrite(Path, EC);
  }
  if (Error E = Temp->keep(Path))
    return cannotWrite(Path, errorToErrorCode(std::move(E)));
  return Error::success();
}

Error writeFileAtomically(StringRef Path, StringRef Contents) {
  if (Path == "-")
    return writeStream(Path, outs(), Contents, /*Close=*/false);
  // A device, FIFO or socket is written in place: renaming a temporary
  // file over it would replace the device node itself.
  sys::fs::file_status Status;
  if (!sys::fs::status(Path, Status) && sys::fs::exists(Status) &&
      !sys::fs::is_regular_file(Status) && !sys::fs::is_directory(Status)) {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
    if (EC)
      return cannotWrite(Path, EC);
    return writeStream(Path, OS, Contents, /*Close=*/true);
  }
  return writeThroughTempFile(Path, Contents);
}

std::string unifiedDiff(StringRef OldName, StringRef Old, StringRef NewName,
                        StringRef New) {
  SmallVector<StringRef, 0> A, B;
  Old.split(A, '\n');
  New.split(B, '\n');
  const size_t N = A.size(), M = B.size();
  // Longest common subsequence table on lines; inputs are single source files.
  std::vector<std::vector<uint32_t>> L(N + 1, std::vector<uint32_t>(M + 1));
  for (size_t I = N; I-- > 0;)
    for (size_t J = M; J-- > 0;)
      L[I][J] = A[I] == B[J] ? L[I + 1][J + 1] + 1
                             : std::max(L[I + 1][J], L[I][J + 1]);
  // Edit script: ' ' keep, '-' delete, '+' insert, with line numbers.
  struct Op {
    char Kind;
    size_t OldLine, NewLine;
  };
  std::vector<Op> Ops;
  size_t I = 0, J = 0;
  while (I < N || J < M) {
    if (I < N && J < M && A[I] == B[J]) {
      Ops.push_back({' ', I++, J++});
    } else if (I < N && (J == M || L[I + 1][J] >= L[I][J + 1])) {
      Ops.push_back({'-', I++, J});
    } else {
      Ops.push_back({'+', I, J++});
    }
  }
  std::string Out;
  raw_string_ostream OS(Out);
  OS << "--- " << OldName << "\n+++ " << NewName << "\n";
  const size_t Context = 3;
  size_t K = 0;
  while (K < Ops.size()) {
    if (Ops[K].Kind == ' ') {
      ++K;
      continue;
    }
    // A hunk: from Context lines before this change up to Context lines after
    // the last change that is within 2*Context of the previous one.
    size_t Start = K >= Context ? K - Context : 0;
    size_t End = K;
    size_t Quiet = 0;
    for (size_t P = K; P < Ops.size(); ++P) {
      if (Ops[P].Kind == ' ') {
        if (++Quiet > 2 * Context)
          break;
      } else {
        Quiet = 0;
        End = P;
      }
    }
    size_t Stop = std::min(Ops.size(), End + Context + 1);
    size_t OldCount = 0, NewCount = 0;
    for (size_t P = Start; P < Stop; ++P) {
      if (Ops[P].Kind != '+')
        ++OldCount;
      if (Ops[P].Kind != '-')
        ++NewCount;
    }
    OS << "@@ -" << Ops[Start].OldLine + 1 << "," << OldCount << " +"
       << Ops[Start].NewLine + 1 << "," << NewCount << " @@\n";
    for (size_t P = Start; P < Stop; ++P) {
      StringRef Line = Ops[P].Kind == '+' ? B[Ops[P].NewLine] : A[Ops[P].OldLine];
      OS << Ops[P].Kind << Line << "\n";
    }
    K = Stop;
  }
  return Out;
}

} // namespace cuda_opt
