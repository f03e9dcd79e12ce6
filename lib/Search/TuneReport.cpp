//===- TuneReport.cpp - Markdown and JSON reports of a tuning run --------===//
//
// Part of cuda-opt. Throughput is reported against the ceilings measured on
// the project's H200 (docs/tuning.md): 4234 GB/s device-to-device copy.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Search/Tuner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <map>

using namespace llvm;

namespace cuda_opt {

static constexpr double CopyCeilingGBs = 4234.0;

static double gbPerS(int64_t Bytes, double Ms) {
  return Ms > 0 ? Bytes / (Ms * 1e-3) / 1e9 : 0;
}

/// The bytes one candidate's kernel must move (per kernel in program mode).
static int64_t minBytesOf(const TuneResult &R, const CandidateRecord &C) {
  for (const KernelOutcome &K : R.Kernels)
    if (K.Kernel == C.Kernel && K.MinBytes > 0)
      return K.MinBytes;
  return R.Kernels.size() > 1 ? 0 : R.MinBytes;
}

json::Value TuneResult::toJSON(StringRef File) const {
  json::Array Cands;
  for (const CandidateRecord &C : Candidates) {
    const int64_t MinBytes = minBytesOf(*this, C);
    json::Object O{{"id", C.Id}, {"pipeline", C.Pipeline}, {"status", C.Status}};
    if (!C.Kernel.empty())
      O["kernel"] = C.Kernel;
    if (!C.Detail.empty())
      O["detail"] = C.Detail;
    if (auto It = Predicted.find({C.Kernel, C.Pipeline}); It != Predicted.end())
      O["predicted_speedup"] = It->second;
    if (C.Round >= 0)
      O["round"] = C.Round;
    if (C.M.Runs > 0) {
      O["median_ms"] = C.M.MedianMs;
      O["min_ms"] = C.M.MinMs;
      O["max_ms"] = C.M.MaxMs;
      O["p10_ms"] = C.M.P10Ms;
      O["p90_ms"] = C.M.P90Ms;
      O["runs"] = C.M.Runs;
      O["speedup"] = C.M.Speedup;
      O["max_rel_error"] = C.M.MaxRelError;
      if (!C.M.Check.empty())
        O["check"] = C.M.Check;
      if (C.M.Check == "fp64") {
        O["fp64_error"] = C.M.Fp64Error;
        O["fp64_error_ratio"] = C.M.Fp64ErrorRatio;
      }
      if (MinBytes > 0)
        O["gb_per_s"] = gbPerS(MinBytes, C.M.MedianMs);
      if (Flops > 0)
        O["tflop_per_s"] = Flops / (C.M.MedianMs * 1e-3) / 1e12;
    }
    Cands.push_back(std::move(O));
  }
  json::Object Out{{"file", File},
                   {"kernel", Kernel},
                   {"measured", Measured},
                   {"pipeline", ChosenPipeline},
                   {"candidates", std::move(Cands)}};
  if (!Mode.empty())
    Out["mode"] = Mode;
  Out["fp_model"] = fpModelName(Model);
  json::Array Link;
  for (const std::string &F : LinkFlags)
    Link.push_back(F);
  Out["link_flags"] = std::move(Link);
  if (!Policy.empty())
    Out["policy"] = Policy;
  if (!Kernels.empty()) {
    json::Array Ks;
    for (const KernelOutcome &K : Kernels) {
      json::Object O{{"kernel", K.Kernel}, {"measured", K.Measured},
                     {"detail", K.Detail}};
      if (K.Measured) {
        O["baseline_ms"] = K.BaselineMs;
        O["best_ms"] = K.BestMs;
        O["speedup"] = K.BestMs > 0 ? K.BaselineMs / K.BestMs : 0;
        O["pipeline"] = K.Pipeline;
        O["grid"] = json::Array{K.Grid[0], K.Grid[1], K.Grid[2]};
        O["block"] = json::Array{K.Block[0], K.Block[1], K.Block[2]};
        O["min_bytes"] = K.MinBytes;
        O["needs_fp_model"] = fpModelName(K.ChosenNeeds);
        if (!K.VerifyNote.empty())
          O["verification"] = K.VerifyNote;
        if (!K.Rounds.empty()) {
          json::Array Rs;
          for (const MeasureRound &R : K.Rounds) {
            json::Array Ids;
            for (const std::string &Id : R.Ids)
              Ids.push_back(Id);
            json::Object RO{{"round", R.Number},
                            {"variants", std::move(Ids)},
                            {"observed_before", R.Observed}};
            if (R.Number > 0) {
              RO["original_ms"] = R.OriginalMs;
              RO["not_in_static_order"] = R.Moved;
            }
            if (!R.Error.empty())
              RO["error"] = R.Error;
            Rs.push_back(std::move(RO));
          }
          O["rounds"] = std::move(Rs);
        }
        if (K.Reference.Measured) {
          O["cublas_ms"] = K.Reference.MedianMs;
          O["cublas_problem"] = K.Reference.Description;
          O["speedup_vs_cublas"] =
              K.BestMs > 0 ? K.Reference.MedianMs / K.BestMs : 0;
        } else if (!K.ReferenceNote.empty()) {
          O["cublas_note"] = K.ReferenceNote;
        }
      }
      Ks.push_back(std::move(O));
    }
    Out["kernels"] = std::move(Ks);
  }
  if (!Measured) {
    Out["not_measured_reason"] = NotMeasuredReason;
    if (!PredictedBy.empty())
      Out["predicted_by"] = PredictedBy;
    if (VariantsRecorded) // --dry-run --db: candidates, not measurements.
      Out["candidates_recorded"] = VariantsRecorded;
  } else {
    Out["device"] = Device;
    Out["baseline_ms"] = BaselineMs;
    Out["best_ms"] = BestMs;
    Out["speedup"] = BestMs > 0 ? BaselineMs / BestMs : 0;
    Out["variants_measured"] = VariantsMeasured;
    Out["variants_reused"] = VariantsReused;
    Out["variants_recorded"] = VariantsRecorded;
    Out["seconds"] = Seconds;
    Out["min_bytes"] = MinBytes;
    json::Object Phases;
    for (const auto &[Phase, Secs] : PhaseSeconds)
      Phases[Phase] = Secs;
    Out["phase_seconds"] = std::move(Phases);
    if (Kernels.size() == 1 && Kernels[0].Reference.Measured) {
      Out["cublas_ms"] = Kernels[0].Reference.MedianMs;
      Out["speedup_vs_cublas"] =
          BestMs > 0 ? Kernels[0].Reference.MedianMs / BestMs : 0;
    }
    Out["copy_ceiling_gb_per_s"] = CopyCeilingGBs;
  }
  return Out;
}

/// A refusal reads "pass{a=1}: why"; the reason without the parameter
/// values in the prefix, so "block-size{x=32,y=2}: ..." and
/// "block-size{x=64,y=2}: ..." share a row.
static std::string reasonText(StringRef Detail) {
  auto [Step, Why] = Detail.split(": ");
  if (Why.empty() || Step.contains(' '))
    return Detail.str();
  return (Step.split('{').first + ": " + Why).str();
}

/// The reason with every number replaced, for grouping: the numbers are the
/// parameter values, summarised in the row's pass column.
static std::string reasonKey(StringRef Detail) {
  std::string Key;
  for (char C : reasonText(Detail))
    if (!isDigit(C))
      Key += C;
    else if (Key.empty() || Key.back() != '#')
      Key += '#';
  return Key;
}

/// Candidates the report does not list one by one: refused by a legality
/// check (or needing what this run lacks), or legal but ranked after the
/// budget. The JSON report keeps each of them.
std::string describeRound(const MeasureRound &R) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "round " << R.Number << ": ";
  if (R.Number == 0)
    OS << R.Ids.size() << " from the tuning database";
  else if (!R.Error.empty() && R.Ids.empty())
    OS << R.Error;
  else
    OS << R.Ids.size() << " measured";
  if (!R.Ids.empty()) {
    OS << " (";
    for (size_t I = 0; I < R.Ids.size(); ++I)
      OS << (I ? " " : "") << R.Ids[I];
    OS << ")";
  }
  if (R.Number == 1 && R.Observed == 0)
    OS << ", the ranker's first picks";
  else if (R.Number > 0 && R.Error.empty())
    OS << ", picked after " << R.Observed << " observations, " << R.Moved
       << " not in the static order's next " << R.Ids.size();
  if (R.Number > 0 && R.OriginalMs > 0)
    OS << format(", original %.4f ms", R.OriginalMs);
  if (!R.Error.empty() && !R.Ids.empty())
    OS << "; " << R.Error;
  return S;
}

