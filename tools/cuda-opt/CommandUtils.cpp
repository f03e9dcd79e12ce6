//===- CommandUtils.cpp - What the modes of cuda-opt share ----------------===//
//
// Part of cuda-opt. Inputs and their parse flags, error reporting and notes.
//
// The flags come from after "--" and from -p's compile_commands.json, read
// here rather than through clang::tooling::CommonOptionsParser, which
// differs in ways the lit tests see: without -p or "--" it searches the
// input's parent directories for a database and warns "Error while trying to
// load a compilation database" when there is none; a -p without a database
// is a warning there ("Running without flags"), an error here
// (test/Driver/missing-toolchain.cu); it ignores -p when "--" is given,
// where cuda-opt appends the "--" flags to the database's; and it passes the
// "--" flags through the clang driver, which drops what it takes for inputs.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"

#include "cuda-opt/Analysis/KernelFinder.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace clang;
using namespace llvm;

namespace cuda_opt {

Error makeError(const Twine &Message) { return createStringError(Message); }

int reportError(Error E) {
  WithColor::error(errs(), ToolName) << toString(std::move(E)) << "\n";
  return 1;
}

void printNotes(ArrayRef<std::string> Notes) {
  for (const std::string &Note : Notes)
    WithColor::note(errs(), ToolName) << Note << "\n";
}

std::vector<std::string> takeParseFlags(int &Argc, const char *const *Argv) {
  std::vector<std::string> Flags;
  for (int I = 1; I < Argc; ++I)
    if (StringRef(Argv[I]) == "--") {
      Flags.assign(Argv + I + 1, Argv + Argc);
      Argc = I;
      break;
    }
  return Flags;
}

Expected<std::unique_ptr<tooling::CompilationDatabase>>
loadCompilationDatabase() {
  if (cli::BuildPath.empty())
    return nullptr;
  std::string Err;
  std::unique_ptr<tooling::CompilationDatabase> DB =
      tooling::CompilationDatabase::loadFromDirectory(cli::BuildPath, Err);
  if (!DB)
    return makeError("cannot load compile_commands.json from '" +
                     cli::BuildPath + "': " + Err);
  return std::move(DB);
}

/// Warn about each clang error a parse accepted because nvcc 13 compiles
/// the code (SourceParser.h), once: the file's parses on both sides and of
/// its rewrites report the same declaration again, at lines that may move.
static void warnOnNvccAcceptedErrors() {
  static std::mutex Mutex;
  static StringSet<> Printed;
  setNvccAcceptedErrorHandler([](const NvccAcceptedError &E) {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Printed.insert(E.Message).second)
      WithColor::warning(errs(), ToolName)
          << E.Location << ": " << E.Message << "\n";
  });
}

Expected<SourceInput> loadInput(StringRef File,
                                const tooling::CompilationDatabase *DB,
                                ArrayRef<std::string> ExtraFlags) {
  // Every mode that parses a file loads it here first.
  static std::once_flag Once;
  std::call_once(Once, warnOnNvccAcceptedErrors);
  SmallString<256> Abs(File);
  if (std::error_code EC = sys::fs::make_absolute(Abs))
    return createStringError(EC, "cannot resolve path '%s'",
                             File.str().c_str());
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Abs);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read input file '%s': %s",
                             File.str().c_str(),
                             Buf.getError().message().c_str());
  SourceInput In;
  In.Path = std::string(Abs);
  In.Text = (*Buf)->getBuffer().str();
  if (DB) {
    std::vector<tooling::CompileCommand> Cmds = DB->getCompileCommands(Abs);
    if (Cmds.empty())
      WithColor::warning(errs(), ToolName)
          << "'" << File << "' is not in the compilation database; parsing "
          << "it with the flags given after '--' only\n";
    else
      In.Flags = filterParseFlags(Cmds.front().CommandLine);
  }
  In.Flags.insert(In.Flags.end(), ExtraFlags.begin(), ExtraFlags.end());
  return In;
}

Error forSelectedKernels(
    const Toolchain &TC, const SourceInput &In,
    function_ref<void(clang::ASTContext &, const KernelInfo &)> Fn) {
  Expected<std::unique_ptr<ParsedSource>> Parsed = parseSource(TC, In);
  if (!Parsed)
    return Parsed.takeError();
  clang::ASTContext &Ctx = (*Parsed)->getASTContext();
  std::vector<KernelInfo> Kernels = findKernels(Ctx);
  if (!cli::KernelName.empty() && !lookupKernel(Kernels, cli::KernelName))
    return makeError("no kernel named '" + cli::KernelName + "' in '" +
                     In.Path + "'");
  for (const KernelInfo &K : Kernels)
    if (cli::KernelName.empty() || K.name() == cli::KernelName)
      Fn(Ctx, K);
  return Error::success();
}

} // namespace cuda_opt
