//===- ProgramCapture.cpp - Build, run and read back a captured launch ----===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "WorkerProtocol.h"
#include "cuda-opt/Analysis/KernelModel.h"
#include "cuda-opt/Capture/Capture.h"
#include "cuda-opt/Capture/ShadowTree.h"
#include "cuda-opt/Capture/TuneSpec.h"
#include "cuda-opt/Frontend/NvccCompat.h"
#include "cuda-opt/Support/GpuLock.h"
#include "cuda-opt/Support/OutputFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

extern char **environ;

namespace cuda_opt {

StringRef captureRuntimeHeader() {
  static const char Text[] =
#include "CaptureRuntimeHeader.inc"
      ;
  return StringRef(Text, sizeof(Text) - 1);
}

namespace {

std::string tail(StringRef Path, size_t Bytes = 1500) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  if (!B)
    return "";
  return (*B)->getBuffer().take_back(Bytes).trim().str();
}

/// Run a program with a deadline, stdout+stderr to \p Log.
int runLogged(ArrayRef<std::string> Argv, StringRef Log, unsigned Seconds,
              std::optional<ArrayRef<StringRef>> Env, std::string &ErrMsg) {
  std::vector<StringRef> Args(Argv.begin(), Argv.end());
  std::optional<StringRef> Redirects[] = {StringRef(""), Log, Log};
  return sys::ExecuteAndWait(Args[0], Args, Env, Redirects, Seconds, 0,
                             &ErrMsg);
}

} // namespace

Expected<CapturedLaunch> CapturedLaunch::load(StringRef Dir) {
  SmallString<256> Path(Dir);
  sys::path::append(Path, "capture.json");
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  if (!B)
    return createStringError(B.getError(), "no capture record %s",
                             Path.c_str());
  Expected<json::Value> V = json::parse((*B)->getBuffer());
  if (!V)
    return V.takeError();
  const json::Object *O = V->getAsObject();
  auto Bad = [&](StringRef What) {
    return createStringError(inconvertibleErrorCode(),
                             "malformed capture record %s: %s", Path.c_str(),
                             What.str().c_str());
  };
  if (!O)
    return Bad("not an object");
  CapturedLaunch L;
  L.Dir = Dir.str();
  L.Kernel = O->getString("kernel").value_or("").str();
  L.Site = static_cast<unsigned>(O->getInteger("site").value_or(0));
  L.Launch = O->getInteger("launch").value_or(0);
  L.Full = O->getString("mode").value_or("full") == "full";
  L.Shmem = O->getInteger("shmem").value_or(0);
  L.DefaultStream = O->getBoolean("default_stream").value_or(true);
  for (auto [Key, Dims] : {std::pair<StringRef, std::array<int64_t, 3> *>{
                               "grid", &L.Grid},
                           {"block", &L.Block}}) {
    const json::Array *A = O->getArray(Key);
    if (!A || A->size() != 3)
      return Bad(Key.str() + " is not three numbers");
    for (unsigned D = 0; D < 3; ++D)
      (*Dims)[D] = (*A)[D].getAsInteger().value_or(1);
  }
  if (const json::Array *Probes = O->getArray("probes")) {
    for (const json::Value &PV : *Probes) {
      const json::Object *P = PV.getAsObject();
      if (!P)
        return Bad("probe is not an object");
      CapturedLaunch::Probed Pr;
      Pr.Variant = static_cast<int>(P->getInteger("variant").value_or(-1));
      Pr.Shmem = P->getInteger("shmem").value_or(0);
      for (auto [Key, Dims] : {std::pair<StringRef, std::array<int64_t, 3> *>{
                                   "grid", &Pr.Grid},
                               {"block", &Pr.Block}}) {
        const json::Array *A = P->getArray(Key);
        if (!A || A->size() != 3)
          return Bad("probe " + Key.str() + " is not three numbers");
        for (unsigned D = 0; D < 3; ++D)
          (*Dims)[D] = (*A)[D].getAsInteger().value_or(1);
      }
      L.Probes.push_back(Pr);
    }
  }
  const json::Array *Allocs = O->getArray("allocs");
  const json::Array *Params = O->getArray("params");
  if (!Allocs || !Params)
    return Bad("missing params or allocs");
  for (const json::Value &AV : *Allocs) {
    const json::Object *A = AV.getAsObject();
    if (!A)
      return Bad("alloc is not an object");
    CapturedAlloc CA;
    CA.Size = static_cast<uint64_t>(A->getInteger("size").value_or(0));
    auto InDir = [&](StringRef Name) {
      if (Name.empty())
        return std::string();
      SmallString<256> P(Dir);
      sys::path::append(P, Name);
      return std::string(P);
    };
    CA.Before = InDir(A->getString("before").value_or(""));
    CA.After = InDir(A->getString("after").value_or(""));
    CA.Changed = A->getBoolean("changed").value_or(false);
    L.Allocs.push_back(CA);
  }
  for (const json::Value &PV : *Params) {
    const json::Object *P = PV.getAsObject();
    if (!P)
      return Bad("param is not an object");
    CapturedParam CP;
    StringRef Kind = P->getString("kind").value_or("");
    if (Kind == "value") {
      CP.K = CapturedParam::Value;
      std::string Bytes;
      if (!tryGetFromHex(P->getString("bytes").value_or(""), Bytes))
        return Bad("value bytes are not hex");
      CP.Bytes.assign(Bytes.begin(), Bytes.end());
    } else if (Kind == "null") {
      CP.K = CapturedParam::Null;
    } else if (Kind == "pointer") {
      CP.K = CapturedParam::Pointer;
      CP.Alloc = static_cast<int>(P->getInteger("alloc").value_or(-1));
      CP.Offset = static_cast<uint64_t>(P->getInteger("offset").value_or(0));
      CP.Memory = P->getString("memory").value_or("unknown").str();
      if (CP.Alloc >= static_cast<int>(L.Allocs.size()))
        return Bad("pointer to an unknown allocation");
    } else {
      return Bad("param kind '" + Kind.str() + "'");
    }
    L.Params.push_back(std::move(CP));
  }
  return L;
}