std::string describeRounds(ArrayRef<MeasureRound> Rounds) {
  std::string S;
  for (const MeasureRound &R : Rounds)
    S += (S.empty() ? "" : "; ") + describeRound(R);
  return S;
}

static bool isRefusal(const CandidateRecord &C) {
  return C.Status == "illegal" || C.Status == "over-budget" ||
         C.Status == "library-call" || C.Status == "needs-program-mode" ||
         C.Status == "inert";
}

/// The top-level steps of a pipeline: "a{x=1,y=2},b" -> "a{x=1,y=2}", "b".
static SmallVector<StringRef> pipelineSteps(StringRef Pipeline) {
  SmallVector<StringRef> Steps;
  int Depth = 0;
  size_t Begin = 0;
  for (size_t I = 0; I <= Pipeline.size(); ++I) {
    if (I == Pipeline.size() || (Pipeline[I] == ',' && Depth == 0)) {
      if (StringRef S = Pipeline.slice(Begin, I).trim(); !S.empty())
        Steps.push_back(S);
      Begin = I + 1;
    } else if (Pipeline[I] == '{') {
      ++Depth;
    } else if (Pipeline[I] == '}') {
      --Depth;
    }
  }
  return Steps;
}

/// The values one parameter took over a group: "8" for one, "0|1" or
/// "1|2|4" for up to three, "4..32" (lowest..highest) for more numbers. The
/// bar is escaped, as in 0\|1: the text goes into a Markdown table cell.
static std::string valuesText(std::vector<std::string> Values) {
  bool Numbers = llvm::all_of(Values, [](const std::string &V) {
    long long Unused;
    return !StringRef(V).getAsInteger(10, Unused);
  });
  if (Numbers)
    llvm::sort(Values, [](const std::string &A, const std::string &B) {
      return std::stoll(A) < std::stoll(B);
    });
  if (Values.size() > 3 && Numbers)
    return Values.front() + ".." + Values.back();
  return llvm::join(Values, "\\|");
}

