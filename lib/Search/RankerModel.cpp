//===- RankerModel.cpp - Gradient-boosted candidate ranker ----------------===//
//
// Part of cuda-opt. The features of (kernel, problem, pipeline), the
// deterministic tree fit with a pairwise logistic objective plus a squared
// anchor on the log speedup, prediction, and the model file (Ranker.h,
// docs/policy.md).
//
//===----------------------------------------------------------------------===//
#include "cuda-opt/Search/Ranker.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

using namespace llvm;

namespace cuda_opt {

static Error makeStringError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

//===----------------------------------------------------------------------===//
// Features
//===----------------------------------------------------------------------===//
namespace {

struct PassParams {
  std::string Name;
  std::vector<std::pair<std::string, std::string>> Params;
};

/// "restrict-const,block-size{x=32,y=1}" as its passes and parameters.
std::vector<PassParams> parsePipelineText(StringRef Pipeline) {
  std::vector<PassParams> Out;
  size_t I = 0;
  while (I < Pipeline.size()) {
    size_t End = I;
    int Depth = 0;
    while (End < Pipeline.size() && (Depth > 0 || Pipeline[End] != ',')) {
      if (Pipeline[End] == '{')
        ++Depth;
      else if (Pipeline[End] == '}' && Depth > 0)
        --Depth;
      ++End;
    }
    StringRef Pass = Pipeline.slice(I, End).trim();
    I = End + 1;
    if (Pass.empty())
      continue;
    PassParams P;
    auto [Name, Rest] = Pass.split('{');
    P.Name = Name.trim().str();
    Rest.consume_back("}");
    SmallVector<StringRef, 4> KVs;
    Rest.split(KVs, ',', -1, false);
    for (StringRef KV : KVs) {
      auto [K, V] = KV.split('=');
      P.Params.push_back({K.trim().str(), V.trim().str()});
    }
    Out.push_back(std::move(P));
  }
  return Out;
}

std::optional<double> numberOf(StringRef V) {
  double D;
  if (V.getAsDouble(D))
    return std::nullopt;
  return D;
}

double log2p1(double X) { return std::log2(1.0 + std::max(0.0, X)); }

/// The problem's features from its signature (ProblemSignature.h); all 0
/// when unknown.
std::vector<std::pair<std::string, double>> problemFeatures(StringRef Sig) {
  double Grid = 0, Block = 0, Shmem = 0, MaxInt = 0, MaxBuf = 0;
  SmallVector<StringRef, 8> Parts;
  Sig.split(Parts, ';', -1, false);
  auto Product = [](StringRef Dims) {
    SmallVector<StringRef, 3> D;
    Dims.split(D, 'x');
    double P = 1;
    for (StringRef S : D)
      P *= numberOf(S).value_or(1);
    return P;
  };
  for (StringRef P : Parts) {
    auto [K, V] = P.split('=');
    if (K == "grid")
      Grid = Product(V);
    else if (K == "block")
      Block = Product(V);
    else if (K == "shmem")
      Shmem = numberOf(V).value_or(0);
    else if (K.starts_with("int:"))
      MaxInt = std::max(MaxInt, std::fabs(numberOf(V).value_or(0)));
    else if (K.starts_with("buf:"))
      MaxBuf = std::max(MaxBuf, numberOf(V).value_or(0));
  }
  return {{"problem:known", Sig.empty() ? 0.0 : 1.0},
          {"problem:log2_grid_blocks", log2p1(Grid)},
          {"problem:log2_block_threads", log2p1(Block)},
          {"problem:log2_dynamic_shared", log2p1(Shmem)},
          {"problem:log2_max_int_arg", log2p1(MaxInt)},
          {"problem:log2_max_buffer", log2p1(MaxBuf)}};
}

/// The pipeline's features by name; names of pass and parameter features
/// are what the training data had.
std::vector<std::pair<std::string, double>> pipelineFeatures(StringRef P) {
  std::vector<std::pair<std::string, double>> Out;
  std::vector<PassParams> Passes = parsePipelineText(P);
  Out.push_back({"pipeline:passes", double(Passes.size())});
  for (const PassParams &PP : Passes) {
    Out.push_back({"pass:" + PP.Name, 1.0});
    for (const auto &[K, V] : PP.Params) {
      if (std::optional<double> D = numberOf(V))
        Out.push_back({"param:" + PP.Name + "." + K, *D});
      else
        Out.push_back({"param:" + PP.Name + "." + K + "=" + V, 1.0});
    }
  }
  return Out;
}

bool knownPrefix(StringRef Name) {
  return Name.starts_with("kernel:") || Name.starts_with("problem:") ||
         Name == "pipeline:passes" || Name.starts_with("pass:") ||
         Name.starts_with("param:");
}

} // namespace

std::vector<std::string> rankerPassesOf(StringRef Pipeline) {
  std::set<std::string> S;
  for (const PassParams &P : parsePipelineText(Pipeline))
    S.insert(P.Name);
  return {S.begin(), S.end()};
}

std::vector<double> RankerModel::vectorOf(const KernelFeatures &Features,
                                          StringRef Signature,
                                          StringRef Pipeline,
                                          bool &Unknown) const {
  std::vector<double> V(FeatureNames.size(), 0.0);
  Unknown = false;
  auto Set = [&](StringRef Name, double X, bool MustExist) {
    auto It = std::lower_bound(FeatureNames.begin(), FeatureNames.end(), Name);
    if (It != FeatureNames.end() && *It == Name)
      V[It - FeatureNames.begin()] = X;
    else if (MustExist)
      Unknown = true;
  };
  for (const auto &[Name, X] : Features)
    Set("kernel:" + Name, X, false);
  for (const auto &[Name, X] : problemFeatures(Signature))
    Set(Name, X, false);
  for (const auto &[Name, X] : pipelineFeatures(Pipeline))
    Set(Name, X, StringRef(Name).starts_with("pass:"));
  return V;
}

//===----------------------------------------------------------------------===//
// Fitting
//===----------------------------------------------------------------------===//

/// Level-wise regression trees on gradients and hessians (second-order
/// boosting), features presorted once; everything in a fixed order, so the
/// same samples give the same model bit for bit.
class RankerFitter {
public:
  RankerFitter(ArrayRef<RankerSample> S, const RankerParams &P)
      : Samples(S), Params(P) {}