Expected<CapturedLaunch> captureLaunch(const Toolchain &TC,
                                       const SourceInput &Input,
                                       ParsedSource &Parsed, StringRef Kernel,
                                       const CaptureOptions &Opts) {
  clang::ASTContext &Ctx = Parsed.getASTContext();
  std::vector<KernelInfo> Kernels = findKernels(Ctx);
  const KernelInfo *K = lookupKernel(Kernels, Kernel);
  if (!K)
    return createStringError(inconvertibleErrorCode(),
                             "kernel '%s' is not defined in %s",
                             Kernel.str().c_str(), Input.Path.c_str());
  Expected<InstrumentedSource> Inst =
      instrumentForCapture(Ctx, *K, Input.Text,
                           Opts.Probes.empty() ? nullptr : &Opts.Probes);
  if (!Inst)
    return Inst.takeError();
  std::string What = "launch #" + std::to_string(Opts.LaunchIndex) +
                     " of kernel '" + Kernel.str() + "' (" +
                     std::to_string(Inst->Sites) + " site" +
                     (Inst->Sites == 1 ? "" : "s") + " instrumented)";
  return captureInstrumented(TC, Input, Inst->Text, What, Opts);
}

Expected<CapturedLaunch> captureInstrumented(const Toolchain &TC,
                                             const SourceInput &Input,
                                             StringRef InstrumentedText,
                                             StringRef What,
                                             const CaptureOptions &Opts) {
  // What the program's build compiles; under --cuda-legacy it carries the
  // mapping of the removed runtime calls.
  std::string Text = standaloneText(TC, InstrumentedText, /*KeepLines=*/true);
  SmallString<256> Dir(Opts.WorkDir);
  sys::path::append(Dir, "capture-" + Opts.Tag);
  sys::fs::remove_directories(Dir);
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError(EC, "cannot create %s: %s", Dir.c_str(),
                             EC.message().c_str());
  SmallString<256> BuildLog(Dir), RunLog(Dir);
  sys::path::append(BuildLog, "build.log");
  sys::path::append(RunLog, "run.log");

  // The program runs with the user's environment plus the capture settings.
  std::vector<std::string> EnvStore;
  for (char **E = environ; *E; ++E) {
    StringRef S(*E);
    if (!S.starts_with("CUDA_OPT_CAPTURE_"))
      EnvStore.push_back(S.str());
  }
  EnvStore.push_back("CUDA_OPT_CAPTURE_DIR=" + std::string(Dir));
  EnvStore.push_back("CUDA_OPT_CAPTURE_LAUNCH=" +
                     std::to_string(Opts.LaunchIndex));
  EnvStore.push_back(std::string("CUDA_OPT_CAPTURE_MODE=") +
                     (Opts.ConfigOnly ? "config" : "full"));
  std::vector<StringRef> Env(EnvStore.begin(), EnvStore.end());
  std::vector<std::string> Run;
  std::string ErrMsg;

  if (!Opts.RunCommand.empty()) {
    // --run: the user's command builds and runs the program in a copy of
    // the tree it runs in, with this file instrumented.
    SmallString<256> Tree(Dir);
    sys::path::append(Tree, "tree");
    Expected<std::string> Copy = makeShadowTree(
        Opts.RunRoot, Tree, Input.Path, Text, Opts.WorkDir);
    if (!Copy)
      return Copy.takeError();
    SmallString<256> Header(sys::path::parent_path(*Copy));
    sys::path::append(Header, "cuda_opt_capture.h");
    if (Error E = writeFileAtomically(Header, captureRuntimeHeader()))
      return std::move(E);
    Run = {"/bin/sh", "-c",
           "cd '" + std::string(Tree) + "' && " + Opts.RunCommand};
  } else {
    SmallString<256> Header(Dir), Source(Dir), Program(Dir);
    sys::path::append(Header, "cuda_opt_capture.h");
    sys::path::append(Source, sys::path::filename(Input.Path));
    sys::path::append(Program, "program");
    if (Error E = writeFileAtomically(Header, captureRuntimeHeader()))
      return std::move(E);
    if (Error E = writeFileAtomically(Source, Text))
      return std::move(E);

    SmallString<256> Nvcc(TC.CudaPath);
    sys::path::append(Nvcc, "bin", "nvcc");
    std::vector<std::string> Build = {std::string(Nvcc), "-O3",
                                      "-arch=" + Opts.Arch, "-w", "-I",
                                      std::string(Dir), "-I",
                                      sys::path::parent_path(Input.Path).str()};
    bool HasStd = llvm::any_of(Opts.Flags, [](const std::string &F) {
      return StringRef(F).starts_with("-std");
    });
    if (!HasStd)
      Build.push_back("-std=c++17"); // The capture runtime needs C++17.
    Build.insert(Build.end(), Opts.Flags.begin(), Opts.Flags.end());
    Build.push_back(std::string(Source));
    Build.push_back("-o");
    Build.push_back(std::string(Program));
    if (runLogged(Build, BuildLog, 900, std::nullopt, ErrMsg) != 0)
      return createStringError(inconvertibleErrorCode(),
                               "nvcc could not build the instrumented program "
                               "(%s): %s",
                               BuildLog.c_str(), tail(BuildLog).c_str());
    Run = {std::string(Program)};
    Run.insert(Run.end(), Opts.ProgramArgs.begin(), Opts.ProgramArgs.end());
  }
  int RC;
  {
    // The program must not disturb another process's timing; other captures
    // may run beside it.
    GpuLock Lock(0, GpuLock::Shared);
    RC = runLogged(Run, RunLog, Opts.TimeoutSeconds, ArrayRef<StringRef>(Env),
                   ErrMsg);
  }
  SmallString<256> Manifest(Dir);
  sys::path::append(Manifest, "capture.json");
  if (!sys::fs::exists(Manifest)) {
    std::string Why =
        RC == -1 ? "did not finish (" + ErrMsg + ")"
                 : "exited with status " + std::to_string(RC);
    return createStringError(
        inconvertibleErrorCode(),
        "the instrumented program %s before %s; log %s:\n%s", Why.c_str(),
        What.str().c_str(), RunLog.c_str(), tail(RunLog).c_str());
  }
  if (RC == 86)
    return createStringError(inconvertibleErrorCode(),
                             "capture failed in the program: %s",
                             tail(RunLog).c_str());
  return CapturedLaunch::load(Dir);
}

