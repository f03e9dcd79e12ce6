//===- TrainCommand.cpp - `cuda-opt train` --------------------------------===//
//
//   cuda-opt train --db DB -o MODEL.json [--name TEXT]
//   cuda-opt train --db DB --evaluate-lopo EVAL.md
//   cuda-opt train --db DB -o MODEL.json --emit-cxx RankerModelData.inc
//
// Fits the learned ranker (Ranker.h, docs/policy.md) on the measured
// variants of a tuning database whose kernels have stored features, and
// writes the model file; --evaluate-lopo writes the leave-one-program-out
// evaluation instead (or as well). The subcommand parses its own arguments
// (as sparse-encode does). Nothing is written when anything fails.
//
//===----------------------------------------------------------------------===//
#include "TrainCommand.h"

#include "cuda-opt/Search/CandidateSpace.h"
#include "cuda-opt/Search/Ranker.h"
#include "cuda-opt/Search/TuningDatabase.h"
#include "cuda-opt/Support/OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <tuple>

using namespace llvm;
using namespace cuda_opt;

namespace {

const char *Usage =
    "usage: cuda-opt train --db DB (-o MODEL.json | --evaluate-lopo EVAL.md)\n"
    "                      [--name TEXT] [--emit-cxx FILE.inc]\n"
    "\n"
    "Fits the learned ranker that orders tune's candidates (docs/policy.md)\n"
    "on the measured variants of a tuning database (SQLite file or\n"
    "postgresql:// URL) whose kernels have stored features.\n"
    "  -o FILE              write the model (cuda-opt-ranker v1, JSON);\n"
    "                       use it with tune --policy-model FILE\n"
    "  --evaluate-lopo FILE write the leave-one-program-out evaluation\n"
    "                       (Markdown): ranker, k-NN, round-robin, random\n"
    "  --name TEXT          what the model says it was trained on\n"
    "  --emit-cxx FILE      also write the model as the compiled-in\n"
    "                       lib/Search/RankerModelData.inc\n";

int error(const Twine &Msg) {
  WithColor::error(errs(), "cuda-opt train") << Msg << "\n";
  return 1;
}

struct TrainingSet {
  std::vector<std::unique_ptr<KernelFeatures>> Features;
  std::vector<RankerSample> Samples;
  unsigned Kernels = 0, Programs = 0, SkippedNoFeatures = 0;
};

/// The samples of a database: per kernel on one problem, GPU, versions and
/// fp-model, each verified variant's log speedup over the original (its
/// latest verified measurement); the program is the source file's stem.
Expected<TrainingSet> readTrainingSet(TuningDatabase &Db) {
  Expected<std::vector<TuningRecord>> Rows = Db.query();
  if (!Rows)
    return Rows.takeError();
  Expected<std::map<std::string, TuningDatabase::FeatureVector>> Feats =
      Db.kernelFeatures();
  if (!Feats)
    return Feats.takeError();
  using Key = std::tuple<std::string, int64_t, std::string, std::string,
                         std::string, std::string, std::string, std::string,
                         std::string>;
  std::map<Key, std::map<std::string, const TuningRecord *>> Groups;
  std::vector<Key> Order;
  for (const TuningRecord &R : *Rows) {
    if (R.Verdict != "verified" && R.Verdict != "slower")
      continue;
    if (!(R.MedianMs > 0))
      continue;
    Key K{R.Key.Gpu.Model,  R.Key.Gpu.SmCount, R.Key.Gpu.Driver,
          R.Key.Gpu.Cuda,   R.Key.ToolVersion, R.Key.KernelHash,
          R.Key.Signature,  R.Key.FpModel,     R.SourceFile};
    auto [It, New] = Groups.insert({K, {}});
    if (New)
      Order.push_back(K);
    It->second[R.Key.Pipeline] = &R; // Oldest first: the latest wins.
  }
  TrainingSet T;
  std::map<std::string, const KernelFeatures *> ByHash;
  std::set<std::string> Programs;
  std::set<std::string> Skipped;
  for (const Key &K : Order) {
    const auto &Variants = Groups[K];
    auto Orig = Variants.find("");
    if (Orig == Variants.end() || Orig->second->Verdict != "verified")
      continue;
    const std::string &Hash = std::get<5>(K);
    auto F = Feats->find(Hash);
    if (F == Feats->end()) {
      Skipped.insert(Hash);
      continue;
    }
    const KernelFeatures *&KF = ByHash[Hash];
    if (!KF) {
      T.Features.push_back(std::make_unique<KernelFeatures>(F->second));
      KF = T.Features.back().get();
    }
    const TuningRecord &O = *Orig->second;
    std::string Program =
        sys::path::stem(O.SourceFile.empty() ? O.KernelName : O.SourceFile)
            .str();
    Programs.insert(Program);
    ++T.Kernels;
    for (const auto &[Pipeline, R] : Variants) {
      RankerSample S;
      S.Program = Program;
      S.Kernel = O.KernelName.empty() ? Hash : O.KernelName;
      S.Features = KF;
      S.Signature = std::get<6>(K);
      S.Pipeline = Pipeline;
      S.LogSpeedup = std::log(O.MedianMs / R->MedianMs);
      T.Samples.push_back(std::move(S));
    }
  }
  T.Programs = Programs.size();
  T.SkippedNoFeatures = Skipped.size();
  return T;
}

std::string cxxModel(StringRef Json) {
  std::string Out = "// Generated by cuda-opt train --emit-cxx from the "
                    "committed H200 rows\n// (bench/policy/training.jsonl; "
                    "docs/policy.md); do not edit.\n\n"
                    "static const char BuiltinRankerModel[] =\n";
  // Split into string literals of one line each (no compiler limit on one
  // literal's length is reached).
  SmallVector<StringRef> Lines;
  Json.split(Lines, '\n', -1, false);
  for (StringRef L : Lines) {
    Out += "    \"";
    for (char C : L) {
      if (C == '"' || C == '\\')
        Out += '\\';
      Out += C;
    }
    Out += "\\n\"\n";
  }
  Out += "    ;\n";
  return Out;
}

} // namespace

