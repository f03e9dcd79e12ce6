//===- ApplyCommand.cpp - cuda-opt apply ----------------------------------===//
//
// Part of cuda-opt. Re-applies, without a GPU, what tune measured: for each
// kernel whose AST hash the tuning database knows, the best verified
// recorded pipeline (RecordedChoice.h) is run through the pass pipeline,
// preferring the problem signature of --signature or --spec, else the
// nearest recorded one (with a note). Kernels with nothing recorded stay as
// they are, with a note. The output starts with one line per applied
// kernel: the pipeline, its recorded speedup and the GPU it was measured on.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"

#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Capture/TuneSpec.h"
#include "cuda-opt/Frontend/NvccCompat.h"
#include "cuda-opt/Search/ApplyRecorded.h"
#include "cuda-opt/Search/Tuner.h"
#include "cuda-opt/Search/TuningDatabase.h"
#include "cuda-opt/Support/OutputFile.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cuda_opt {

namespace {

/// The signature --spec describes, for the spec's kernel.
Expected<std::pair<std::string, std::string>>
specSignature(clang::ASTContext &Ctx, const std::vector<KernelInfo> &Kernels) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(cli::SpecPath);
  if (!Buf)
    return makeError("cannot read spec '" + cli::SpecPath +
                     "': " + Buf.getError().message());
  Expected<TuneSpec> Spec =
      TuneSpec::parse((*Buf)->getBuffer(), Ctx, Kernels);
  if (!Spec)
    return Spec.takeError();
  return std::make_pair(Spec->Kernel, specProblemSignature(*Spec));
}

} // namespace

Error applyRecorded(const Toolchain &TC, const SourceInput &In,
                    StringRef Output) {
  if (!cli::SpecPath.empty() && !cli::Signature.empty())
    return makeError("--spec and --signature both give the problem "
                     "signature; give one");
  Expected<std::unique_ptr<TuningDatabase>> Db =
      openTuningDatabase(TuningDatabase::OpenMode::Existing);
  if (!Db)
    return Db.takeError();

  ApplyOptions AO;
  AO.KernelName = cli::KernelName;
  AO.Signature = cli::Signature;
  AO.GpuModel = cli::GpuModel;
  AO.Model = cli::FpModelOpt;
  AO.Format = !cli::NoFormat;
  if (!cli::SpecPath.empty())
    AO.SpecSignature = specSignature;
  Expected<ApplyResult> R = applyRecordedChoices(TC, In, **Db, AO);
  if (!R)
    return R.takeError();
  auto Note = [](const Twine &Message) {
    WithColor::note(errs(), ToolName) << Message << "\n";
  };
  for (const AppliedKernel &A : R->Kernels) {
    printNotes(A.Notes);
    if (!A.NearestSignature.empty())
      Note("kernel '" + A.Name + "': nothing recorded for the problem '" +
           A.AskedSignature + "'; using the nearest recorded one, '" +
           A.NearestSignature + "'");
    if (A.Failed) {
      WithColor::warning(errs(), ToolName)
          << "kernel '" << A.Name << "': " << A.Why << "; left unchanged\n";
      continue;
    }
    if (A.Pipeline.empty()) {
      Note("kernel '" + A.Name + "'" +
           (A.Recorded ? std::string() : " (hash " + A.Hash + ")") + ": " +
           A.Why + "; left unchanged");
      continue;
    }
    Note("kernel '" + A.Name + "': applied '" + A.Pipeline + "'" +
         (A.Speedup > 0
              ? formatv(" ({0:F2}x on {1})", A.Speedup, A.Gpu).str()
              : std::string()));
  }
  return writeFileAtomically(Output,
                             R->Header + standaloneText(TC, R->Text));
}

} // namespace cuda_opt
