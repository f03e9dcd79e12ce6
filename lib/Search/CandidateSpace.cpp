//===- CandidateSpace.cpp - Which pipelines the tuner tries --------------===//
//
// Part of cuda-opt. The exhaustive-but-small space the tuner enumerates until
// a learned policy ranks it: every transform over a few values of each
// parameter, alone and after restrict-const. Illegal candidates are dropped
// later by the transforms' own legality checks.
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Search/CandidateSpace.h"
#include <algorithm>
#include "cuda-opt/Pass/Transform.h"

using namespace llvm;

namespace cuda_opt {

/// The values of a parameter worth trying: the transform's own list, else
/// every power of two in range for power-of-two parameters, else the default.
static std::vector<int64_t> tuningValues(const ParamSpec &P) {
  if (!P.TuneValues.empty())
    return P.TuneValues;
  if (!P.PowerOfTwo)
    return {P.Default};
  std::vector<int64_t> Vs;
  for (int64_t V = 1; V <= P.Max && V > 0; V *= 2)
    if (V >= P.Min)
      Vs.push_back(V);
  return Vs;
}

/// Every combination of the values of \p Params, as "{a=1,b=2}" strings.
static std::vector<std::string> paramGrid(ArrayRef<ParamSpec> Params) {
  std::vector<std::string> Out = {""};
  for (const ParamSpec &P : Params) {
    if (P.IsText)
      continue; // File names and such keep their defaults.
    std::vector<std::string> Next;
    for (const std::string &Prefix : Out)
      for (int64_t V : tuningValues(P))
        Next.push_back(Prefix + (Prefix.empty() ? "" : ",") + P.Name + "=" +
                       std::to_string(V));
    Out = std::move(Next);
  }
  for (std::string &S : Out)
    if (!S.empty())
      S = "{" + S + "}";
  return Out;
}

/// Settings of text parameters, which paramGrid leaves at their defaults:
/// a few chosen values, added after the transform's integer grid. Kept
/// small; each is also tried after restrict-const.
static const std::pair<StringRef, StringRef> TextSettings[] = {
    // Coarsening the rows of 2-D kernels (1-D kernels refuse it at once).
    {"coarsen", "{factor=2,axis=y}"},
    {"coarsen", "{factor=4,axis=y}"},
};

/// Launch shapes tried before a transform whose work per block grows with
/// the block: stage-segments stages a block's rows together, and on the
/// corpus CSR spmv 1024-thread blocks with items=4 ran at 0.618 ms against
/// 0.770 for the launch's 256 (bench/JOURNAL.md, session 12). Each is added
/// before every setting of that transform's grid.
static const std::pair<StringRef, StringRef> BlockShapes[] = {
    {"stage-segments", "block-size{x=1024,y=1},"},
    {"stage-segments", "block-size{x=512,y=1},"},
};

std::vector<std::string> candidatePipelines(unsigned Budget) {
  // Round-robin over the transforms (each one's parameter grid in order,
  // each setting alone and after restrict-const), so that a small budget
  // still samples every transform instead of exhausting the first one's grid.
  std::vector<std::vector<std::string>> PerTransform;
  for (const auto &T : TransformRegistry::createAll()) {
    if (T->rewritesHostRegion())
      continue; // Measured in tune's region phase (RegionTuning.cpp).
    std::vector<std::string> Settings;
    for (const std::string &Params : paramGrid(T->getParams()))
      Settings.push_back(T->getName().str() + Params);
    for (const auto &[Name, Params] : TextSettings)
      if (Name == T->getName())
        Settings.push_back((Name + Params).str());
    // Interleaved with the transform's own settings, so that a small budget
    // reaches both.
    std::vector<std::string> Shaped;
    for (const auto &[Name, Shape] : BlockShapes)
      if (Name == T->getName())
        for (const std::string &S : Settings)
          Shaped.push_back(Shape.str() + S);
    if (!Shaped.empty()) {
      std::vector<std::string> Mixed;
      for (size_t I = 0; I < std::max(Settings.size(), Shaped.size()); ++I) {
        if (I < Shaped.size())
          Mixed.push_back(Shaped[I]);
        if (I < Settings.size())
          Mixed.push_back(Settings[I]);
      }
      Settings = std::move(Mixed);
    }
    PerTransform.push_back(std::move(Settings));
  }
  std::vector<std::string> Out;
  for (size_t Round = 0;; ++Round) {
    bool Any = false;
    for (const std::vector<std::string> &Settings : PerTransform) {
      if (Round >= Settings.size())
        continue;
      Any = true;
      const std::string &S = Settings[Round];
      Out.push_back(S);
      if (!StringRef(S).starts_with("restrict-const"))
        Out.push_back("restrict-const," + S);
    }
    if (!Any)
      break;
  }
  if (Out.size() > Budget)
    Out.resize(Budget);
  return Out;
}

} // namespace cuda_opt
