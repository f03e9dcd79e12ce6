//===- CompileCubinCommand.cpp - --compile-cubin --------------------------===//
//
// Part of cuda-opt. Compiles the file's device code the way tune compiles a
// variant (NVRTC, else nvcc), writes the cubin to -o and says which compiler
// built it.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"

#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Measure/Measure.h"
#include "cuda-opt/Support/OutputFile.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cuda_opt {

Error compileCubin(const Toolchain &TC, const SourceInput &In,
                   StringRef Output) {
  if (Output == "-")
    return makeError("--compile-cubin needs -o FILE.cubin");
  VariantSource V;
  V.Id = "file";
  V.Text = In.Text;
  if (!cli::KernelName.empty()) {
    // NVRTC's output must contain this kernel (templates need nvcc's
    // instantiation from host code).
    Expected<std::unique_ptr<ParsedSource>> Parsed = parseSource(TC, In);
    if (!Parsed)
      return Parsed.takeError();
    clang::ASTContext &Ctx = (*Parsed)->getASTContext();
    std::vector<KernelInfo> Kernels = findKernels(Ctx);
    const KernelInfo *K = lookupKernel(Kernels, cli::KernelName);
    if (!K)
      return makeError("no kernel named '" + cli::KernelName + "' in '" +
                       In.Path + "'");
    V.Entry = launchedKernelSymbol(Ctx, *K);
  }
  CompileOptions CO;
  CO.SourcePath = In.Path;
  CO.Flags = In.Flags;
  CO.Arch = TC.GpuArch;
  SmallString<256> Cache;
  if (std::error_code EC =
          sys::fs::createUniqueDirectory("cuda-opt-cubin", Cache))
    return makeError("cannot create a directory: " + EC.message());
  CO.CacheDir = std::string(Cache); // Fresh: always compile.
  llvm::scope_exit RemoveCache([&] { sys::fs::remove_directories(Cache); });
  std::vector<std::string> Errors;
  std::vector<std::string> Cubins = compileVariants(TC, {V}, CO, Errors);
  if (Cubins[0].empty())
    return makeError(Errors[0]);
  std::string How = "compiled by nvcc";
  SmallString<256> Log(Cubins[0]);
  sys::path::replace_extension(Log, "log");
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Log)) {
    StringRef First = (*B)->getBuffer().split('\n').first;
    if (First.starts_with("compiled by NVRTC") || First.starts_with("NVRTC"))
      How = First.str();
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> Cubin = MemoryBuffer::getFile(
      Cubins[0], /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Cubin)
    return makeError("cannot read the cubin '" + Cubins[0] +
                     "': " + Cubin.getError().message());
  if (Error E = writeFileAtomically(Output, (*Cubin)->getBuffer()))
    return E;
  errs() << ToolName << ": " << How << "\n";
  return Error::success();
}

} // namespace cuda_opt