int runTrainCommand(int Argc, const char **Argv) {
  std::string DbPath, Output, Eval, Name, EmitCxx;
  for (int I = 1; I < Argc; ++I) {
    StringRef A = Argv[I];
    auto Value = [&](std::string &Into) {
      if (A.contains('=')) {
        Into = A.split('=').second.str();
        return true;
      }
      if (I + 1 >= Argc)
        return false;
      Into = Argv[++I];
      return true;
    };
    bool Ok = true;
    if (A == "--help" || A == "-h") {
      outs() << Usage;
      return 0;
    }
    if (A == "--db" || A.starts_with("--db="))
      Ok = Value(DbPath);
    else if (A == "-o")
      Ok = Value(Output);
    else if (A == "--evaluate-lopo" || A.starts_with("--evaluate-lopo="))
      Ok = Value(Eval);
    else if (A == "--name" || A.starts_with("--name="))
      Ok = Value(Name);
    else if (A == "--emit-cxx" || A.starts_with("--emit-cxx="))
      Ok = Value(EmitCxx);
    else
      return error("unknown argument '" + A + "'\n" + Usage);
    if (!Ok)
      return error(A + " needs a value\n" + Usage);
  }
  if (DbPath.empty())
    return error("give the tuning database to train from: --db DB\n" + Twine(Usage));
  if (Output.empty() && Eval.empty())
    return error("nothing to write: give -o MODEL.json and/or "
                 "--evaluate-lopo EVAL.md");
  if (!EmitCxx.empty() && Output.empty())
    return error("--emit-cxx goes with -o MODEL.json");
  if (Error E = checkTuningDatabaseLocation(DbPath))
    return error(toString(std::move(E)));
  Expected<std::unique_ptr<TuningDatabase>> Db =
      TuningDatabase::open(DbPath, TuningDatabase::OpenMode::Existing);
  if (!Db)
    return error(toString(Db.takeError()));
  Expected<TrainingSet> T = readTrainingSet(**Db);
  if (!T)
    return error(toString(T.takeError()));
  errs() << formatv("train: {0}: {1} samples, {2} kernels, {3} programs",
                    (*Db)->path(), T->Samples.size(), T->Kernels, T->Programs);
  if (T->SkippedNoFeatures)
    errs() << formatv(" ({0} kernels without stored features skipped)",
                      T->SkippedNoFeatures);
  errs() << "\n";
  if (T->Samples.empty())
    return error("'" + (*Db)->path() +
                 "' holds no verified variant of a kernel with stored "
                 "features and a verified original; tune kernels into it "
                 "(cuda-opt tune --db) or import rows with features "
                 "(bench/policy/train.py --export-db; docs/policy.md)");
  if (Name.empty())
    Name = formatv("{0} ({1} kernels, {2} programs)",
                   sys::path::filename((*Db)->path()), T->Kernels, T->Programs)
               .str();

  std::string EvalText;
  if (!Eval.empty()) {
    Expected<RankerEvaluation> E = evaluateRankerLopo(
        T->Samples, candidatePipelines(std::numeric_limits<unsigned>::max()),
        {}, [&](StringRef Held) {
          errs() << "train: leave-one-program-out: holding out " << Held
                 << "\n";
        });
    if (!E)
      return error(toString(E.takeError()));
    EvalText = E->markdown("the tuning database " + Name);
    std::vector<std::string> Printed = E->Orders;
    llvm::append_range(Printed, E->ExtraOrders);
    for (const std::string &O : Printed) {
      errs() << formatv("train: {0,-20}", O);
      for (size_t K = 0; K < E->Ks.size(); ++K)
        errs() << formatv(" k={0}: {1:F2}", E->Ks[K], E->mean(O)[K]);
      errs() << "\n";
    }
  }
  std::string ModelText;
  if (!Output.empty()) {
    errs() << "train: fitting the ranker on all " << T->Samples.size()
           << " samples\n";
    Expected<RankerModel> M = RankerModel::fit(T->Samples, Name);
    if (!M)
      return error(toString(M.takeError()));
    ModelText = M->toJSON();
  }
  // Everything is computed; now write (each file atomically).
  if (!Output.empty()) {
    if (Error E = writeFileAtomically(Output, ModelText))
      return error(toString(std::move(E)));
    errs() << "train: wrote " << Output << "\n";
  }
  if (!EmitCxx.empty()) {
    if (Error E = writeFileAtomically(EmitCxx, cxxModel(ModelText)))
      return error(toString(std::move(E)));
    errs() << "train: wrote " << EmitCxx << "\n";
  }
  if (!Eval.empty()) {
    if (Error E = writeFileAtomically(Eval, EvalText))
      return error(toString(std::move(E)));
    errs() << "train: wrote " << Eval << "\n";
  }
  return 0;
}