std::optional<int64_t> capturedInteger(const CapturedParam &P,
                                       clang::QualType T) {
  if (P.K != CapturedParam::Value || !T->isIntegerType() ||
      (P.Bytes.size() != 4 && P.Bytes.size() != 8))
    return std::nullopt;
  if (P.Bytes.size() == 4) {
    uint32_t U = 0;
    std::memcpy(&U, P.Bytes.data(), 4);
    return T->isSignedIntegerType() ? int64_t(int32_t(U)) : int64_t(U);
  }
  int64_t V = 0;
  std::memcpy(&V, P.Bytes.data(), 8);
  return V;
}

json::Object scalarReplayArg(StringRef Name, const CapturedParam &P) {
  std::vector<uint8_t> Bytes = P.Bytes;
  if (P.K == CapturedParam::Null)
    Bytes.assign(sizeof(void *), 0);
  return json::Object{{worker::arg::Name, Name.str()},
                      {worker::arg::Kind, worker::arg::KindScalar},
                      {worker::arg::DType, "raw"},
                      {worker::arg::Raw, toHex(Bytes, /*LowerCase=*/true)}};
}

std::string replayDType(clang::QualType Pointee, const CapturedAlloc &A,
                        uint64_t Offset, clang::ASTContext &Ctx,
                        uint64_t &Elt) {
  std::string DType = Pointee.isNull() ? "" : runtimeDTypeOf(Pointee, Ctx);
  Elt = 1;
  if (!DType.empty() && !Pointee->isIncompleteType())
    Elt = Ctx.getTypeSizeInChars(Pointee).getQuantity();
  if (DType.empty() || Elt == 0 || A.Size % Elt != 0 || Offset % Elt != 0) {
    Elt = 1;
    return "u8"; // Compared bit for bit.
  }
  return DType;
}