namespace {
/// Refused candidates of one kernel that share a status and a reason (up to
/// the numbers in it).
struct RefusalGroup {
  std::string Kernel, Status;
  std::vector<const CandidateRecord *> Members;

  /// What the group covers: the refused step with the values each of its
  /// parameters took and the passes it was combined with, e.g.
  /// "`cooperative-rows{lanes=4..32,vec=0|1}` (alone; with `restrict-const`)";
  /// the pipelines themselves where the reason names no step of them.
  std::string covered() const;
  /// The reason, the first member's, on one line.
  std::string reason(size_t Limit) const;
};
} // namespace

std::string RefusalGroup::covered() const {
  std::string Pass;
  std::vector<std::string> Keys;
  std::map<std::string, std::vector<std::string>> Values;
  std::vector<std::string> Contexts;
  bool ByStep = true;
  for (const CandidateRecord *C : Members) {
    StringRef Step = StringRef(C->Detail).split(": ").first;
    SmallVector<StringRef> Steps = pipelineSteps(C->Pipeline);
    auto It = llvm::find(Steps, Step);
    StringRef Name = Step.split('{').first;
    if (It == Steps.end() || (!Pass.empty() && Name != Pass)) {
      ByStep = false;
      break;
    }
    Pass = Name.str();
    SmallVector<StringRef> Params;
    Step.split('{').second.rtrim('}').split(Params, ',', -1, false);
    for (StringRef KV : Params) {
      auto [Key, Value] = KV.split('=');
      auto [VIt, New] = Values.try_emplace(Key.str());
      if (New)
        Keys.push_back(Key.str());
      if (!llvm::is_contained(VIt->second, Value.str()))
        VIt->second.push_back(Value.str());
    }
    Steps.erase(It);
    std::string Context =
        Steps.empty() ? "alone" : "with `" + llvm::join(Steps, ",") + "`";
    if (!llvm::is_contained(Contexts, Context))
      Contexts.push_back(Context);
  }
  auto Listed = [](ArrayRef<std::string> Items, size_t Max, StringRef Sep) {
    std::string Out;
    for (size_t I = 0; I < Items.size() && I < Max; ++I)
      Out += (I ? Sep.str() : "") + Items[I];
    if (Items.size() > Max)
      Out += " and " + std::to_string(Items.size() - Max) + " more";
    return Out;
  };
  if (ByStep) {
    std::string Text = "`" + Pass;
    for (size_t I = 0; I < Keys.size(); ++I)
      Text += (I ? "," : "{") + Keys[I] + "=" + valuesText(Values[Keys[I]]);
    Text += Keys.empty() ? "`" : "}`";
    return Text + " (" + Listed(Contexts, 3, "; ") + ")";
  }
  std::vector<std::string> Pipelines;
  for (const CandidateRecord *C : Members)
    Pipelines.push_back("`" + (C->Pipeline.empty() ? "-" : C->Pipeline) + "`");
  return Listed(Pipelines, 6, ", ");
}