  Expected<RankerModel> run(StringRef Training) {
    RankerModel M;
    M.Training = Training.str();
    M.Params = Params;
    std::set<std::string> Names;
    for (const char *N : {"problem:known", "problem:log2_grid_blocks",
                          "problem:log2_block_threads",
                          "problem:log2_dynamic_shared",
                          "problem:log2_max_int_arg", "problem:log2_max_buffer"})
      Names.insert(N);
    for (const RankerSample &S : Samples) {
      for (const auto &F : *S.Features)
        Names.insert("kernel:" + F.first);
      for (const auto &F : pipelineFeatures(S.Pipeline))
        Names.insert(F.first);
    }
    M.FeatureNames.assign(Names.begin(), Names.end());
    const size_t N = Samples.size(), F = M.FeatureNames.size();
    X.assign(F, std::vector<double>(N));
    Y.resize(N);
    for (size_t I = 0; I < N; ++I) {
      bool Unknown;
      std::vector<double> V = M.vectorOf(*Samples[I].Features,
                                         Samples[I].Signature,
                                         Samples[I].Pipeline, Unknown);
      for (size_t J = 0; J < F; ++J)
        X[J][I] = V[J];
      Y[I] = Samples[I].LogSpeedup;
    }
    // Groups: the pairs are within one kernel on one problem.
    std::map<std::string, std::vector<size_t>> ByKey;
    for (size_t I = 0; I < N; ++I)
      ByKey[Samples[I].Program + "\n" + Samples[I].Kernel + "\n" +
            Samples[I].Signature]
          .push_back(I);
    unsigned Usable = 0;
    for (auto &[K, G] : ByKey) {
      Groups.push_back(G);
      Usable += G.size() >= 2;
    }
    if (Usable < 2)
      return makeStringError(
          formatv("too few kernels to learn a ranking: {0} with two or more "
                  "measured candidates, at least 2 needed; tune more kernels "
                  "into the database",
                  Usable));
    Order.resize(F);
    for (size_t J = 0; J < F; ++J) {
      Order[J].resize(N);
      std::iota(Order[J].begin(), Order[J].end(), 0);
      std::stable_sort(Order[J].begin(), Order[J].end(),
                       [&](size_t A, size_t B) { return X[J][A] < X[J][B]; });
    }
    // Each kernel counts once in the anchor, whatever its candidate count.
    Weight.assign(N, 0.0);
    double WSum = 0, YSum = 0;
    for (const std::vector<size_t> &G : Groups)
      for (size_t I : G) {
        Weight[I] = 1.0 / G.size();
        WSum += Weight[I];
        YSum += Weight[I] * Y[I];
      }
    M.Base = YSum / WSum;
    std::vector<double> Score(N, M.Base);
    for (unsigned R = 0; R < Params.Rounds; ++R) {
      gradients(Score);
      std::vector<RankerModel::Node> Tree = grow();
      for (size_t I = 0; I < N; ++I)
        Score[I] += leafValue(Tree, I);
      M.Trees.push_back(std::move(Tree));
    }
    return M;
  }

private:
  ArrayRef<RankerSample> Samples;
  RankerParams Params;
  std::vector<std::vector<double>> X; // [feature][sample]
  std::vector<double> Y, Weight, G, H;
  std::vector<std::vector<size_t>> Groups, Order;
  static constexpr double Lambda = 1.0;
  static constexpr unsigned MinLeafSamples = 3;