Expected<json::Array> replayArgs(const CapturedLaunch &L,
                                 clang::ASTContext &Ctx, const KernelInfo &K,
                                 const KernelModel &Model) {
  const clang::FunctionDecl *FD = K.Decl;
  if (FD->getNumParams() != L.Params.size())
    return createStringError(inconvertibleErrorCode(),
                             "the captured launch has %zu arguments, kernel "
                             "'%s' takes %u",
                             L.Params.size(), K.name().c_str(),
                             FD->getNumParams());
  if (!L.Full)
    return createStringError(inconvertibleErrorCode(),
                             "a config-only capture has no buffer contents");
  json::Array Args;
  std::vector<int> OwnerOfAlloc(L.Allocs.size(), -1);
  for (unsigned I = 0; I < L.Params.size(); ++I) {
    const CapturedParam &P = L.Params[I];
    const clang::ParmVarDecl *PD = FD->getParamDecl(I);
    std::string Name = PD->getNameAsString();
    if (Name.empty())
      Name = "arg" + std::to_string(I);
    if (P.K != CapturedParam::Pointer) {
      Args.push_back(scalarReplayArg(Name, P));
      continue;
    }
    if (P.Memory != "device" && P.Memory != "managed")
      return createStringError(
          inconvertibleErrorCode(),
          "argument '%s' points to %s memory; program mode replays device and "
          "managed allocations only",
          Name.c_str(),
          P.Memory == "host" ? "pinned host" : "unidentified");
    const CapturedAlloc &A = L.Allocs[P.Alloc];
    if (OwnerOfAlloc[P.Alloc] >= 0) {
      Args.push_back(
          json::Object{{worker::arg::Name, Name},
                       {worker::arg::Kind, worker::arg::KindBuffer},
                       {worker::arg::SameAs, OwnerOfAlloc[P.Alloc]},
                       {worker::arg::Offset, static_cast<int64_t>(P.Offset)}});
      continue;
    }
    OwnerOfAlloc[P.Alloc] = static_cast<int>(I);
    uint64_t Elt = 1;
    std::string DType =
        replayDType(PD->getType()->getPointeeType(), A, P.Offset, Ctx, Elt);
    const ParamInfo *PI = I < Model.Params.size() ? &Model.Params[I] : nullptr;
    bool Written = PI && (PI->Writes > 0 || PI->Atomics > 0);
    bool Read = !PI || PI->Reads > 0 || PI->Atomics > 0;
    bool Output = A.Changed || Written;
    // An output the kernel never reads is poisoned before each run, so a
    // variant that skips part of it is caught.
    bool Input = !Output || Read || !Written;
    Args.push_back(
        json::Object{{worker::arg::Name, Name},
                     {worker::arg::Kind, worker::arg::KindBuffer},
                     {worker::arg::DType, DType},
                     {worker::arg::Count, static_cast<int64_t>(A.Size / Elt)},
                     {worker::arg::Init, worker::arg::InitFile},
                     {worker::arg::File, A.Before},
                     {worker::arg::Perturb, true},
                     {worker::arg::Offset, static_cast<int64_t>(P.Offset)},
                     {worker::arg::Output, Output},
                     {worker::arg::Input, Input},
                     {worker::arg::ExpectFile, A.After}});
  }
  return Args;
}

} // namespace cuda_opt
