//===- ParsePreamble.cpp - Parse many variants of one file quickly --------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Frontend/ParsePreamble.h"
#include "ParseErrors.h"
#include "cuda-opt/Frontend/NvccCompat.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/PrecompiledPreamble.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Driver/CreateInvocationFromArgs.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Serialization/PCHContainerOperations.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace clang;
using namespace llvm;

namespace cuda_opt {

namespace {

/// The cc1 invocation of a syntax-only parse of \p Path on one side.
std::shared_ptr<CompilerInvocation>
invocationFor(const Toolchain &TC, StringRef Path, ArrayRef<std::string> Flags,
              CudaSide Side, IntrusiveRefCntPtr<DiagnosticsEngine> Diags) {
  std::vector<std::string> Args = TC.parseArguments(Side, Flags);
  Args.push_back("-fsyntax-only");
  Args.push_back(Path.str());
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  CreateInvocationOptions Opts;
  Opts.Diags = Diags;
  Opts.ProbePrecompiled = false;
  std::shared_ptr<CompilerInvocation> CI =
      createInvocation(Argv, std::move(Opts));
  // The virtual headers the arguments force-include (NvccCompat.h); whoever
  // runs the invocation owns the buffers.
  if (!CI)
    return CI;
  for (const auto &[Path, Text] : virtualHeaders(TC))
    CI->getPreprocessorOpts().addRemappedFile(
        Path, MemoryBuffer::getMemBufferCopy(Text, Path).release());
  return CI;
}

} // namespace

ParsePreamble::~ParsePreamble() = default;

std::shared_ptr<ParsePreamble> ParsePreamble::build(const Toolchain &TC,
                                                    const SourceInput &Input,
                                                    CudaSide Side) {
  // For comparisons and for ruling the preamble out when debugging a parse.
  if (std::getenv("CUDA_OPT_NO_PREAMBLE"))
    return nullptr;
  DiagnosticOptions DiagOpts;
  IntrusiveRefCntPtr<DiagnosticsEngine> Diags =
      CompilerInstance::createDiagnostics(*vfs::getRealFileSystem(), DiagOpts,
                                          new IgnoringDiagConsumer());
  std::shared_ptr<CompilerInvocation> CI =
      invocationFor(TC, Input.Path, Input.Flags, Side, Diags);
  if (!CI)
    return nullptr;
  // invocationFor hands the virtual headers' buffers to whoever runs the
  // invocation, and this function may return before anything runs it (no
  // preamble, or a failed build): keep them here and tell clang that the
  // caller retains them (the preamble keeps hashes of their contents, not the
  // buffers).
  std::vector<std::unique_ptr<const MemoryBuffer>> Retained;
  PreprocessorOptions &PPOpts = CI->getPreprocessorOpts();
  for (const auto &Remapped : PPOpts.RemappedFileBuffers)
    Retained.emplace_back(Remapped.second);
  PPOpts.RetainRemappedFileBuffers = true;
  std::unique_ptr<MemoryBuffer> Main = MemoryBuffer::getMemBufferCopy(
      normalizeSpacedLaunches(Input.Text), Input.Path);
  PreambleBounds Bounds =
      ComputePreambleBounds(CI->getLangOpts(), Main->getMemBufferRef(), 0);
  if (Bounds.Size == 0)
    return nullptr;
  PreambleCallbacks Callbacks;
  ErrorOr<PrecompiledPreamble> P = PrecompiledPreamble::Build(
      *CI, Main.get(), Bounds, Diags, vfs::getRealFileSystem(),
      std::make_shared<PCHContainerOperations>(), /*StoreInMemory=*/true,
      /*StoragePath=*/"", Callbacks);
  if (!P || Diags->hasErrorOccurred())
    return nullptr;
  std::shared_ptr<ParsePreamble> R(new ParsePreamble());
  R->Preamble = std::make_unique<PrecompiledPreamble>(std::move(*P));
  R->Side = Side;
  R->Flags = Input.Flags;
  R->Path = Input.Path;
  return R;
}

Expected<std::unique_ptr<ParsedSource>>
ParsePreamble::parse(const Toolchain &TC, const SourceInput &Input) const {
  if (Input.Path != Path || Input.Flags != Flags)
    return parseSource(TC, Input, Side);
  std::string Messages;
  raw_string_ostream OS(Messages);
  auto DiagOpts = std::make_shared<DiagnosticOptions>();
  DiagOpts->ShowColors = false;
  auto *Collector = new ParseErrorCollector(OS, *DiagOpts, Input.Path);
  IntrusiveRefCntPtr<DiagnosticsEngine> Diags =
      CompilerInstance::createDiagnostics(*vfs::getRealFileSystem(), *DiagOpts,
                                          Collector, /*ShouldOwnClient=*/true);
  std::shared_ptr<CompilerInvocation> CI =
      invocationFor(TC, Input.Path, Input.Flags, Side, Diags);
  if (!CI)
    return parseSource(TC, Input, Side);
  std::unique_ptr<MemoryBuffer> Main = MemoryBuffer::getMemBufferCopy(
      normalizeSpacedLaunches(Input.Text), Input.Path);
  PreambleBounds Bounds =
      ComputePreambleBounds(CI->getLangOpts(), Main->getMemBufferRef(), 0);
  IntrusiveRefCntPtr<vfs::FileSystem> VFS = vfs::getRealFileSystem();
  if (!Preamble->CanReuse(*CI, Main->getMemBufferRef(), Bounds, *VFS)) {
    // The prelude changed; nothing runs CI, so its buffers are ours to free.
    for (const auto &Remapped : CI->getPreprocessorOpts().RemappedFileBuffers)
      delete Remapped.second;
    return parseSource(TC, Input, Side);
  }
  // This also remaps the main file to Main; the ASTUnit frees the remapped
  // buffers when it dies.
  Preamble->AddImplicitPreamble(*CI, VFS, Main.release());
  IntrusiveRefCntPtr<FileManager> Files =
      new FileManager(CI->getFileSystemOpts(), VFS);
  std::unique_ptr<ASTUnit> Unit = ASTUnit::LoadFromCompilerInvocation(
      CI, std::make_shared<PCHContainerOperations>(), DiagOpts, Diags, Files);
  OS.flush();
  Expected<std::vector<NvccAcceptedError>> Accepted =
      checkParseErrors(Unit.get(), *Collector, Messages);
  if (!Accepted)
    return Accepted.takeError();
  // The collector writes to this function's string: give the AST a
  // consumer that outlives it.
  Unit->getDiagnostics().setClient(new IgnoringDiagConsumer(),
                                   /*ShouldOwnClient=*/true);
  return std::make_unique<ParsedSource>(std::move(Unit), std::move(*Accepted));
}

} // namespace cuda_opt
