//===- RecordedChoice.cpp - The best recorded variant of a kernel ---------===//
//
// Part of cuda-opt.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Search/RecordedChoice.h"
#include "cuda-opt/Search/ProblemSignature.h"

#include <map>
#include <tuple>

using namespace llvm;

namespace cuda_opt {

static int strength(StringRef Model) {
  std::optional<FpModel> M = parseFpModel(Model);
  return M ? static_cast<int>(*M) : 99;
}

std::optional<RecordedChoice> chooseRecorded(ArrayRef<TuningRecord> Rows,
                                             const ChoiceOptions &Opts) {
  // (GPU model, signature, fp-model) -> rows, oldest first.
  std::map<std::tuple<std::string, std::string, std::string>,
           std::vector<const TuningRecord *>>
      Groups;
  for (const TuningRecord &R : Rows) {
    if (!Opts.GpuModel.empty() && R.Key.Gpu.Model != Opts.GpuModel)
      continue;
    if (strength(R.Key.FpModel) > static_cast<int>(Opts.Model))
      continue;
    Groups[{R.Key.Gpu.Model, R.Key.Signature, R.Key.FpModel}].push_back(&R);
  }
  std::optional<RecordedChoice> Chosen;
  double ChosenDistance = 0;
  for (const auto &[Key, Group] : Groups) {
    RecordedChoice C;
    const TuningRecord *Best = nullptr;
    for (const TuningRecord *R : Group) {
      if (!R->verified())
        continue;
      ++C.VerifiedRows;
      if (R->Key.Pipeline.empty())
        C.Original = *R; // The latest one wins.
      else if (!Best || R->MedianMs < Best->MedianMs)
        Best = R;
    }
    if (!C.VerifiedRows)
      continue;
    if (Best && (!C.Original || Best->MedianMs < C.Original->MedianMs))
      C.Best = *Best;
    else if (C.Original)
      C.Best = *C.Original;
    else
      continue;
    if (C.Original && C.Best.MedianMs > 0)
      C.Speedup = C.Original->MedianMs / C.Best.MedianMs;
    double Distance = Opts.Signature.empty()
                          ? 0
                          : signatureDistance(Opts.Signature, std::get<1>(Key));
    C.ExactSignature = Distance == 0;
    if (!Chosen || Distance < ChosenDistance ||
        (Distance == ChosenDistance && C.Speedup > Chosen->Speedup)) {
      Chosen = C;
      ChosenDistance = Distance;
    }
  }
  return Chosen;
}

} // namespace cuda_opt