  void gradients(const std::vector<double> &S) {
    const size_t N = Y.size();
    G.assign(N, 0.0);
    H.assign(N, 0.0);
    for (size_t I = 0; I < N; ++I) {
      G[I] = Params.Anchor * Weight[I] * (S[I] - Y[I]);
      H[I] = Params.Anchor * Weight[I];
    }
    for (const std::vector<size_t> &Grp : Groups) {
      const double Norm = 1.0 / Grp.size();
      for (size_t A = 0; A < Grp.size(); ++A)
        for (size_t B = A + 1; B < Grp.size(); ++B) {
          size_t I = Grp[A], J = Grp[B];
          if (Y[I] == Y[J])
            continue;
          if (Y[I] < Y[J])
            std::swap(I, J);
          const double W = Norm * (Y[I] - Y[J]);
          const double Rho = 1.0 / (1.0 + std::exp(S[I] - S[J]));
          G[I] -= W * Rho;
          G[J] += W * Rho;
          H[I] += W * Rho * (1 - Rho);
          H[J] += W * Rho * (1 - Rho);
        }
    }
  }

  double leafValue(const std::vector<RankerModel::Node> &T, size_t I) const {
    int K = 0;
    while (T[K].Feature >= 0)
      K = X[T[K].Feature][I] <= T[K].Threshold ? T[K].Left : T[K].Right;
    return T[K].Value;
  }

