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
#include "cuda-opt/Search/KernelHash.h"
#include "cuda-opt/Search/RecordedChoice.h"
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

/// A kernel of the input as the database knows it.
struct KernelEntry {
  std::string Name, Hash;
};

/// The signature --spec describes, for the spec's kernel.
Expected<std::pair<std::string, std::string>>
specSignature(ParsedSource &Parsed, const std::vector<KernelInfo> &Kernels) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(cli::SpecPath);
  if (!Buf)
    return makeError("cannot read spec '" + cli::SpecPath +
                     "': " + Buf.getError().message());
  Expected<TuneSpec> Spec =
      TuneSpec::parse((*Buf)->getBuffer(), Parsed.getASTContext(), Kernels);
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

  // The kernels and their hashes, from the input as given.
  std::vector<KernelEntry> Entries;
  std::string SpecKernel, SpecSignature;
  {
    Expected<std::unique_ptr<ParsedSource>> P = parseSource(TC, In);
    if (!P)
      return P.takeError();
    clang::ASTContext &Ctx = (*P)->getASTContext();
    std::vector<KernelInfo> Kernels = findKernels(Ctx);
    if (!cli::KernelName.empty() && !lookupKernel(Kernels, cli::KernelName))
      return makeError("no kernel named '" + cli::KernelName + "' in " +
                       In.Path);
    if (!cli::SpecPath.empty()) {
      Expected<std::pair<std::string, std::string>> S =
          specSignature(**P, Kernels);
      if (!S)
        return S.takeError();
      std::tie(SpecKernel, SpecSignature) = *S;
    }
    for (const KernelInfo &K : Kernels)
      if (cli::KernelName.empty() || K.name() == cli::KernelName)
        Entries.push_back({K.name(), kernelHash(Ctx, K)});
  }

  SourceInput Current = In;
  std::string Header;
  auto Note = [](const Twine &Message) {
    WithColor::note(errs(), ToolName) << Message << "\n";
  };
  for (const KernelEntry &E : Entries) {
    TuningFilter F;
    F.KernelHash = E.Hash;
    Expected<std::vector<TuningRecord>> Rows = (*Db)->query(F);
    if (!Rows)
      return Rows.takeError();
    ChoiceOptions CO;
    CO.GpuModel = cli::GpuModel;
    CO.Model = cli::FpModelOpt;
    CO.Signature = !cli::Signature.empty() ? std::string(cli::Signature)
                   : E.Name == SpecKernel  ? SpecSignature
                                           : "";
    std::optional<RecordedChoice> C = chooseRecorded(*Rows, CO);
    if (!C) {
      Note("kernel '" + E.Name + "' (hash " + E.Hash + "): " +
           (Rows->empty() ? "nothing recorded in "
                          : "no verified measurement usable under "
                            "--fp-model=" +
                                fpModelName(cli::FpModelOpt).str() + " in ") +
           (*Db)->path() + "; left unchanged");
      continue;
    }
    const TuningRecord &B = C->Best;
    if (!C->ExactSignature)
      Note("kernel '" + E.Name + "': nothing recorded for the problem '" +
           CO.Signature + "'; using the nearest recorded one, '" +
           B.Key.Signature + "'");
    if (B.Key.Pipeline.empty()) {
      Note("kernel '" + E.Name + "': no recorded variant beat the original " +
           "on " + B.Key.Gpu.Model + "; left unchanged");
      continue;
    }
    Expected<std::vector<PassInvocation>> Pipeline =
        parsePipeline(B.Key.Pipeline);
    if (!Pipeline)
      return makeError("kernel '" + E.Name + "': the recorded pipeline '" +
                       B.Key.Pipeline +
                       "' does not parse: " + toString(Pipeline.takeError()));
    PipelineOptions PO;
    PO.KernelName = E.Name;
    PO.Format = !cli::NoFormat;
    PO.Model = cli::FpModelOpt;
    PO.OnStep = [](const StepRecord &S) { printNotes(S.Notes); };
    Expected<PipelineResult> R = runPipeline(TC, Current, *Pipeline, PO);
    if (!R) {
      // One line: the pipeline's reason comes on lines of its own.
      std::string Why = toString(R.takeError());
      SmallVector<StringRef> Lines;
      StringRef(Why).split(Lines, '\n', -1, /*KeepEmpty=*/false);
      Why.clear();
      for (StringRef L : Lines)
        Why += (Why.empty() || Why.back() == ':' ? " " : "; ") + L.trim().str();
      WithColor::warning(errs(), ToolName)
          << "kernel '" << E.Name << "': the recorded pipeline '"
          << B.Key.Pipeline << "' no longer applies:" << Why
          << "; left unchanged\n";
      continue;
    }
    Current.Text = R->Text;
    std::string Line = formatv("// cuda-opt apply: kernel '{0}': '{1}' from "
                               "the tuning database",
                               E.Name, B.Key.Pipeline);
    if (C->Speedup > 0)
      Line += formatv(", {0:F2}x over the original ({1:F4} ms -> {2:F4} ms)",
                      C->Speedup, C->Original->MedianMs, B.MedianMs);
    Line += " on " + B.Key.Gpu.Model + " (" + B.Key.FpModel + ", measured " +
            B.MeasuredAt + ")";
    if (!C->ExactSignature)
      Line += "; nearest recorded problem " + B.Key.Signature;
    Header += Line + ".\n";
    Note("kernel '" + E.Name + "': applied '" + B.Key.Pipeline + "'" +
         (C->Speedup > 0
              ? formatv(" ({0:F2}x on {1})", C->Speedup, B.Key.Gpu.Model).str()
              : std::string()));
  }
  return writeFileAtomically(Output, Header + standaloneText(TC, Current.Text));
}

} // namespace cuda_opt
