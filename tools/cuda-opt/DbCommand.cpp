//===- DbCommand.cpp - cuda-opt db ----------------------------------------===//
//
// Part of cuda-opt. The tuning database's subcommand (docs/tuning-database.md):
//   db stats                    rows, kernels, GPUs and the schema version
//   db list [--kernel-hash H]   one line per measurement
//   db best FILE.cu...          each kernel's best verified variant per GPU
//   db export [-o F]            every measurement as JSON Lines
//   db import F.jsonl...        the inverse (idempotent); nothing is written
//                               when a line is wrong
//   db merge A B                B's measurements into A
//   db hash FILE.cu...          each kernel's AST hash
// --db names the database (default: TuningDatabase.h).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "Options.h"

#include "cuda-opt/Analysis/KernelFinder.h"
#include "cuda-opt/Search/KernelHash.h"
#include "cuda-opt/Search/RecordedChoice.h"
#include "cuda-opt/Search/TuningDatabase.h"
#include "cuda-opt/Support/OutputFile.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace llvm;

namespace cuda_opt {

Expected<std::unique_ptr<TuningDatabase>>
openTuningDatabase(TuningDatabase::OpenMode Mode) {
  std::string Path = cli::DbPath.empty() ? defaultTuningDatabasePath()
                                         : std::string(cli::DbPath);
  return TuningDatabase::open(Path, Mode);
}

namespace {

using OpenMode = TuningDatabase::OpenMode;

std::string pipelineName(StringRef Pipeline) {
  return Pipeline.empty() ? "(original)" : Pipeline.str();
}

Error stats() {
  Expected<std::unique_ptr<TuningDatabase>> Db =
      openTuningDatabase(OpenMode::Existing);
  if (!Db)
    return Db.takeError();
  Expected<TuningStats> S = (*Db)->stats();
  if (!S)
    return S.takeError();
  outs() << "database: " << (*Db)->path() << "\n"
         << "schema version: " << S->SchemaVersion << "\n"
         << "rows: " << S->Rows << "\n"
         << "verified rows: " << S->Verified << "\n"
         << "kernels: " << S->Kernels << "\n"
         << "gpus: " << S->Gpus << "\n"
         << "not-measured rows (dry runs): " << S->NotMeasured << "\n";
  return Error::success();
}

Error list() {
  Expected<std::unique_ptr<TuningDatabase>> Db =
      openTuningDatabase(OpenMode::Existing);
  if (!Db)
    return Db.takeError();
  TuningFilter F;
  F.KernelHash = cli::KernelHashFilter;
  F.GpuModel = cli::GpuModel;
  Expected<std::vector<TuningRecord>> Rows = (*Db)->query(F);
  if (!Rows)
    return Rows.takeError();
  for (const TuningRecord &R : *Rows) {
    if (!R.measured()) {
      // A dry run's candidate: no GPU, no timings to show.
      outs() << formatv("{0} {1} on {2}: {3} [{4}] not measured",
                        R.Key.KernelHash, R.KernelName, R.Key.Gpu.Model,
                        pipelineName(R.Key.Pipeline), R.Key.FpModel);
      outs() << " (" << StringRef(R.FailureReason).take_front(120) << "); "
             << R.Key.Signature << "; " << R.Host << " " << R.MeasuredAt
             << "\n";
      continue;
    }
    outs() << formatv("{0} {1} on {2} ({3} SMs): {4} [{5}] {6:F4} ms "
                      "(p10 {7:F4}, p90 {8:F4}) {9}",
                      R.Key.KernelHash, R.KernelName, R.Key.Gpu.Model,
                      R.Key.Gpu.SmCount, pipelineName(R.Key.Pipeline),
                      R.Key.FpModel, R.MedianMs, R.P10Ms, R.P90Ms, R.Verdict);
    if (!R.FailureReason.empty())
      outs() << " (" << StringRef(R.FailureReason).take_front(120) << ")";
    outs() << "; " << R.Key.Signature << "; " << R.Host << " " << R.MeasuredAt
           << "\n";
  }
  return Error::success();
}

Error exportRows(StringRef Output) {
  Expected<std::unique_ptr<TuningDatabase>> Db =
      openTuningDatabase(OpenMode::Existing);
  if (!Db)
    return Db.takeError();
  Expected<std::vector<TuningRecord>> Rows = (*Db)->query();
  if (!Rows)
    return Rows.takeError();
  Expected<std::map<std::string, TuningDatabase::FeatureVector>> Features =
      (*Db)->kernelFeatures();
  if (!Features)
    return Features.takeError();
  // Each kernel's stored features go with its first row, which is where
  // `db import` takes them from.
  std::set<std::string> Done;
  std::string Out;
  for (const TuningRecord &R : *Rows) {
    auto F = Features->find(R.Key.KernelHash);
    const bool First =
        F != Features->end() && Done.insert(R.Key.KernelHash).second;
    Out += R.toJSONLine(First ? &F->second : nullptr) + "\n";
  }
  return writeFileAtomically(Output, Out);
}

/// A line's optional "features" (the kernel model's feature vector, what
/// `cuda-opt train` learns from): kernel hash, name, features.
struct ImportedFeatures {
  std::string Hash, Name;
  TuningDatabase::FeatureVector Features;
};

/// Every line of every file, checked before anything is written.
Expected<std::vector<TuningRecord>>
readJSONLines(ArrayRef<std::string> Files,
              std::vector<ImportedFeatures> *Features = nullptr) {
  std::vector<TuningRecord> Out;
  for (const std::string &File : Files) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
        MemoryBuffer::getFileOrSTDIN(File);
    if (!Buf)
      return makeError("cannot read '" + File +
                       "': " + Buf.getError().message());
    SmallVector<StringRef> Lines;
    (*Buf)->getBuffer().split(Lines, '\n');
    for (size_t I = 0; I < Lines.size(); ++I) {
      StringRef Line = Lines[I].trim();
      if (Line.empty())
        continue;
      auto Bad = [&](Error E) {
        return makeError(formatv("{0}:{1}: {2}; nothing was imported", File,
                                 I + 1, toString(std::move(E))));
      };
      Expected<json::Value> V = json::parse(Line);
      if (!V)
        return Bad(V.takeError());
      Expected<TuningRecord> R = TuningRecord::fromJSON(*V);
      if (!R)
        return Bad(R.takeError());
      if (const json::Value *F = V->getAsObject()->get("features")) {
        const json::Object *FO = F->getAsObject();
        if (!FO)
          return Bad(makeError("\"features\" is not an object of numbers"));
        ImportedFeatures IF{R->Key.KernelHash, R->KernelName, {}};
        for (const auto &[K, X] : *FO) {
          if (!X.getAsNumber())
            return Bad(makeError("feature \"" + K.str() +
                                 "\" is not a number"));
          IF.Features.push_back({K.str(), *X.getAsNumber()});
        }
        llvm::sort(IF.Features);
        if (Features)
          Features->push_back(std::move(IF));
      }
      Out.push_back(std::move(*R));
    }
  }
  return Out;
}

/// Store \p Rows one transaction each; says how many were new.
Error addAll(TuningDatabase &Db, ArrayRef<TuningRecord> Rows, StringRef Verb) {
  unsigned New = 0;
  for (const TuningRecord &R : Rows) {
    bool Inserted = false;
    if (Error E = Db.add(R, &Inserted))
      return E;
    New += Inserted;
  }
  WithColor::note(errs(), ToolName)
      << Verb << " " << New << " measurements into " << Db.path() << " ("
      << Rows.size() - New << " already there)\n";
  return Error::success();
}

Error importRows(ArrayRef<std::string> Files) {
  if (Files.empty())
    return makeError("db import: give the JSON Lines files to import");
  std::vector<ImportedFeatures> Features;
  Expected<std::vector<TuningRecord>> Rows = readJSONLines(Files, &Features);
  if (!Rows)
    return Rows.takeError();
  Expected<std::unique_ptr<TuningDatabase>> Db =
      openTuningDatabase(OpenMode::Create);
  if (!Db)
    return Db.takeError();
  if (Error E = addAll(**Db, *Rows, "imported"))
    return E;
  std::set<std::string> Stored;
  for (const ImportedFeatures &F : Features)
    if (Stored.insert(F.Hash).second)
      if (Error E = (*Db)->putKernelFeatures(F.Hash, F.Name, F.Features))
        return E;
  if (!Stored.empty())
    WithColor::note(errs(), ToolName)
        << "imported the features of " << Stored.size() << " kernels\n";
  return Error::success();
}

Error merge(ArrayRef<std::string> Args) {
  if (Args.size() != 2)
    return makeError("db merge A B: give the database to merge into and the "
                     "one to copy from");
  Expected<std::unique_ptr<TuningDatabase>> From =
      TuningDatabase::open(Args[1], OpenMode::Existing);
  if (!From)
    return From.takeError();
  Expected<std::vector<TuningRecord>> Rows = (*From)->query();
  if (!Rows)
    return Rows.takeError();
  std::map<std::string, std::string> Names;
  Expected<std::map<std::string, TuningDatabase::FeatureVector>> Features =
      (*From)->kernelFeatures(&Names);
  if (!Features)
    return Features.takeError();
  Expected<std::unique_ptr<TuningDatabase>> Into =
      TuningDatabase::open(Args[0], OpenMode::Create);
  if (!Into)
    return Into.takeError();
  if (Error E = addAll(**Into, *Rows, "merged"))
    return E;
  // The kernels' features (what `cuda-opt train` learns from): B's where A
  // has none for the kernel or other ones (the latest stored wins, as with
  // `db import`).
  Expected<std::map<std::string, TuningDatabase::FeatureVector>> Had =
      (*Into)->kernelFeatures();
  if (!Had)
    return Had.takeError();
  unsigned New = 0;
  for (const auto &[Hash, F] : *Features) {
    auto It = Had->find(Hash);
    if (It != Had->end() && It->second == F)
      continue;
    if (Error E = (*Into)->putKernelFeatures(Hash, Names[Hash], F))
      return E;
    ++New;
  }
  if (!Features->empty())
    WithColor::note(errs(), ToolName)
        << "merged the features of " << New << " kernels into "
        << (*Into)->path() << " (" << Features->size() - New
        << " already there)\n";
  return Error::success();
}

/// Parse each of \p Files and call \p Fn on every kernel.
Error forEachKernel(
    const ToolchainOptions &TO, ArrayRef<std::string> ExtraFlags,
    ArrayRef<std::string> Files,
    function_ref<Error(clang::ASTContext &, const KernelInfo &, StringRef File)>
        Fn) {
  if (Files.empty())
    return makeError("give the .cu files whose kernels to look up");
  Expected<Toolchain> TC = Toolchain::discover(TO);
  if (!TC)
    return TC.takeError();
  Expected<std::unique_ptr<clang::tooling::CompilationDatabase>> CDB =
      loadCompilationDatabase();
  if (!CDB)
    return CDB.takeError();
  for (const std::string &File : Files) {
    Expected<SourceInput> In = loadInput(File, CDB->get(), ExtraFlags);
    if (!In)
      return In.takeError();
    Error Inner = Error::success();
    Error E = forSelectedKernels(
        *TC, *In, [&](clang::ASTContext &Ctx, const KernelInfo &K) {
          if (!Inner)
            Inner = Fn(Ctx, K, File);
        });
    if (E)
      return E;
    if (Inner)
      return Inner;
  }
  return Error::success();
}

Error best(const ToolchainOptions &TO, ArrayRef<std::string> ExtraFlags,
           ArrayRef<std::string> Files) {
  Expected<std::unique_ptr<TuningDatabase>> Db =
      openTuningDatabase(OpenMode::Existing);
  if (!Db)
    return Db.takeError();
  return forEachKernel(
      TO, ExtraFlags, Files,
      [&](clang::ASTContext &Ctx, const KernelInfo &K,
          StringRef File) -> Error {
        std::string Hash = kernelHash(Ctx, K);
        TuningFilter F;
        F.KernelHash = Hash;
        F.GpuModel = cli::GpuModel;
        Expected<std::vector<TuningRecord>> Rows = (*Db)->query(F);
        if (!Rows)
          return Rows.takeError();
        outs() << File << ": " << K.name() << " (" << Hash << ")";
        std::set<std::string> Gpus;
        for (const TuningRecord &R : *Rows)
          Gpus.insert(R.Key.Gpu.Model);
        if (Gpus.empty())
          outs() << ": nothing recorded\n";
        else
          outs() << "\n";
        for (const std::string &Gpu : Gpus) {
          ChoiceOptions CO;
          CO.GpuModel = Gpu;
          CO.Signature = cli::Signature;
          CO.Model = cli::FpModelOpt;
          std::optional<RecordedChoice> C = chooseRecorded(*Rows, CO);
          outs() << "  " << Gpu << ": ";
          if (!C) {
            outs() << "no verified measurement\n";
            continue;
          }
          outs() << pipelineName(C->Best.Key.Pipeline)
                 << formatv(" {0:F4} ms", C->Best.MedianMs);
          if (C->Speedup > 0)
            outs() << formatv(", {0:F2}x over the original", C->Speedup);
          outs() << " [" << C->Best.Key.FpModel << "; " << C->Best.Key.Signature
                 << "]";
          if (!C->ExactSignature)
            outs() << " (nearest to " << cli::Signature << ")";
          outs() << "\n";
        }
        return Error::success();
      });
}

Error hashes(const ToolchainOptions &TO, ArrayRef<std::string> ExtraFlags,
             ArrayRef<std::string> Files) {
  return forEachKernel(
      TO, ExtraFlags, Files,
      [&](clang::ASTContext &Ctx, const KernelInfo &K, StringRef) -> Error {
        outs() << K.name() << " " << kernelHash(Ctx, K) << "\n";
        return Error::success();
      });
}

} // namespace