  std::vector<RankerModel::Node> grow() {
    const size_t N = Y.size(), F = X.size();
    const size_t MaxNodes = (size_t(2) << Params.Depth) + 1;
    std::vector<RankerModel::Node> T(1);
    T.reserve(MaxNodes);
    std::vector<int> NodeOf(N, 0);
    std::vector<int> Open = {0};
    std::vector<char> IsOpen(MaxNodes, 0);
    std::vector<double> GT(MaxNodes), HT(MaxNodes), GL(MaxNodes), HL(MaxNodes),
        Prev(MaxNodes), Gain(MaxNodes), Thr(MaxNodes);
    std::vector<size_t> NT(MaxNodes), NL(MaxNodes);
    std::vector<int> Feat(MaxNodes);
    auto Leaf = [&](int K) {
      T[K].Feature = -1;
      T[K].Value = -Params.LearningRate * GT[K] / (HT[K] + Lambda);
    };
    for (unsigned Level = 0; !Open.empty(); ++Level) {
      std::fill(IsOpen.begin(), IsOpen.end(), 0);
      for (int K : Open) {
        IsOpen[K] = 1;
        GT[K] = HT[K] = 0;
        NT[K] = 0;
        Gain[K] = 1e-9;
        Feat[K] = -1;
      }
      for (size_t I = 0; I < N; ++I)
        if (IsOpen[NodeOf[I]]) {
          GT[NodeOf[I]] += G[I];
          HT[NodeOf[I]] += H[I];
          ++NT[NodeOf[I]];
        }
      if (Level == Params.Depth) {
        for (int K : Open)
          Leaf(K);
        break;
      }
      for (size_t J = 0; J < F; ++J) {
        for (int K : Open) {
          GL[K] = HL[K] = 0;
          NL[K] = 0;
        }
        const std::vector<double> &XJ = X[J];
        for (size_t I : Order[J]) {
          const int K = NodeOf[I];
          if (!IsOpen[K])
            continue;
          const double V = XJ[I];
          if (NL[K] >= MinLeafSamples && NT[K] - NL[K] >= MinLeafSamples &&
              V > Prev[K]) {
            double GR = GT[K] - GL[K], HR = HT[K] - HL[K];
            double Gn = GL[K] * GL[K] / (HL[K] + Lambda) +
                        GR * GR / (HR + Lambda) -
                        GT[K] * GT[K] / (HT[K] + Lambda);
            if (Gn > Gain[K]) {
              Gain[K] = Gn;
              Feat[K] = static_cast<int>(J);
              Thr[K] = Prev[K] + (V - Prev[K]) / 2;
            }
          }
          GL[K] += G[I];
          HL[K] += H[I];
          ++NL[K];
          Prev[K] = V;
        }
      }
      std::vector<int> Next;
      for (int K : Open) {
        if (Feat[K] < 0) {
          Leaf(K);
          continue;
        }
        T[K].Feature = Feat[K];
        T[K].Threshold = Thr[K];
        T[K].Left = static_cast<int>(T.size());
        T[K].Right = static_cast<int>(T.size() + 1);
        T.resize(T.size() + 2);
        Next.push_back(T[K].Left);
        Next.push_back(T[K].Right);
      }
      for (size_t I = 0; I < N; ++I) {
        const int K = NodeOf[I];
        if (IsOpen[K] && T[K].Feature >= 0)
          NodeOf[I] = X[T[K].Feature][I] <= T[K].Threshold ? T[K].Left
                                                            : T[K].Right;
      }
      Open = std::move(Next);
    }
    return T;
  }
};

Expected<RankerModel> RankerModel::fit(ArrayRef<RankerSample> Samples,
                                       StringRef Training,
                                       const RankerParams &P) {
  Expected<RankerModel> M = RankerFitter(Samples, P).run(Training);
  if (!M)
    return M.takeError();
  // What the file says is what is used: the fitted model goes through its
  // own text, so a loaded model ranks exactly as the fitted one.
  return parse(M->toJSON(), "the fitted model");
}

//===----------------------------------------------------------------------===//
// Prediction
//===----------------------------------------------------------------------===//

std::optional<double> RankerModel::predictLog(const KernelFeatures &Features,
                                              StringRef Signature,
                                              StringRef Pipeline) const {
  bool Unknown;
  std::vector<double> V = vectorOf(Features, Signature, Pipeline, Unknown);
  if (Unknown)
    return std::nullopt;
  double S = Base;
  for (const std::vector<Node> &T : Trees) {
    int K = 0;
    while (T[K].Feature >= 0)
      K = V[T[K].Feature] <= T[K].Threshold ? T[K].Left : T[K].Right;
    S += T[K].Value;
  }
  return S;
}

std::vector<size_t> RankerModel::rank(const KernelFeatures &Features,
                                      StringRef Signature,
                                      ArrayRef<std::string> Pipelines) const {
  OnlineRanking R(*this, Features, Signature, Pipelines);
  std::vector<size_t> Out;
  while (std::optional<size_t> I = R.next())
    Out.push_back(*I);
  return Out;
}

std::string RankerModel::describe() const {
  return formatv("learned ranker ({0} trees of depth {1}, {2} features), "
                 "trained on {3}",
                 Trees.size(), Params.Depth, FeatureNames.size(), Training)
      .str();
}

//===----------------------------------------------------------------------===//
// The model file
//===----------------------------------------------------------------------===//

std::string RankerModel::toJSON() const {
  std::string S;
  raw_string_ostream OS(S);
  auto Quote = [&](StringRef X) {
    OS << json::Value(X.str());
  };
  OS << "{\n  \"format\": \"" << Format << "\",\n  \"version\": "
     << FormatVersion << ",\n  \"training\": ";
  Quote(Training);
  OS << ",\n  \"params\": {\"rounds\": " << Params.Rounds
     << ", \"depth\": " << Params.Depth
     << ", \"learning_rate\": " << formatv("{0}", Params.LearningRate)
     << ", \"anchor\": " << formatv("{0}", Params.Anchor) << "},\n";
  OS << "  \"features\": [\n";
  for (size_t I = 0; I < FeatureNames.size(); ++I) {
    OS << "    ";
    Quote(FeatureNames[I]);
    OS << (I + 1 < FeatureNames.size() ? ",\n" : "\n");
  }
  OS << "  ],\n  \"base\": " << format("%.9g", Base) << ",\n";
  OS << "  \"trees\": [\n";
  for (size_t T = 0; T < Trees.size(); ++T) {
    OS << "    [";
    for (size_t K = 0; K < Trees[T].size(); ++K) {
      const Node &N = Trees[T][K];
      if (K)
        OS << ", ";
      if (N.Feature < 0)
        OS << "[" << format("%.9g", N.Value) << "]";
      else
        OS << "[" << N.Feature << ", " << format("%.9g", N.Threshold) << ", "
           << N.Left << ", " << N.Right << "]";
    }
    OS << (T + 1 < Trees.size() ? "],\n" : "]\n");
  }
  OS << "  ]\n}\n";
  return S;
}

Expected<RankerModel> RankerModel::parse(StringRef Text, StringRef Origin) {
  auto Bad = [&](const Twine &Why) {
    return makeStringError(("ranker model '" + Origin + "': " + Why +
                            "; retrain it with 'cuda-opt train --db DB -o "
                            "FILE' (docs/policy.md)")
                               .str());
  };
  Expected<json::Value> V = json::parse(Text);
  if (!V) {
    std::string Why = toString(V.takeError());
    return Bad("not JSON (" + Why + ")");
  }
  const json::Object *O = V->getAsObject();
  if (!O)
    return Bad("not a JSON object");
  std::optional<StringRef> Fmt = O->getString("format");
  if (!Fmt || *Fmt != Format)
    return Bad(Twine("not a cuda-opt ranker model (\"format\" is not \"") +
               Format + "\")");
  std::optional<int64_t> Ver = O->getInteger("version");
  if (!Ver || *Ver != FormatVersion)
    return Bad(formatv("model format version {0}; this cuda-opt reads "
                       "version {1}",
                       Ver ? std::to_string(*Ver) : std::string("(none)"),
                       FormatVersion));
  RankerModel M;
  if (std::optional<StringRef> T = O->getString("training"))
    M.Training = T->str();
  if (const json::Object *P = O->getObject("params")) {
    M.Params.Rounds = P->getInteger("rounds").value_or(0);
    M.Params.Depth = P->getInteger("depth").value_or(0);
    M.Params.LearningRate = P->getNumber("learning_rate").value_or(0);
    M.Params.Anchor = P->getNumber("anchor").value_or(0);
  }
  const json::Array *Feats = O->getArray("features");
  if (!Feats || Feats->empty())
    return Bad("no \"features\" list");
  for (const json::Value &F : *Feats) {
    std::optional<StringRef> S = F.getAsString();
    if (!S)
      return Bad("a feature name is not a string");
    if (!knownPrefix(*S) ||
        (S->starts_with("problem:") &&
         !llvm::any_of(problemFeatures(""),
                       [&](const auto &P) { return P.first == *S; })))
      return Bad("feature '" + *S +
                 "' is not one this cuda-opt computes (a model trained with "
                 "other features)");
    M.FeatureNames.push_back(S->str());
  }
  if (!std::is_sorted(M.FeatureNames.begin(), M.FeatureNames.end()))
    return Bad("the feature names are not sorted");
  std::optional<double> Base = O->getNumber("base");
  const json::Array *Trees = O->getArray("trees");
  if (!Base || !Trees)
    return Bad("no \"base\" or \"trees\"");
  M.Base = *Base;
  for (const json::Value &TV : *Trees) {
    const json::Array *TA = TV.getAsArray();
    if (!TA || TA->empty())
      return Bad("a tree is not a non-empty list of nodes");
    std::vector<Node> T;
    for (const json::Value &NV : *TA) {
      const json::Array *NA = NV.getAsArray();
      Node N;
      if (NA && NA->size() == 1 && (*NA)[0].getAsNumber()) {
        N.Value = *(*NA)[0].getAsNumber();
      } else if (NA && NA->size() == 4 && (*NA)[0].getAsInteger() &&
                 (*NA)[1].getAsNumber() && (*NA)[2].getAsInteger() &&
                 (*NA)[3].getAsInteger()) {
        N.Feature = *(*NA)[0].getAsInteger();
        N.Threshold = *(*NA)[1].getAsNumber();
        N.Left = *(*NA)[2].getAsInteger();
        N.Right = *(*NA)[3].getAsInteger();
      } else {
        return Bad("a tree node is neither [value] nor [feature, threshold, "
                   "left, right]");
      }
      T.push_back(N);
    }
    for (size_t K = 0; K < T.size(); ++K)
      if (T[K].Feature >= 0 &&
          (size_t(T[K].Feature) >= M.FeatureNames.size() ||
           T[K].Left <= int(K) || T[K].Right <= int(K) ||
           size_t(T[K].Left) >= T.size() || size_t(T[K].Right) >= T.size()))
        return Bad("a tree node points outside its tree or feature list");
    M.Trees.push_back(std::move(T));
  }
  return M;
}

Expected<RankerModel> RankerModel::load(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  if (!B)
    return makeStringError(("cannot read ranker model '" + Path +
                            "': " + B.getError().message())
                               .str());
  return parse((*B)->getBuffer(), Path);
}

namespace {
#include "RankerModelData.inc"
} // namespace

const RankerModel &RankerModel::builtin() {
  static const RankerModel M = [] {
    Expected<RankerModel> R = parse(BuiltinRankerModel, "built-in");
    if (!R)
      report_fatal_error(R.takeError());
    return std::move(*R);
  }();
  return M;
}

} // namespace cuda_opt