std::string RefusalGroup::reason(size_t Limit) const {
  std::string D = reasonText(Members.front()->Detail).substr(0, Limit);
  for (char &Ch : D)
    if (Ch == '\n' || Ch == '|')
      Ch = ' ';
  return D;
}

/// The refusals among \p Records, one group per kernel, status and reason,
/// in the order of their first members.
static std::vector<RefusalGroup>
groupRefusals(ArrayRef<const CandidateRecord *> Records) {
  std::vector<RefusalGroup> Groups;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> Index;
  for (const CandidateRecord *C : Records) {
    auto [It, New] = Index.try_emplace(
        std::make_tuple(C->Kernel, C->Status, reasonKey(C->Detail)),
        Groups.size());
    if (New)
      Groups.push_back({C->Kernel, C->Status, {}});
    Groups[It->second].Members.push_back(C);
  }
  return Groups;
}

static std::string countText(size_t N) {
  return std::to_string(N) + (N == 1 ? " candidate" : " candidates");
}

std::string TuneResult::toMarkdown(StringRef File) const {
  std::string S;
  raw_string_ostream OS(S);
  OS << "# cuda-opt tune report\n\nfile: `" << File << "`  \n";
  if (!Measured) {
    OS << "result: **not measured** (" << NotMeasuredReason << ")  \n"
       << "pipeline applied: "
       << (ChosenPipeline.empty() ? "none" : "`" + ChosenPipeline + "`")
       << (PredictedBy.empty() ? "" : "  \nchosen by: " + PredictedBy) << "\n\n"
       << "| pass | kernel | result |\n|---|---|---|\n";
    // What was applied (or would be tried) first; then the refusals, one row
    // per kernel and reason.
    std::vector<const CandidateRecord *> Refused;
    for (const CandidateRecord &C : Candidates) {
      if (isRefusal(C)) {
        Refused.push_back(&C);
        continue;
      }
      OS << "| `" << C.Pipeline << "` | "
         << (C.Kernel.empty() ? C.Id : C.Kernel + " " + C.Id) << " | "
         << C.Status << (C.Detail.empty() ? "" : ": " + C.Detail) << " |\n";
    }
    for (const RefusalGroup &G : groupRefusals(Refused))
      OS << "| " << G.covered() << ": " << countText(G.Members.size()) << " | "
         << G.Kernel << " | " << G.Status << ": " << G.reason(240) << " |\n";
    for (const KernelOutcome &K : Kernels)
      OS << "\nkernel `" << K.Kernel << "` not measured: " << K.Detail << "\n";
    return S;
  }
  OS << "kernel: `" << Kernel << "` on " << Device << "  \n"
     << "result: " << format("%.4f", BaselineMs) << " ms -> "
     << format("%.4f", BestMs) << " ms (**"
     << format("%.3fx", BestMs > 0 ? BaselineMs / BestMs : 0) << "**) with `"
     << (ChosenPipeline.empty() ? "(original)" : ChosenPipeline) << "`  \n"
     << "mode: " << (Mode.empty() ? "-" : Mode) << "  \n"
     << "fp-model: " << describeFpModel(Model) << "  \n"
     << "candidate order: " << (Policy.empty() ? "-" : Policy) << "  \n";
  if (!LinkFlags.empty())
    OS << "link the output with: `" << join(LinkFlags, " ") << "`  \n";
  OS << VariantsMeasured << " variants measured in " << format("%.1f", Seconds)
     << " s; timing: CUDA events, L2 flushed before each launch, median of "
        "interleaved runs; each variant verified on 3 seeds with poisoned "
        "outputs and guard bands, its outputs "
     << (Model == FpModel::Strict ? "bitwise equal to the original's"
         : Model == FpModel::Reassoc
             ? "within twice the original's error (the largest of its "
               "runs per seed) against an fp64 reference of the original, "
               "per output and per row where the rows are known (where "
               "there is a reference; else the fp32 tolerance against the "
               "original)"
             : "within --rtol of the original's")
     << "  \n";
  if (VariantsReused)
    OS << VariantsReused
       << " variants not measured again: their results were reused from the "
          "tuning database (measured before on the same GPU model, driver, "
          "CUDA and cuda-opt version, kernel, problem and fp-model)  \n";
  if (VariantsRecorded)
    OS << VariantsRecorded
       << " measurements recorded in the tuning database  \n";
  for (const KernelOutcome &K : Kernels)
    if (!K.Rounds.empty())
      OS << "measured in rounds (kernel `" << K.Kernel
         << "`, --online-rounds): " << describeRounds(K.Rounds) << "  \n";
  if (!PhaseSeconds.empty()) {
    OS << "time by phase:";
    for (const auto &[Phase, Secs] : PhaseSeconds)
      OS << " " << Phase << " " << format("%.1f", Secs) << " s;";
    OS << "\n";
  }
  OS << "\n";
  if (!Kernels.empty()) {
    OS << "| kernel | launch | original ms | best ms | speedup | cuBLAS ms "
          "(best / cuBLAS) | pipeline or reason |\n"
          "|---|---|---|---|---|---|---|\n";
    for (const KernelOutcome &K : Kernels) {
      if (!K.Measured) {
        std::string D = K.Detail.substr(0, 200);
        for (char &Ch : D)
          if (Ch == '\n' || Ch == '|')
            Ch = ' ';
        OS << "| " << K.Kernel << " | | | | not measured | | " << D << " |\n";
        continue;
      }
      OS << "| " << K.Kernel << " | " << K.Grid[0] << "x" << K.Grid[1] << "x"
         << K.Grid[2] << " / " << K.Block[0] << "x" << K.Block[1] << "x"
         << K.Block[2] << " | " << format("%.4f", K.BaselineMs) << " | "
         << format("%.4f", K.BestMs) << " | "
         << format("%.3fx", K.BestMs > 0 ? K.BaselineMs / K.BestMs : 0)
         << " | ";
      if (K.Reference.Measured)
        OS << format("%.4f", K.Reference.MedianMs) << " ("
           << format("%.2fx", K.Reference.MedianMs > 0
                                  ? K.BestMs / K.Reference.MedianMs
                                  : 0)
           << ", " << K.Reference.Description << ")";
      else if (!K.ReferenceNote.empty() && K.ReferenceNote != "not classified as a GEMM")
        OS << "- (" << K.ReferenceNote << ")";
      OS << " | `" << (K.Pipeline.empty() ? "(original)" : K.Pipeline)
         << "` (needs --fp-model=" << fpModelName(K.ChosenNeeds) << "); "
         << K.VerifyNote << " |\n";
    }
    OS << "\n";
  }
  OS << "| kernel | id | pipeline | status | median ms | p10-p90 ms | speedup | GB/s "
        "(% of "
     << format("%.0f", CopyCeilingGBs)
     << " GB/s) | detail |\n|---|---|---|---|---|---|---|---|---|\n";
  // Measured (and rejected) candidates first, in the order they were tried;
  // then the refusals (illegal, and legal but over the budget), one row per
  // kernel, status and reason.
  std::vector<const CandidateRecord *> Rows, Refused;
  for (const CandidateRecord &C : Candidates)
    (isRefusal(C) ? Refused : Rows).push_back(&C);
  std::stable_partition(Rows.begin(), Rows.end(),
                        [](const CandidateRecord *C) { return C->M.Runs > 0; });
  for (const CandidateRecord *Row : Rows) {
    const CandidateRecord &C = *Row;
    OS << "| " << C.Kernel << " | " << C.Id << " | `"
       << (C.Pipeline.empty() ? "-" : C.Pipeline)
       << "` | " << C.Status << " | ";
    if (C.M.Runs > 0) {
      double GB = gbPerS(minBytesOf(*this, C), C.M.MedianMs);
      OS << format("%.4f", C.M.MedianMs) << " | " << format("%.4f", C.M.P10Ms)
         << "-" << format("%.4f", C.M.P90Ms) << " | "
         << format("%.3f", C.M.Speedup) << " | " << format("%.0f", GB) << " ("
         << format("%.0f%%", 100 * GB / CopyCeilingGBs) << ") | ";
    } else {
      OS << " |  |  |  | ";
    }
    std::string D = C.Detail.substr(0, 160);
    if (C.Round >= 0)
      D = "round " + std::to_string(C.Round) + (D.empty() ? "" : "; " + D);
    for (char &Ch : D)
      if (Ch == '\n' || Ch == '|')
        Ch = ' ';
    OS << D << " |\n";
  }
  std::stable_partition(
      Refused.begin(), Refused.end(),
      [](const CandidateRecord *C) { return C->Status == "over-budget"; });
  for (const RefusalGroup &G : groupRefusals(Refused))
    OS << "| " << G.Kernel << " | " << countText(G.Members.size()) << " | "
       << G.covered() << " | " << G.Status << " |  |  |  |  | " << G.reason(200)
       << " |\n";
  return S;
}

} // namespace cuda_opt