int runDbCommand(const ToolchainOptions &TO, ArrayRef<std::string> ExtraFlags) {
  if (cli::InputFiles.empty())
    return reportError(makeError("db: give an action: stats, list, best, "
                                 "export, import, merge or hash"));
  StringRef Action = cli::InputFiles.front();
  std::vector<std::string> Args(cli::InputFiles.begin() + 1,
                                cli::InputFiles.end());
  if (Action != "list" && cli::KernelHashFilter.getNumOccurrences())
    return reportError(makeError("--kernel-hash goes with 'db list'"));
  if (Action != "export" && cli::OutputPath.getNumOccurrences())
    return reportError(makeError("-o goes with 'db export'"));
  if (Action == "merge" && cli::DbPath.getNumOccurrences())
    return reportError(makeError("db merge A B names both databases; drop "
                                 "--db"));
  const bool NoArgs =
      Action == "stats" || Action == "list" || Action == "export";
  if (NoArgs && !Args.empty())
    return reportError(makeError("db " + Action + " takes no arguments (got '" +
                                 Args.front() + "')"));
  Error E = [&]() -> Error {
    if (Action == "stats")
      return stats();
    if (Action == "list")
      return list();
    if (Action == "export")
      return exportRows(cli::OutputPath);
    if (Action == "import")
      return importRows(Args);
    if (Action == "merge")
      return merge(Args);
    if (Action == "best")
      return best(TO, ExtraFlags, Args);
    if (Action == "hash")
      return hashes(TO, ExtraFlags, Args);
    return makeError("db: unknown action '" + Action +
                     "'; give stats, list, best, export, import, merge or "
                     "hash");
  }();
  if (E)
    return reportError(std::move(E));
  return 0;
}

} // namespace cuda_opt
